import type { Redis } from 'ioredis';

/**
 * The sliding-window log in Redis, atomically: a sorted set of send times per key.
 * Drops what left the window, records the request when fewer than the allowance remain
 * (0), else answers the ms until the oldest request that keeps the window full leaves it.
 *
 * Writes go first across replicas: a write that must wait notes itself in the key's
 * write intents (a sorted set by expiry), and every other request sees the allowance less
 * one per noted write, so the slots the window frees are kept for the writes, whichever
 * replica they wait on. A write that takes its slot removes its note; one that is given up
 * expires with it (the wait it was told, plus {@link INTENT_MARGIN_MS}).
 *
 * KEYS[1] = the key's log, KEYS[2] = its write intents; ARGV = now (ms), window (ms),
 * allowance, a unique member, the write's intent ('' for any other request), the margin.
 */
const TAKE_WINDOW_SLOT = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local allowance = tonumber(ARGV[3])
local intent = ARGV[5]
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local count = redis.call('ZCARD', KEYS[1])
local room = allowance
if intent == '' then room = allowance - redis.call('ZCARD', KEYS[2]) end
if count < room then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], window)
  if intent ~= '' then redis.call('ZREM', KEYS[2], intent) end
  return 0
end
local wait = 1000
if room >= 1 then
  local freeing = redis.call('ZRANGE', KEYS[1], count - room, count - room, 'WITHSCORES')
  wait = tonumber(freeing[2]) + window - now
end
if wait < 1 then wait = 1 end
if intent ~= '' then
  redis.call('ZADD', KEYS[2], now + wait + tonumber(ARGV[6]), intent)
  redis.call('PEXPIRE', KEYS[2], wait + tonumber(ARGV[6]))
end
return wait
`;

/** How long a waiting write's note outlives the wait it was told, ms (it renews it when it tries again). */
const INTENT_MARGIN_MS = 5000;

/**
 * Takes one request from the shared log at `key` (the same decisions as
 * `SlidingWindowLog.take`; a shared table of cases checks both), for a write when
 * `writeIntent` names it (see {@link TAKE_WINDOW_SLOT}: writes waiting on any replica keep
 * the freed slots from everything else).
 *
 * @param now - epoch ms; `windowMs` ms; `allowance` requests (floored, at least 1)
 * @param intentsKey - the key's write intents; `writeIntent` the same id on each try of one write
 * @returns 0 = taken; >0 = ms until one more fits; null when Redis answered something else
 * @throws the Redis error (the caller's guard reports it)
 */
export async function takeWindowSlot(
  redis: Redis,
  key: string,
  intentsKey: string,
  allowance: number,
  windowMs: number,
  now: number,
  member: string,
  writeIntent = '',
): Promise<number | null> {
  const result = await redis.eval(
    TAKE_WINDOW_SLOT,
    2,
    key,
    intentsKey,
    String(now),
    String(windowMs),
    String(Math.max(1, Math.floor(allowance))),
    member,
    writeIntent,
    String(INTENT_MARGIN_MS),
  );
  return typeof result === 'number' ? result : null;
}

/**
 * Moves `member` to `at` (epoch ms) in the shared log at `key`, adding it when it has left,
 * and keeps the log `windowMs` longer (see `SlidingWindowLog.settle`).
 *
 * @throws the Redis error (the caller's guard reports it)
 */
export async function settleWindowSlot(
  redis: Redis,
  key: string,
  member: string,
  at: number,
  windowMs: number,
): Promise<void> {
  await redis
    .multi()
    .zadd(key, at, member)
    .pexpire(key, Math.max(1, Math.ceil(windowMs)))
    .exec();
}
