import type { Redis } from 'ioredis';

/**
 * The sliding-window log in Redis, atomically: a sorted set of send times per key.
 * Drops what left the window, records the request when fewer than the allowance remain
 * (0), else answers the ms until the oldest request that keeps the window full leaves it.
 * KEYS[1] = the key's log; ARGV = now (ms), window (ms), allowance, a unique member.
 */
const TAKE_WINDOW_SLOT = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local allowance = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if count < allowance then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], window)
  return 0
end
local freeing = redis.call('ZRANGE', KEYS[1], count - allowance, count - allowance, 'WITHSCORES')
local wait = tonumber(freeing[2]) + window - now
if wait < 1 then wait = 1 end
return wait
`;

/**
 * Takes one request from the shared log at `key` (the same decisions as
 * `SlidingWindowLog.take`; a shared table of cases checks both).
 *
 * @param now - epoch ms; `windowMs` ms; `allowance` requests (floored, at least 1)
 * @returns 0 = taken; >0 = ms until one more fits; null when Redis answered something else
 * @throws the Redis error (the caller's guard reports it)
 */
export async function takeWindowSlot(redis: Redis, key: string, allowance: number, windowMs: number, now: number, member: string): Promise<number | null> {
  const result = await redis.eval(TAKE_WINDOW_SLOT, 1, key, String(now), String(windowMs), String(Math.max(1, Math.floor(allowance))), member);
  return typeof result === 'number' ? result : null;
}

/**
 * Moves `member` to `at` (epoch ms) in the shared log at `key`, adding it when it has left,
 * and keeps the log `windowMs` longer (see `SlidingWindowLog.settle`).
 *
 * @throws the Redis error (the caller's guard reports it)
 */
export async function settleWindowSlot(redis: Redis, key: string, member: string, at: number, windowMs: number): Promise<void> {
  await redis.multi().zadd(key, at, member).pexpire(key, Math.max(1, Math.ceil(windowMs))).exec();
}
