/**
 * `sharedKey`: the shared (internalized) copy of a key text that long-lived tables keep.
 * Its text never changes, whatever the key: an array index, `__proto__`, an empty string.
 */
import fc from 'fast-check';
import { cacheKey, sharedKey } from '../../src/economy/cache/cache-entry';

describe('sharedKey', () => {
  it('gives back the same text for any string', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (text) => sharedKey(text) === text));
  });

  it('keeps texts that are special as property names', () => {
    for (const text of ['', '0', '4294967295', '__proto__', 'constructor', 'toString', '-1', '1e3'])
      expect(sharedKey(text)).toBe(text);
  });

  it('keeps a cache key built by concatenation', () => {
    const key = cacheKey('a1b2c3d4e5f6', `/factory/${'64f1c2a9e4b0a1d2c3f40001'}/counter`);
    expect(sharedKey(key)).toBe('a1b2c3d4e5f6|/factory/64f1c2a9e4b0a1d2c3f40001/counter');
  });
});
