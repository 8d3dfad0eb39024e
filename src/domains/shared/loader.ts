import DataLoader from 'dataloader';

/** A page request: which company or account, page size and offset. */
export interface PageKey {
  /** The company, building or bank account id. */
  id: string;
  /** Page size (entries), within the endpoint's bounds. */
  limit: number;
  /** Entries skipped from the newest, within the endpoint's bounds. */
  skip: number;
}

/** The cache identity of a page request. */
export const pageKey = (key: PageKey): string => `${key.id}/${key.limit}/${key.skip}`;

/** Loader settings: `cache: false` makes every load a request (benchmark baseline only). */
export interface LoaderOptions {
  /** False turns the per-operation memo off (`LOADERS_ENABLED=false`, benchmarks only): every `load` goes to the economy, whose cache and coalescing still apply. */
  cache: boolean;
}

/**
 * A per-operation DataLoader over a single-key fetch. The upstream has no batch
 * endpoints, so the batch function runs one fetch per distinct key in parallel; what
 * the loader adds is that each distinct key is fetched at most once per operation.
 * Results keep key order, and a failed key yields its own `Error` (DataLoader's
 * contract), so one failure nulls only the fields that asked for that key.
 *
 * When to use: in a domain's `*.loaders.ts`, called from the per-request context;
 * never at module scope, or data would leak between operations and keys.
 *
 * @param fetch - loads one key
 * @param options - `{cache: false}` turns deduplication off (the benchmark's naive baseline)
 * @param cacheKey - a string identity for composite keys (default: `String(key)`)
 */
export function createFetchLoader<K, V>(
  fetch: (key: K) => Promise<V>,
  options: LoaderOptions,
  cacheKey: (key: K) => string = (key) => String(key),
): DataLoader<K, V, string> {
  return new DataLoader<K, V, string>(
    (keys) =>
      Promise.all(
        keys.map((key) =>
          fetch(key).then(
            (value) => value,
            (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
          ),
        ),
      ),
    { cacheKeyFn: cacheKey, cache: options.cache },
  );
}
