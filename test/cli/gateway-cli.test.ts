/**
 * `statev-gateway`'s command line: help, version and flags generated from the settings
 * table, flags over environment variables, one-line refusals with exit code 2, and
 * `--print-config` with secrets redacted.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SUBCOMMANDS, gatewayCommand } from '../../src/cli/gateway-cli';
import { VAULT_COMMANDS } from '../../src/cli/vault-cli';
import type { GatewayCommand } from '../../src/cli/gateway-cli';
import { SETTINGS, loadConfig } from '../../src/config';
import type { GatewayConfig } from '../../src/config';

const root = join(__dirname, '..', '..');

/** The configuration a command line runs with (fails the test when it would print and exit instead). */
function runs(command: GatewayCommand): GatewayConfig {
  if (!('run' in command)) throw new Error(`expected a configuration, got ${JSON.stringify(command)}`);
  return command.run;
}

/** What a command line prints and its exit code (fails the test when it would run the gateway). */
function prints(command: GatewayCommand): { stdout: string; stderr: string; exitCode: number } {
  if ('run' in command) throw new Error('expected output, got a configuration to run');
  return { stdout: command.stdout ?? '', stderr: command.stderr ?? '', exitCode: command.exitCode };
}

describe('statev-gateway --help', () => {
  const { stdout, exitCode } = prints(gatewayCommand(['--help'], {}));

  it('lists every setting with its flag, variable, default and meaning', () => {
    expect(exitCode).toBe(0);
    const defaults = loadConfig({});
    for (const definition of SETTINGS) {
      const flag = definition.flag === null ? '(env only)' : `--${definition.flag} <value>`;
      const line = stdout
        .split('\n')
        .findIndex((text) => text.includes(flag) && text.includes(`${definition.env}, default `));
      expect({ env: definition.env, found: line >= 0 }).toEqual({ env: definition.env, found: true });
      expect(stdout.split('\n')[line + 1]?.trim()).toBe(definition.summary);
      expect(definition.summary).not.toContain('\n');
    }
    expect(stdout).toContain('--port <value>');
    expect(stdout).toMatch(/--upstream-rate-limit <value> +UPSTREAM_RATE_LIMIT, default 10\/60/);
    expect(stdout).toMatch(/--cors-origins <value> +CORS_ORIGINS, default none/);
    expect(stdout).toMatch(/--cache-file <value> +CACHE_FILE, default \.data\/upstream-cache/);
    expect(defaults.port).toBe(4000);
  });

  it('gives keys and secrets no flag and does not print the built-in hash secret', () => {
    for (const env of ['STATEV_API_KEY', 'STATEV_API_SECRET', 'KEY_HASH_SECRET']) {
      expect(SETTINGS.find((definition) => definition.env === env)?.flag).toBeNull();
      expect(stdout).toMatch(new RegExp(`\\(env only\\) +${env}, default`));
    }
    expect(stdout).not.toContain(loadConfig({}).keyHashSecret);
  });

  it('lists every command (keys, tokens, webhooks, vault) and the checkout form npm run cli --', () => {
    const commands = stdout.slice(stdout.indexOf('Commands'), stdout.indexOf('Without a command'));
    for (const name of VAULT_COMMANDS) expect(commands).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
    expect(Object.keys(SUBCOMMANDS).sort()).toEqual([...VAULT_COMMANDS].sort());
    expect(stdout).toContain('npm run cli -- <command>');
  });

  it('has -h as its short form', () => {
    expect(prints(gatewayCommand(['-h'], {})).stdout).toBe(stdout);
  });
});

describe('npm run cli', () => {
  it('builds when needed, then runs the same main as the installed statev-gateway, with the arguments after --', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
      bin: Record<string, string>;
    };
    const script = pkg.scripts.cli ?? '';
    expect(script).toMatch(/^npm run -s build && node (--\S+ )*(\S+)$/);
    expect(script.split(' ').at(-1)).toBe(pkg.bin['statev-gateway']);
  });
});

describe('statev-gateway --version', () => {
  it("prints package.json's version", () => {
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    expect(prints(gatewayCommand(['--version'], {}))).toEqual({ stdout: `${version}\n`, stderr: '', exitCode: 0 });
    expect(prints(gatewayCommand(['-v'], {})).stdout).toBe(`${version}\n`);
  });
});

describe('statev-gateway flags', () => {
  it('win over environment variables, in both --flag value and --flag=value forms', () => {
    const config = runs(
      gatewayCommand(
        [
          '--port',
          '8080',
          '--host=0.0.0.0',
          '--upstream-rate-limit',
          '5/30',
          '--cache-ttl-stock-seconds',
          '7',
          '--cost-assumed-rooms=3',
          '--introspection',
          'off',
        ],
        {
          PORT: '9000',
          HOST: '127.0.0.1',
          UPSTREAM_RATE_LIMIT: '10/60',
          CACHE_TTL_STOCK_SECONDS: '60',
          LOG_LEVEL: 'warn',
        },
      ),
    );
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      upstreamRateLimit: { requests: 5, windowSeconds: 30 },
      introspection: false,
      logLevel: 'warn', // from the environment: no flag given
    });
    expect(config.cacheTtlSeconds.stock).toBe(7);
    expect(config.costAssumptions.rooms).toBe(3);
  });

  it('run with the defaults when nothing is given', () => {
    expect(runs(gatewayCommand([], {}))).toEqual(loadConfig({}));
  });

  it.each([
    [['--port', '70000'], {}, 'Flag --port="70000" is invalid: expected an integer from 0 to 65535.'],
    [
      ['--shutdown-grace-period-ms', '99999999999'],
      {},
      'Flag --shutdown-grace-period-ms="99999999999" is invalid: expected an integer from 0 to 2147483647 (ms; Node\'s timers wait at most 2147483647 ms, about 24.8 days).',
    ],
    [
      [],
      { UPSTREAM_TIMEOUT_MS: '99999999999' },
      'Setting UPSTREAM_TIMEOUT_MS="99999999999" is invalid: expected an integer from 1 to 2147483647 (ms; Node\'s timers wait at most 2147483647 ms, about 24.8 days).',
    ],
    [
      ['--upstream-rate-limit', 'ten'],
      {},
      'Flag --upstream-rate-limit="ten" is invalid: expected \'off\' or N/SECONDS with N >= 1 and SECONDS > 0, e.g. 10/60.',
    ],
    [[], { PORT: 'abc' }, 'Setting PORT="abc" is invalid: expected an integer from 0 to 65535.'],
    [
      ['--log-level', 'loud'],
      { PORT: '4001' },
      'Flag --log-level="loud" is invalid: expected one of fatal, error, warn, info, debug, trace, silent.',
    ],
    [['--prot', '1'], {}, 'Unknown flag --prot: see statev-gateway --help.'],
    [['--statev-api-key', 'k'], {}, 'Unknown flag --statev-api-key: see statev-gateway --help.'],
    [['--port'], {}, 'Flag --port needs a value: see statev-gateway --help.'],
    [['--help=yes'], {}, 'Flag --help takes no value: see statev-gateway --help.'],
    [
      ['start'],
      {},
      "Unexpected argument 'start': statev-gateway takes flags or one of the commands keys, tokens, webhooks, vault, alerts, see statev-gateway --help.",
    ],
    [
      ['--upstream-timeout-ms', '-5'],
      {},
      'Flag --upstream-timeout-ms="-5" is invalid: expected an integer from 1 to 2147483647 (ms; Node\'s timers wait at most 2147483647 ms, about 24.8 days).',
    ],
    [['--port', '--help'], {}, 'Flag --port needs a value: see statev-gateway --help.'],
  ])(
    '%j with %j exits with code 2 and one line naming the flag or variable, the value and what is expected',
    (argv, env, line) => {
      expect(prints(gatewayCommand(argv, env))).toEqual({ stdout: '', stderr: `${line}\n`, exitCode: 2 });
    },
  );
});

describe('statev-gateway --print-config', () => {
  const secrets = {
    STATEV_API_KEY: 'print-config-test-key',
    STATEV_API_SECRET: 'print-config-test-secret',
    KEY_HASH_SECRET: 'print-config-hash-secret',
    REDIS_URL: 'rediss://user:print-config-redis-password@redis.internal:6380/2',
  };

  it('prints every setting as VARIABLE=value, secrets and URL passwords redacted', () => {
    const { stdout, exitCode } = prints(
      gatewayCommand(['--print-config', '--port', '8080'], {
        ...secrets,
        CORS_ORIGINS: 'https://a.example,https://b.example',
      }),
    );
    expect(exitCode).toBe(0);
    for (const value of [
      'print-config-test-key',
      'print-config-test-secret',
      'print-config-hash-secret',
      'print-config-redis-password',
    ])
      expect(stdout).not.toContain(value);
    const lines = stdout.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
    expect(lines.map((line) => line.slice(0, line.indexOf('=')))).toEqual(SETTINGS.map((definition) => definition.env));
    expect(lines).toEqual(
      expect.arrayContaining([
        'PORT=8080',
        'STATEV_API_KEY=<redacted>',
        'STATEV_API_SECRET=<redacted>',
        'KEY_HASH_SECRET=<redacted>',
        'REDIS_URL=rediss://user:redacted@redis.internal:6380/2',
        'CORS_ORIGINS=https://a.example,https://b.example',
        'UPSTREAM_RATE_LIMIT=10/60',
      ]),
    );
    expect(stdout).not.toContain('built-in default');
  });

  it('prints values that read back as the same configuration (secrets aside)', () => {
    const env = {
      UPSTREAM_RATE_LIMIT: 'off',
      CACHE_FILE: 'off',
      CORS_ORIGINS: '*',
      REFRESH_AHEAD_SHARE: '0.25',
      INTROSPECTION: 'false',
    };
    const { stdout } = prints(gatewayCommand(['--print-config'], env));
    const printed = Object.fromEntries(
      stdout
        .split('\n')
        .filter((line) => line !== '' && !line.startsWith('#') && !line.includes('<redacted>'))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    expect(loadConfig(printed)).toEqual(loadConfig(env));
  });

  it('warns when KEY_HASH_SECRET is the built-in default', () => {
    expect(prints(gatewayCommand(['--print-config'], {})).stdout).toContain(
      '# KEY_HASH_SECRET is the built-in default: set your own in production.',
    );
  });
});
