/**
 * The command line of `statev-gateway` (and `npm start`, and `npm run cli --` in a source
 * checkout): `--help`, `--version`, `--print-config`, and one flag per setting of
 * {@link SETTINGS}, which wins over the setting's environment variable. Parsed with
 * `node:util` `parseArgs`; the help text, the flags and the printed configuration are all
 * generated from {@link SETTINGS}. The help also lists the commands (`keys`, `tokens`,
 * `webhooks`, `vault`) that src/cli/vault-cli.ts runs.
 */
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import { ConfigError, DEFAULT_CONFIG, SETTINGS, loadConfig, redactUrlCredentials } from '../config';
import type { GatewayConfig, SettingDefinition } from '../config';
import type { Env, RateSetting } from '../config/settings-readers';
import { packageVersion } from '../project-root';
import type { VAULT_COMMANDS } from './vault-cli';

/** What the command line asks for: run the gateway with a configuration, or print something and exit. */
export type GatewayCommand =
  | { readonly run: GatewayConfig }
  | {
      /** Text for stdout (help, version, configuration), ending in a newline. */
      readonly stdout?: string;
      /** One line for stderr: what was wrong with the command line or a setting. */
      readonly stderr?: string;
      /** 0 after `--help`, `--version` or `--print-config`; 2 for a bad flag or value. */
      readonly exitCode: 0 | 2;
    };

/** The command's name, as the package's `bin` installs it. */
const COMMAND = 'statev-gateway';

/**
 * Every subcommand (the first word of a command line that does not run the gateway), with
 * one line each for `--help`. Typed by {@link VAULT_COMMANDS}, so a command added there and
 * not here fails the typecheck.
 */
export const SUBCOMMANDS: Readonly<Record<(typeof VAULT_COMMANDS)[number], string>> = {
  keys: 'add <name> (key and secret from stdin), list, remove <name>: the StateV keys in the vault',
  tokens: 'create --character <name> --grant <grant> --expires-in <duration>, list, revoke <id>: access tokens',
  webhooks: 'add --character <name> --factory <id> --url <https url>, list, remove <id>: payment webhooks',
  vault: 'rotate: re-wrap the vault under the first key of VAULT_MASTER_KEY=new,old',
  alerts:
    'add --character <name> --kind stock-below|transaction-added|outbid|rent-overdue … --discord <url> | --webhook <url>, list, remove <id>: alert rules',
};

/**
 * A setting's value as its environment variable would hold it (`10/60`, `off`, `a,b`), so
 * `--print-config`'s output can be read back as an environment file.
 */
function asText(definition: SettingDefinition, value: unknown): string {
  if (value === null || value === undefined) return definition.none;
  if (Array.isArray(value)) return value.join(',');
  if (typeof value === 'object') {
    const rate = value as RateSetting;
    return `${rate.requests}/${rate.windowSeconds}`;
  }
  return String(value);
}

/** A value for `--print-config`: secrets redacted whole, every URL without its credentials. */
function redacted(definition: SettingDefinition, text: string): string {
  if (text === '') return text;
  if (definition.redaction === 'secret') return '<redacted>';
  return redactUrlCredentials(text);
}

/** The `--help` text: usage, the command's own flags, then every setting by section. */
function helpText(): string {
  const defaults = loadConfig({});
  const lines = [
    `Usage: ${COMMAND} [options]`,
    `       ${COMMAND} <command> ...   (${COMMAND} <command> --help for its usage)`,
    `In a source checkout, after npm ci: npm run cli -- [options] or npm run cli -- <command> ...`,
    '(builds when the sources changed, like npm start).',
    '',
    'Commands (each needs VAULT_MASTER_KEY; see docs/access-tokens.md):',
    ...Object.entries(SUBCOMMANDS).map(([name, summary]) => `  ${name.padEnd(10)}${summary}`),
    '',
    'Without a command: runs the StateV GraphQL gateway until SIGINT or SIGTERM (then it drains and stops).',
    'Every setting is an environment variable and a flag; a flag wins over its variable.',
    'Secrets (env only) have no flag: a command line is visible to every user of the machine.',
    'Details of every setting: docs/configuration.md.',
    '',
    '  -h, --help          print this help and exit',
    '  -v, --version       print the version and exit',
    '      --print-config  print the effective settings (secrets redacted) as VARIABLE=value lines, and exit',
    `Also: ${COMMAND} console [--sign-out-all] (a one-time console sign-in link; docs/console.md).`,
  ];
  const width = Math.max(...SETTINGS.map((definition) => (definition.flag ?? '').length)) + 12;
  let group = '';
  for (const definition of SETTINGS) {
    if (definition.group !== group) {
      group = definition.group;
      lines.push('', `${group}:`);
    }
    const shown = asText(definition, definition.value(defaults));
    const fallback =
      definition.redaction === 'secret' ? (shown === '' ? 'none' : 'built in') : shown === '' ? 'none' : shown;
    const flag = definition.flag === null ? '(env only)' : `--${definition.flag} <value>`;
    lines.push(`  ${flag.padEnd(width)} ${definition.env}, default ${fallback}`, `      ${definition.summary}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The `--print-config` text: one `VARIABLE=value` line per setting, secrets redacted. */
function configText(config: GatewayConfig): string {
  const lines = [
    `# ${COMMAND} ${packageVersion()}: effective settings (flags, then environment, then defaults); secrets redacted`,
  ];
  for (const definition of SETTINGS)
    lines.push(`${definition.env}=${redacted(definition, asText(definition, definition.value(config)))}`);
  if (config.keyHashSecret === DEFAULT_CONFIG.keyHashSecret)
    lines.push('# KEY_HASH_SECRET is the built-in default: set your own in production.');
  return `${lines.join('\n')}\n`;
}

/** The flags `parseArgs` accepts: the command's own and one per setting that has one. */
function flagOptions(): NonNullable<ParseArgsConfig['options']> {
  const options: NonNullable<ParseArgsConfig['options']> = {
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean', short: 'v' },
    'print-config': { type: 'boolean' },
  };
  for (const definition of SETTINGS) if (definition.flag !== null) options[definition.flag] = { type: 'string' };
  return options;
}

/**
 * `--flag -5` as `--flag=-5`: `parseArgs` takes a value that starts with a dash for a flag of
 * its own, so a negative number would be refused as "ambiguous"; joined, it reaches the
 * setting's own check, which names the range it expects.
 */
function joinNegativeValues(argv: readonly string[], options: NonNullable<ParseArgsConfig['options']>): string[] {
  const joined: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const next = argv[i + 1];
    if (arg.startsWith('--') && options[arg.slice(2)]?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      joined.push(`${arg}=${next}`);
      i++;
    } else joined.push(arg);
  }
  return joined;
}

/** One line for a command line `parseArgs` refused, naming the argument. */
function argumentProblem(error: unknown, argv: readonly string[]): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  const argument =
    /'(?:-\w, )?(-[^' ,]+)/.exec(message)?.[1] ?? argv.find((arg) => !arg.startsWith('-')) ?? argv.join(' ');
  const hint = `see ${COMMAND} --help`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    return /argument missing|ambiguous/.test(message)
      ? `Flag ${argument} needs a value: ${hint}.`
      : `Flag ${argument} takes no value: ${hint}.`;
  }
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL')
    return `Unexpected argument '${argument}': ${COMMAND} takes flags or one of the commands ${Object.keys(SUBCOMMANDS).join(', ')}, ${hint}.`;
  return `Unknown flag ${argument}: ${hint}.`;
}

/**
 * Reads the command line (without `node` and the script) and the environment.
 *
 * @param argv - e.g. `['--port', '8080', '--upstream-rate-limit', '10/60']`
 * @param env - the environment (default: `process.env`, read by src/config/index.ts)
 * @returns the configuration to run with, or what to print and the exit code: 2 with one
 *   line naming the flag or variable, the value and what is expected, when one is bad
 */
export function gatewayCommand(argv: readonly string[], env?: Env): GatewayCommand {
  let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  const options = flagOptions();
  try {
    values = parseArgs({
      args: joinNegativeValues(argv, options),
      options,
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    return { stderr: `${argumentProblem(error, argv)}\n`, exitCode: 2 };
  }
  if (values.help === true) return { stdout: helpText(), exitCode: 0 };
  if (values.version === true) return { stdout: `${packageVersion()}\n`, exitCode: 0 };
  const flags: Record<string, string> = {};
  for (const definition of SETTINGS) {
    const value = definition.flag === null ? undefined : values[definition.flag];
    if (typeof value === 'string') flags[definition.env] = value;
  }
  let config: GatewayConfig;
  try {
    config = loadConfig(env, {}, flags);
  } catch (error) {
    if (error instanceof ConfigError) return { stderr: `${error.message}\n`, exitCode: 2 };
    throw error;
  }
  if (values['print-config'] === true) return { stdout: configText(config), exitCode: 0 };
  return { run: config };
}
