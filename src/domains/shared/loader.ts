import DataLoader from 'dataloader';
import type { UpstreamSession } from '../../economy';

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

/**
 * Every per-operation loader, by domain. Empty here: each domain adds its own member in
 * its `*.loaders.ts` (TypeScript declaration merging) and registers the function that
 * creates it with {@link registerLoaders}, so this module names no domain.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by each domain's declaration merging
export interface Loaders {}

/** Creates one domain's loaders for one operation. */
type LoaderFactory<T> = (session: UpstreamSession, options: LoaderOptions) => T;

const registered = new Map<string, LoaderFactory<unknown>>();

/**
 * Registers a domain's loaders under its member of {@link Loaders} (called once, at the
 * top level of the domain's `*.loaders.ts`, which the domain registry loads by name).
 *
 * @throws Error when the member is registered twice.
 */
export function registerLoaders<K extends keyof Loaders>(domain: K, create: LoaderFactory<Loaders[K]>): void {
  if (registered.has(domain)) throw new Error(`Loaders "${domain}" registered twice.`);
  registered.set(domain, create);
}

/**
 * The operation's loaders, each domain's created on first use: an operation answered
 * from the response cache, or one that touches only companies, builds none (or only
 * those) of the others.
 */
export function lazyLoaders(session: UpstreamSession, options: LoaderOptions): Loaders {
  const loaders = {};
  for (const [domain, create] of registered) {
    let created: unknown;
    Object.defineProperty(loaders, domain, { enumerable: true, get: () => (created ??= create(session, options)) });
  }
  // Every registered member is defined above; the registry loads every domain's loaders.
  return loaders as Loaders;
}
