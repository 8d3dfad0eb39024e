import type { CacheEntry, UpstreamFailure } from '../cache/cache-entry';

/** A cache entry as Redis stores it: its JSON text. */
export function serializeEntry(entry: CacheEntry): string {
  return JSON.stringify(entry);
}

/**
 * A cache entry read back from Redis; undefined when the text is not one (a value written
 * by hand or by another version).
 *
 * @throws SyntaxError when the text is not JSON
 */
export function deserializeEntry(text: string): CacheEntry | undefined {
  const value: unknown = JSON.parse(text);
  if (!value || typeof value !== 'object') return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.storedAt !== 'number' || typeof record.bytes !== 'number') return undefined;
  if (record.kind === 'body')
    return { kind: 'body', body: record.body, storedAt: record.storedAt, bytes: record.bytes };
  const failure = record.failure as UpstreamFailure | undefined;
  if (record.kind === 'failure' && failure && typeof failure.code === 'string' && failure.upstream) {
    return { kind: 'failure', failure, storedAt: record.storedAt, bytes: record.bytes };
  }
  return undefined;
}
