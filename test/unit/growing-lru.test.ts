/**
 * `growingLru`: the same bound and least-recently-used order as lru-cache's `max`, with
 * no index sized for `max` up front.
 */
import { growingLru } from '../../src/economy/growing-lru';

describe('growingLru', () => {
  it('holds at most max entries, forgetting the least recently used first', () => {
    const cache = growingLru<string, number>(3);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect(cache.get('a')).toBe(1); // a is now the most recent
    cache.set('d', 4);
    expect([...cache.keys()].sort()).toEqual(['a', 'c', 'd']);
    cache.set('a', 5); // replacing an entry takes no second place
    cache.set('e', 6);
    expect(cache.size).toBe(3);
    expect(cache.has('c')).toBe(false);
    expect(cache.get('a')).toBe(5);
  });

  it('sizes nothing for max up front: the bound is kept through maxSize', () => {
    const cache = growingLru<string, number>(100_000);
    expect(cache.max).toBe(0);
    expect(cache.maxSize).toBe(100_000);
    for (let index = 0; index < 100_010; index += 1) cache.set(`k${index}`, index);
    expect(cache.size).toBe(100_000);
    expect(cache.has('k9')).toBe(false);
    expect(cache.has('k10')).toBe(true);
  });
});
