/**
 * `statev-gateway console`: prints a one-time sign-in link for the console (valid 10
 * minutes, usable once, on every replica sharing the vault's storage), and
 * `statev-gateway console --sign-out-all`: ends every console session. See docs/console.md.
 */
import { ConfigError, loadConfig } from '../config';
import type { GatewayConfig } from '../config';
import type { Env } from '../config/settings-readers';
import { RecordMac } from '../vault';
import { ConsoleAuth, signInLink } from '../admin/console-auth';
import { consoleStore } from '../admin/console-store';

/** What the console command printed and its exit code. */
export interface ConsoleCommandResult {
  /** For stdout. */
  readonly stdout: string;
  /** For stderr. */
  readonly stderr: string;
  /** 0 done, 2 a bad command line or setting. */
  readonly exitCode: 0 | 2;
}

const USAGE = `Usage:
  statev-gateway console                 print a one-time sign-in link for the console (valid 10 minutes, usable once)
  statev-gateway console --sign-out-all  end every console session on every replica

The link starts with PUBLIC_URL (default http://127.0.0.1:<PORT>). Needs VAULT_MASTER_KEY, as the
gateway; codes and sessions are kept beside the vault (VAULT_FILE, or Redis when REDIS_URL is set).
See docs/console.md.
`;

const refused = (stderr: string): ConsoleCommandResult => ({ stdout: '', stderr: `${stderr}\n`, exitCode: 2 });

/**
 * Runs `statev-gateway console [--sign-out-all]`.
 *
 * @param argv - the words after `statev-gateway`, starting with `console`
 * @param env - the environment (default: `process.env`, read by src/config/index.ts)
 */
export async function consoleCommand(argv: readonly string[], env?: Env): Promise<ConsoleCommandResult> {
  const rest = argv.slice(1);
  if (rest.includes('--help') || rest.includes('-h')) return { stdout: USAGE, stderr: '', exitCode: 0 };
  const signOutAll = rest.length === 1 && rest[0] === '--sign-out-all';
  if (rest.length > 0 && !signOutAll)
    return refused(`statev-gateway console takes only --sign-out-all, not "${rest.join(' ')}".\n${USAGE}`);
  let config: GatewayConfig;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return refused(error.message);
    throw error;
  }
  if (config.vaultMasterKey === null)
    return refused("VAULT_MASTER_KEY is not set: the console needs the vault's master key, the same as the gateway's.");
  const store = consoleStore(config);
  try {
    const auth = new ConsoleAuth(store, RecordMac.fromSetting(config.vaultMasterKey));
    if (signOutAll) {
      const count = await auth.signOutAll();
      await auth.audit('cli', 'signOutAll', null);
      return { stdout: `Signed out ${count} console session${count === 1 ? '' : 's'}.\n`, stderr: '', exitCode: 0 };
    }
    const { code } = await auth.issueCode();
    return { stdout: `${signInLink(config, code)}\n`, stderr: '', exitCode: 0 };
  } finally {
    await store.close();
  }
}
