/**
 * The read path's cache keys (src/economy/cache/cache-keys.ts): the same text as
 * `cacheKey(keyId, buildPath(endpoint, params))` for every endpoint and parameter, one
 * shared copy per key, never a key of another hashed key, bounded, and a missing
 * placeholder still an error.
 */
import { CacheKeys } from '../../src/economy/cache/cache-keys';
import { cacheKey } from '../../src/economy/cache/cache-entry';
import { buildPath, ENDPOINTS } from '../../src/upstream/endpoints';
import type { Endpoint, PathParams } from '../../src/upstream/endpoints';

/** Values for every placeholder of `endpoint`, varied by `n` (some need encoding). */
function paramsOf(endpoint: Endpoint, n: number): PathParams {
  const params: Record<string, string | number> = {};
  for (const [, name] of endpoint.pattern.matchAll(/\{(\w+)\}/g))
    params[name as string] = n % 3 === 0 ? n : `${name}-${n}${n % 2 ? '/ä ?' : ''}`;
  return params;
}

describe('CacheKeys', () => {
  const gets = Object.values(ENDPOINTS).filter((endpoint) => endpoint.method === 'GET');

  it('gives the key cacheKey and buildPath give, for every GET endpoint, read after read', () => {
    const keys = new CacheKeys();
    for (let round = 0; round < 2; round += 1)
      for (const keyId of ['k1', 'k2'])
        for (const endpoint of gets)
          for (let n = 0; n < 6; n += 1) {
            const params = paramsOf(endpoint, n);
            expect(keys.key(keyId, endpoint, params)).toBe(cacheKey(keyId, buildPath(endpoint, params)));
          }
  });

  it('keeps each hashed key apart: the same read of two keys gives two keys, each with its own id', () => {
    const keys = new CacheKeys();
    const endpoint = ENDPOINTS.factoryOption;
    const params = { id: 'f1', slot: 2 };
    const one = keys.key('aaaa', endpoint, params);
    const other = keys.key('bbbb', endpoint, params);
    expect(one).toBe('aaaa|/factory/options/f1/2');
    expect(other).toBe('bbbb|/factory/options/f1/2');
    // Asked again in another order (the last key asked is remembered): still apart.
    expect(keys.key('aaaa', endpoint, params)).toBe(one);
    expect(keys.key('bbbb', endpoint, { id: 'f1', slot: 2 })).toBe(other);
    expect(keys.key('aaaa', endpoint, { id: 'f1', slot: 3 })).toBe('aaaa|/factory/options/f1/3');
    // The number 2 and the text '2' make the same path.
    expect(keys.key('aaaa', endpoint, { id: 'f1', slot: '2' })).toBe(one);
  });

  it('answers endpoints without placeholders, and throws on a missing placeholder as buildPath does', () => {
    const keys = new CacheKeys();
    expect(keys.key('k', ENDPOINTS.factoryList, undefined)).toBe('k|/factory/list/');
    expect(keys.key('k', ENDPOINTS.factoryList, {})).toBe('k|/factory/list/');
    expect(() => keys.key('k', ENDPOINTS.factoryOption, { id: 'f1' })).toThrow(/Missing path parameter slot/);
    expect(() => keys.key('k', ENDPOINTS.factoryOption, { slot: 1 })).toThrow(/Missing path parameter id/);
    expect(() => keys.key('k', ENDPOINTS.factoryCounter, undefined)).toThrow(/Missing path parameter id/);
    expect(keys.size).toBe(1);
  });

  it('keeps at most maxKeys keys, then starts again, with the same answers', () => {
    const keys = new CacheKeys(10);
    for (let n = 0; n < 25; n += 1) {
      const params = { id: `f${n}` };
      expect(keys.key(`k${n % 3}`, ENDPOINTS.factoryCounter, params)).toBe(
        cacheKey(`k${n % 3}`, buildPath(ENDPOINTS.factoryCounter, params)),
      );
      expect(keys.size).toBeLessThanOrEqual(10);
    }
    expect(keys.key('k0', ENDPOINTS.factoryCounter, { id: 'f0' })).toBe('k0|/factory/counter/f0');
  });
});
