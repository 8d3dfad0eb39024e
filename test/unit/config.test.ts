/**
 * Every setting is validated at start: a bad value stops the process with a message that
 * names the setting, the value and what is expected.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, DEFAULT_CONFIG, loadConfig } from '../../src/config';
import { compiledEntry } from '../support/compiled';

const root = join(__dirname, '..', '..');

/** The message `loadConfig` throws for one bad setting (fails the test when it does not throw). */
function rejection(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'config-test-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('uses every default for an empty environment', () => {
    expect(loadConfig({})).toMatchObject({
      ...DEFAULT_CONFIG,
      corsOrigins: [],
      cacheTtlSeconds: { ...DEFAULT_CONFIG.cacheTtlSeconds },
      costAssumptions: { ...DEFAULT_CONFIG.costAssumptions },
    });
  });

  it('treats blank values as unset', () => {
    expect(loadConfig({ PORT: ' ', HOST: '', REDIS_URL: '  ', LOG_LEVEL: '' })).toMatchObject({
      port: 4000,
      host: '127.0.0.1',
      redisUrl: null,
      logLevel: 'info',
    });
  });

  it.each([
    [{ STATEV_BASE_URL: 'not a url' }, 'STATEV_BASE_URL="not a url"', 'an absolute http or https URL'],
    [
      { STATEV_BASE_URL: 'ftp://example.com/req' },
      'STATEV_BASE_URL="ftp://example.com/req"',
      'an absolute http or https URL',
    ],
    [{ PORT: '70000' }, 'PORT="70000"', 'an integer from 0 to 65535'],
    [{ PORT: '-1' }, 'PORT="-1"', 'an integer from 0 to 65535'],
    [{ PORT: 'abc' }, 'PORT="abc"', 'an integer from 0 to 65535'],
    [{ SIMULATOR_PORT: '65536' }, 'SIMULATOR_PORT="65536"', 'an integer from 0 to 65535'],
    [{ UPSTREAM_TIMEOUT_MS: '1e3' }, 'UPSTREAM_TIMEOUT_MS="1e3"', 'an integer from 1 to 2147483647 (ms;'],
    [{ MAX_DEPTH: '0' }, 'MAX_DEPTH="0"', 'an integer >= 1'],
    [{ INTROSPECTION: 'maybe' }, 'INTROSPECTION="maybe"', 'true or false'],
    [{ LOG_LEVEL: 'verbose' }, 'LOG_LEVEL="verbose"', 'one of fatal, error, warn, info, debug, trace, silent'],
    [{ HOST: 'not a host' }, 'HOST="not a host"', 'a host name or an IP address'],
    [{ HOST: 'http://0.0.0.0' }, 'HOST="http://0.0.0.0"', 'a host name or an IP address'],
    [{ HOST: '[::1]' }, 'HOST="[::1]"', 'a host name or an IP address'],
    [{ REDIS_URL: 'notaurl' }, 'REDIS_URL="notaurl"', 'an absolute redis or rediss URL'],
    [{ REDIS_URL: 'http://127.0.0.1:6379' }, 'REDIS_URL="http://127.0.0.1:6379"', 'an absolute redis or rediss URL'],
    [
      { TRUSTED_DOCUMENTS: '/nonexistent/manifest.json' },
      'TRUSTED_DOCUMENTS="/nonexistent/manifest.json"',
      'the path of an existing, readable file',
    ],
    [{ TRUSTED_DOCUMENTS: '/' }, 'TRUSTED_DOCUMENTS="/"', 'the path of an existing, readable file'],
  ])('refuses %j, naming the setting, the value and what is expected', (env, named, expected) => {
    const message = rejection(env);
    expect(message).toContain(`Setting ${named} is invalid`);
    expect(message).toContain(`expected ${expected}`);
  });

  const timerBound = "Node's timers wait at most 2147483647 ms, about 24.8 days";
  it.each([
    [
      { UPSTREAM_TIMEOUT_MS: '99999999999' },
      'UPSTREAM_TIMEOUT_MS="99999999999"',
      `an integer from 1 to 2147483647 (ms; ${timerBound})`,
    ],
    [
      { UPSTREAM_TIMEOUT_MS: '2147483648' },
      'UPSTREAM_TIMEOUT_MS="2147483648"',
      `an integer from 1 to 2147483647 (ms; ${timerBound})`,
    ],
    [
      { SHUTDOWN_GRACE_PERIOD_MS: '99999999999' },
      'SHUTDOWN_GRACE_PERIOD_MS="99999999999"',
      `an integer from 0 to 2147483647 (ms; ${timerBound})`,
    ],
    [
      { HTTP_HEADERS_TIMEOUT_MS: '3000000000' },
      'HTTP_HEADERS_TIMEOUT_MS="3000000000"',
      `an integer from 1 to 2147483647 (ms; ${timerBound})`,
    ],
    [
      { SSE_RESERVATION_TTL_MS: '2147483648' },
      'SSE_RESERVATION_TTL_MS="2147483648"',
      `an integer from 1 to 2147483647 (ms; ${timerBound})`,
    ],
    [
      { CACHE_TTL_STOCK_SECONDS: '2147484' },
      'CACHE_TTL_STOCK_SECONDS="2147484"',
      `an integer from 0 to 2147483 (seconds; ${timerBound})`,
    ],
    [
      { CACHE_SNAPSHOT_SECONDS: '99999999' },
      'CACHE_SNAPSHOT_SECONDS="99999999"',
      `an integer from 0 to 2147483 (seconds; ${timerBound})`,
    ],
    [
      { RETRY_AFTER_MAX_SECONDS: '99999999' },
      'RETRY_AFTER_MAX_SECONDS="99999999"',
      `an integer from 1 to 2147483 (seconds; ${timerBound})`,
    ],
    [
      { UPSTREAM_RATE_LIMIT: '10/2147484' },
      'UPSTREAM_RATE_LIMIT="10/2147484"',
      `N/SECONDS with SECONDS at most 2147483 (${timerBound})`,
    ],
  ])('refuses the duration %j past the longest timer, naming the bound', (env, named, expected) => {
    expect(rejection(env)).toBe(`Setting ${named} is invalid: expected ${expected}.`);
  });

  it('accepts every millisecond setting up to the longest timer', () => {
    const msSettings = Object.keys(DEFAULT_CONFIG).filter((key) => key.endsWith('Ms'));
    expect(msSettings.length).toBeGreaterThan(10);
    const config = loadConfig({
      UPSTREAM_TIMEOUT_MS: '2147483647',
      SHUTDOWN_GRACE_PERIOD_MS: '2147483647',
      CACHE_TTL_STOCK_SECONDS: '2147483',
      UPSTREAM_RATE_LIMIT: '10/2147483',
    });
    expect(config).toMatchObject({
      upstreamTimeoutMs: 2147483647,
      shutdownGracePeriodMs: 2147483647,
      upstreamRateLimit: { requests: 10, windowSeconds: 2147483 },
    });
    expect(config.cacheTtlSeconds.stock).toBe(2147483);
    // Every _MS setting is bounded, the new ones too.
    for (const key of msSettings) {
      const env = key.replace(/([A-Z])/g, '_$1').toUpperCase();
      expect(rejection({ [env]: '2147483648' })).toContain(`expected an integer from`);
    }
  });

  it.each([
    ['https://example.com/', 'it has a trailing slash'],
    ['https://example.com/shop', 'it has a path'],
    ['https://example.com?x=1', 'it has a query'],
    ['example.com', 'not a URL'],
    ['ftp://example.com', 'the scheme must be http or https'],
    ['https://user@example.com', 'it has credentials'],
    ['HTTPS://Example.com', 'it is not written as browsers send it (https://example.com)'],
    ['https://example.com:443', 'it is not written as browsers send it (https://example.com)'],
  ])('refuses the CORS_ORIGINS entry %s and says why', (entry, reason) => {
    const message = rejection({ CORS_ORIGINS: `https://ok.example, ${entry}` });
    expect(message).toContain(`Setting CORS_ORIGINS="${entry}" is invalid`);
    expect(message).toContain('a bare origin scheme://host[:port]');
    expect(message).toContain(reason);
  });

  it('accepts good values', async () => {
    const manifest = join(dir, 'manifest.json');
    await writeFile(manifest, '{}');
    expect(
      loadConfig({
        PORT: '0',
        HOST: '0.0.0.0',
        STATEV_BASE_URL: 'http://127.0.0.1:4010/req/',
        LOG_LEVEL: 'silent',
        REDIS_URL: 'rediss://user:pw@redis.internal:6380/2',
        CORS_ORIGINS: 'https://my-company.example, http://localhost:5173',
        TRUSTED_DOCUMENTS: manifest,
        INTROSPECTION: 'OFF',
      }),
    ).toMatchObject({
      port: 0,
      host: '0.0.0.0',
      upstreamBaseUrl: 'http://127.0.0.1:4010/req',
      logLevel: 'silent',
      redisUrl: 'rediss://user:pw@redis.internal:6380/2',
      corsOrigins: ['https://my-company.example', 'http://localhost:5173'],
      trustedDocumentsPath: manifest,
      introspection: false,
    });
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toEqual(['*']);
    expect(loadConfig({ HOST: '::' }).host).toBe('::');
    expect(loadConfig({ HOST: 'localhost' }).host).toBe('localhost');
  });
});

describe('npm start with a bad setting', () => {
  it('exits with code 2 and a message naming the setting, the value and what is expected', async () => {
    const child = spawn(process.execPath, [compiledEntry('main.ts')], {
      cwd: root,
      env: { ...process.env, PORT: '70000', LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr.trim()).toBe('Setting PORT="70000" is invalid: expected an integer from 0 to 65535.');
  }, 30_000);
});
