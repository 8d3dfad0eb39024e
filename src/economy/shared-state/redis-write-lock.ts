import type { Redis } from 'ioredis';

/**
 * A writer's lock in Redis whose value says when its holder expects to commit, so a
 * writer refused on any replica learns an honest time. KEYS[1] = the lock; ARGV = the
 * holder's token, its expected commit (epoch ms), the lock's lifetime (ms). Takes a free
 * lock or renews the caller's own ('OK'); else answers the holder's expected commit.
 */
const TAKE_WRITE_LOCK = `
local current = redis.call('GET', KEYS[1])
if (not current) or string.sub(current, 1, string.len(ARGV[1]) + 1) == ARGV[1] .. '|' then
  redis.call('SET', KEYS[1], ARGV[1] .. '|' .. ARGV[2], 'PX', ARGV[3])
  return 'OK'
end
return string.match(current, '|(%d+)$') or '0'
`;

/** Deletes the lock only when the caller holds it. KEYS[1] = the lock; ARGV[1] = the token. */
const RELEASE_WRITE_LOCK = `
local current = redis.call('GET', KEYS[1])
if current and string.sub(current, 1, string.len(ARGV[1]) + 1) == ARGV[1] .. '|' then
  return redis.call('DEL', KEYS[1])
end
return 0
`;

/**
 * Takes (or renews) the write lock at `key` for `token`.
 *
 * @returns null when taken; else the holder's expected commit, epoch ms (0 when unknown)
 * @throws the Redis error (the caller's guard reports it)
 */
export async function takeWriteLock(
  redis: Redis,
  key: string,
  token: string,
  commitAt: number,
  ttlMs: number,
): Promise<number | null> {
  const result = await redis.eval(
    TAKE_WRITE_LOCK,
    1,
    key,
    token,
    String(Math.round(commitAt)),
    String(Math.max(1, Math.round(ttlMs))),
  );
  return result === 'OK' ? null : Number(result);
}

/**
 * Releases the write lock at `key` when `token` holds it.
 *
 * @throws the Redis error (the caller's guard reports it)
 */
export async function releaseWriteLock(redis: Redis, key: string, token: string): Promise<void> {
  await redis.eval(RELEASE_WRITE_LOCK, 1, key, token);
}
