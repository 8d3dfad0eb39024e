/**
 * The settings of the persistent cache, refresh-ahead and heap growth, as `loadConfig`
 * reads them: defaults, `off`, and refusals that name the setting.
 */
import { ConfigError, loadConfig } from '../../src/config';

describe('cache file, refresh-ahead and heap growth settings', () => {
  it('defaults: a cache file under .data/, written every 60 s; 0.7 of the budget for refresh-ahead, 600 s idle; heap growth 50 %', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      cacheFile: '.data/upstream-cache',
      cacheSnapshotSeconds: 60,
      refreshAheadShare: 0.7,
      refreshAheadIdleSeconds: 600,
      heapGrowingPercent: 30,
    });
  });

  it.each(['off', 'OFF', 'false', 'none', '0'])('CACHE_FILE=%s turns persistence off', (value) => {
    expect(loadConfig({ CACHE_FILE: value }).cacheFile).toBeNull();
  });

  it('takes a file path, and refuses a folder', () => {
    expect(loadConfig({ CACHE_FILE: '/var/lib/gateway/cache' }).cacheFile).toBe('/var/lib/gateway/cache');
    expect(() => loadConfig({ CACHE_FILE: '/var/lib/gateway/' })).toThrow(ConfigError);
  });

  it.each([
    ['0', 0],
    ['0.5', 0.5],
    ['.25', 0.25],
    ['1', 1],
  ])('REFRESH_AHEAD_SHARE=%s is %d', (raw, value) => {
    expect(loadConfig({ REFRESH_AHEAD_SHARE: raw }).refreshAheadShare).toBe(value);
  });

  it.each(['1.5', '-0.1', 'abc', '70%', '1e-1'])('refuses REFRESH_AHEAD_SHARE=%s, naming it', (raw) => {
    expect(() => loadConfig({ REFRESH_AHEAD_SHARE: raw })).toThrow(/REFRESH_AHEAD_SHARE/);
  });

  it('refuses HEAP_GROWING_PERCENT above 300 and a negative CACHE_SNAPSHOT_SECONDS', () => {
    expect(() => loadConfig({ HEAP_GROWING_PERCENT: '301' })).toThrow(/HEAP_GROWING_PERCENT/);
    expect(() => loadConfig({ CACHE_SNAPSHOT_SECONDS: '-1' })).toThrow(/CACHE_SNAPSHOT_SECONDS/);
    expect(loadConfig({ HEAP_GROWING_PERCENT: '0', CACHE_SNAPSHOT_SECONDS: '0' })).toMatchObject({
      heapGrowingPercent: 0,
      cacheSnapshotSeconds: 0,
    });
  });
});

describe('which persistent level the runtime uses', () => {
  it('has a cache file without Redis, none with Redis (Redis is then the persistent level) or with CACHE_FILE=off', async () => {
    const { createGatewayRuntime } = await import('../../src/runtime');
    const base = { logLevel: 'silent', cacheFile: '/tmp/statev-never-written/cache' };
    const local = await createGatewayRuntime(loadConfig({}, base));
    expect(local.persistence?.file.path).toBe('/tmp/statev-never-written/cache');
    const off = await createGatewayRuntime(loadConfig({}, { ...base, cacheFile: null }));
    expect(off.persistence).toBeUndefined();
    const withRedis = await createGatewayRuntime(
      loadConfig({}, { ...base, redisUrl: 'redis://127.0.0.1:1', redisTimeoutMs: 50 }),
    );
    expect(withRedis.persistence).toBeUndefined();
    await withRedis.shared?.close();
  });
});
