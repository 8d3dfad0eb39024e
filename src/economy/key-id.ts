import { createHmac } from 'node:crypto';

/**
 * The identity of an API key inside the gateway: HMAC-SHA-256 of the key with a
 * server-side secret, hex. Cache entries, per-key limits, logs and metrics use this,
 * never the key itself, so a heap dump or a log line does not reveal a key.
 *
 * @param apiKey - the caller's bearer key
 * @param secret - `KEY_HASH_SECRET` (replicas sharing Redis must use the same one)
 */
export function keyId(apiKey: string, secret: string): string {
  return createHmac('sha256', secret).update(apiKey).digest('hex').slice(0, 32);
}
