/**
 * `statev-gateway keys …`, `tokens …` and `vault rotate`: the vault's command line (see
 * docs/access-tokens.md). A key and its secret are read from standard input, never from
 * a flag (a command line is visible to every user of the machine); a token is printed
 * once, on one line, and never again.
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config';
import type { GatewayConfig } from '../config';
import type { Env } from '../config/settings-readers';
import {
  GRANT_FORMS,
  MasterKeys,
  Vault,
  VaultKeyError,
  VaultUsageError,
  browserOrigin,
  durationMs,
  tokenBounds,
  vaultStorage,
} from '../vault';
import { alertCommand } from './alert-cli';

/** The first words that make a vault command. */
export const VAULT_COMMANDS = ['keys', 'tokens', 'vault', 'webhooks', 'alerts'] as const;

/** What a vault command printed and its exit code. */
export interface VaultCommandResult {
  /** For stdout. */
  readonly stdout: string;
  /** For stderr. */
  readonly stderr: string;
  /** 0 done, 1 the vault refused (unknown name, wrong master key), 2 a bad command line or setting. */
  readonly exitCode: 0 | 1 | 2;
}

const USAGE = `Usage:
  statev-gateway keys add <name>        read a StateV API key (line 1) and optionally its API secret (line 2) from stdin
  statev-gateway keys list              names, ids and added dates (never a key or secret)
  statev-gateway keys remove <name>     delete a key; tokens covering it stop working
  statev-gateway vault rotate           re-wrap every record under the first key of VAULT_MASTER_KEY=new,old and sign
                                        every token and webhook record under it (also those of a vault written before
                                        records were signed)
  statev-gateway tokens create --character <name> [--character <name> ...] --grant <grant> [--grant ...]
                               --expires-in <duration> [--origin <url>] [--budget-share <n>]
                                        print a new access token on one line
  statev-gateway tokens list            id, characters, grants, expiry, state, last use and label of every token
  statev-gateway tokens revoke <id>     refuse a token from now on (within 1 s on running gateways)
  statev-gateway webhooks add --character <name> --factory <id> --url <https url>
                                        POST the company's payment events there, signed (Standard Webhooks);
                                        prints the webhook id and its signing secret (shown once)
  statev-gateway webhooks list          id, character, company, URL and added date (never a secret)
  statev-gateway webhooks remove <id>   stop posting to a webhook (within 1 s on running gateways)
  statev-gateway alerts add --character <name> --kind <kind> <inputs of the kind> (--discord <url> | --webhook <url>)
                                        a rule watched by running gateways on their pollers; prints its id (and, for
                                        --webhook, its signing secret, shown once). Kinds and their inputs:
                                          stock-below --factory <id> --item <name> --store store|machine|counter --below <n>
                                          transaction-added --bank-account <id> [--min-amount <n>]
                                          outbid
                                          rent-overdue --building <id> --days <n>  (the key needs building.tenants.activity)
  statev-gateway alerts list            id, character, kind, inputs, target (token part elided) and added date
  statev-gateway alerts remove <id>     stop a rule (within 1 s on running gateways)

Grants: ${GRANT_FORMS.join(', ')} (a <Type>.<field> of schema.graphql; a slot 1 to 10)
Durations: a number and s, m, h, d or w (e.g. 90m, 12h, 30d), at most TOKEN_MAX_LIFETIME_DAYS (366 by default).
Budget share: at most the key's own limit per window (UPSTREAM_RATE_LIMIT).
Needs VAULT_MASTER_KEY (32 random bytes in base64: openssl rand -base64 32); the vault is VAULT_FILE,
or Redis when REDIS_URL is set. See docs/access-tokens.md.
`;

/** An ISO time without milliseconds. */
function iso(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Rows as aligned columns. */
function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return (
    rows
      .map((row) =>
        row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join('  '),
      )
      .join('\n') + '\n'
  );
}

/** What a finished command prints. */
const done = (stdout: string): VaultCommandResult => ({ stdout, stderr: '', exitCode: 0 });
const refused = (stderr: string, exitCode: 1 | 2): VaultCommandResult => ({
  stdout: '',
  stderr: `${stderr}\n`,
  exitCode,
});

/** Runs one command on an open vault. */
async function run(
  vault: Vault,
  where: string,
  words: readonly string[],
  argv: readonly string[],
  readStdin: () => Promise<string>,
  config: GatewayConfig,
): Promise<VaultCommandResult> {
  const [group, action, ...rest] = words;
  if (group === 'alerts') return alertCommand(vault, where, words, argv, config.webhookAllowHosts);
  const command = `${group ?? ''} ${action ?? ''}`.trim();
  switch (command) {
    case 'keys add': {
      const [name] = rest;
      if (!name || rest.length > 1)
        return refused('keys add takes one name: statev-gateway keys add <name> < key-file', 2);
      const [apiKey = '', apiSecret = ''] = (await readStdin()).split(/\r?\n/).map((line) => line.trim());
      if (apiKey === '')
        return refused(
          'keys add reads the API key from standard input (line 1; the API secret, if any, on line 2): nothing was given.',
          2,
        );
      const added = await vault.addKey(name, apiKey, apiSecret === '' ? null : apiSecret);
      return done(`Added key ${added.name} (${added.id})${added.hasSecret ? ' with its API secret' : ''}.\n`);
    }
    case 'keys list': {
      const keys = await vault.listKeys();
      if (keys.length === 0) return done('The vault has no keys: statev-gateway keys add <name>.\n');
      return done(
        table([
          ['NAME', 'ID', 'ADDED', 'SECRET'],
          ...keys.map((key) => [key.name, key.id, iso(key.addedAt), key.hasSecret ? 'yes' : 'no']),
        ]),
      );
    }
    case 'keys remove': {
      const [name] = rest;
      if (!name || rest.length > 1) return refused('keys remove takes one name: statev-gateway keys remove <name>', 2);
      await vault.removeKey(name);
      return done(`Removed key ${name}.\n`);
    }
    case 'vault rotate': {
      const rotated = await vault.rotate();
      const signed =
        rotated.newlySigned > 0
          ? ` Signed ${rotated.newlySigned} records written before records were signed: check them with tokens list and webhooks list.`
          : '';
      const refusedRecords =
        rotated.refused.length > 0
          ? `\nLeft alone ${rotated.refused.length} records that are malformed or whose MAC does not verify (gateways refuse them): ${rotated.refused.join(', ')}. Revoke or remove them.`
          : '';
      return done(
        `Re-wrapped and signed ${rotated.records} records under master key ${rotated.masterKeyId} (${where}): the old key may now leave VAULT_MASTER_KEY.${signed}${refusedRecords}\n`,
      );
    }
    case 'tokens list': {
      const tokens = await vault.listTokens();
      if (tokens.length === 0) return done('The vault has no tokens: statev-gateway tokens create --help.\n');
      const now = Date.now();
      const state = (token: (typeof tokens)[number]): string =>
        token.refused !== null
          ? `refused (${token.refused})`
          : token.revokedAt
            ? `revoked ${iso(token.revokedAt)}`
            : token.expiresAt.getTime() <= now
              ? 'expired'
              : 'active';
      return done(
        table([
          ['ID', 'CHARACTERS', 'GRANTS', 'EXPIRES', 'STATE', 'LAST USE', 'ORIGIN', 'BUDGET SHARE', 'LABEL'],
          ...tokens.map((token) => [
            token.id,
            token.characters.join(','),
            token.grants.join(','),
            iso(token.expiresAt),
            state(token),
            token.lastUsedAt ? iso(token.lastUsedAt) : 'never',
            token.origin ?? '-',
            token.budgetShare === null ? '-' : String(token.budgetShare),
            token.label ?? '-',
          ]),
        ]),
      );
    }
    case 'tokens revoke': {
      const [id] = rest;
      if (!id || rest.length > 1)
        return refused('tokens revoke takes one token id: statev-gateway tokens revoke <id> (see tokens list)', 2);
      await vault.revokeToken(id);
      return done(`Revoked token ${id}.\n`);
    }
    case 'tokens create': {
      let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
      try {
        values = parseArgs({
          args: [...argv.slice(2)],
          options: {
            character: { type: 'string', multiple: true },
            grant: { type: 'string', multiple: true },
            'expires-in': { type: 'string' },
            origin: { type: 'string' },
            'budget-share': { type: 'string' },
          },
          strict: true,
          allowPositionals: false,
        }).values;
      } catch (error) {
        return refused(
          `${error instanceof Error ? error.message : String(error)}: see statev-gateway tokens --help.`,
          2,
        );
      }
      const strings = (value: unknown): string[] =>
        Array.isArray(value) ? value.filter((each): each is string => typeof each === 'string') : [];
      const expiresIn = typeof values['expires-in'] === 'string' ? durationMs(values['expires-in']) : Number.NaN;
      if (Number.isNaN(expiresIn))
        return refused('tokens create needs --expires-in <duration>: a number and s, m, h, d or w, e.g. 30d.', 2);
      let boundOrigin: string | null = null;
      if (typeof values.origin === 'string') {
        boundOrigin = browserOrigin(values.origin);
        if (!boundOrigin)
          return refused(
            `--origin "${values.origin}" is not a browser origin: scheme://host[:port], e.g. https://shop.example.`,
            2,
          );
      }
      let budgetShare: number | null = null;
      if (typeof values['budget-share'] === 'string') {
        budgetShare = /^[1-9]\d{0,5}$/.test(values['budget-share']) ? Number(values['budget-share']) : Number.NaN;
        if (Number.isNaN(budgetShare))
          return refused('--budget-share must be a whole number of requests per window, 1 or more.', 2);
      }
      const created = await vault.createToken({
        characters: strings(values.character),
        grants: strings(values.grant),
        expiresInMs: expiresIn,
        origin: boundOrigin,
        budgetShare,
      });
      return done(`${created.token}\n`);
    }
    case 'webhooks add': {
      let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
      try {
        values = parseArgs({
          args: [...argv.slice(2)],
          options: { character: { type: 'string' }, factory: { type: 'string' }, url: { type: 'string' } },
          strict: true,
          allowPositionals: false,
        }).values;
      } catch (error) {
        return refused(
          `${error instanceof Error ? error.message : String(error)}: see statev-gateway webhooks --help.`,
          2,
        );
      }
      const { character, factory, url } = values;
      if (typeof character !== 'string' || typeof factory !== 'string' || typeof url !== 'string')
        return refused('webhooks add needs --character <name> --factory <id> --url <https url>.', 2);
      const added = await vault.addWebhook(character, factory, url);
      return done(`${added.id} ${added.secret}\n`);
    }
    case 'webhooks list': {
      const hooks = await vault.listWebhooks();
      if (hooks.length === 0) return done(`No webhooks in ${where}.\n`);
      return done(
        table([
          ['ID', 'CHARACTER', 'FACTORY', 'URL', 'ADDED', 'STATE'],
          ...hooks.map((hook) => [
            hook.id,
            hook.character,
            hook.factoryId,
            hook.url,
            iso(hook.createdAt),
            hook.refused === null ? 'active' : `refused (${hook.refused})`,
          ]),
        ]),
      );
    }
    case 'webhooks remove': {
      const [id] = rest;
      if (!id || rest.length > 1)
        return refused(
          'webhooks remove takes one webhook id: statev-gateway webhooks remove <id> (see webhooks list)',
          2,
        );
      await vault.removeWebhook(id);
      return done(`Removed webhook ${id}.\n`);
    }
    default:
      return refused(`Unknown command "statev-gateway ${words.join(' ')}".\n${USAGE}`, 2);
  }
}

/**
 * Runs a vault command line (the words after `statev-gateway`, starting with one of
 * {@link VAULT_COMMANDS}).
 *
 * @param argv - e.g. `['keys', 'add', 'alice']`
 * @param readStdin - reads standard input to its end (the key and secret of `keys add`)
 * @param env - the environment (default: `process.env`, read by src/config/index.ts)
 */
export async function vaultCommand(
  argv: readonly string[],
  readStdin: () => Promise<string>,
  env?: Env,
): Promise<VaultCommandResult> {
  if (argv.includes('--help') || argv.includes('-h')) return done(USAGE);
  const words = argv.filter((arg, index) => !arg.startsWith('-') && !(index > 0 && argv[index - 1]?.startsWith('--')));
  // Only `tokens create` and `webhooks add` take options: any other is refused (never ignored),
  // named without its value, e.g. a key given as `keys add alice --key …` (visible in `ps`).
  const command = words.slice(0, 2).join(' ');
  const option = argv.find((arg) => arg.startsWith('-'));
  if (option !== undefined && command !== 'tokens create' && command !== 'webhooks add' && command !== 'alerts add') {
    return refused(
      `statev-gateway ${command} takes no option ${option.split('=')[0] ?? ''}: keys and secrets are read from standard input only, never from the command line. See statev-gateway ${words[0] ?? 'keys'} --help.`,
      2,
    );
  }
  let config: GatewayConfig;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return refused(error.message, 2);
    throw error;
  }
  if (config.vaultMasterKey === null)
    return refused(
      'VAULT_MASTER_KEY is not set: the vault needs a master key, 32 random bytes in base64 (openssl rand -base64 32), in the environment.',
      2,
    );
  const master = MasterKeys.parse(config.vaultMasterKey);
  const opened = vaultStorage(config);
  try {
    return await run(
      new Vault(opened.storage, master, undefined, tokenBounds(config)),
      opened.storage.where,
      words,
      argv,
      readStdin,
      config,
    );
  } catch (error) {
    if (error instanceof VaultUsageError || error instanceof VaultKeyError) return refused(error.message, 1);
    throw error;
  } finally {
    await opened.close();
  }
}
