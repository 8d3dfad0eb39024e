import DataLoader from 'dataloader';
import { NOT_CACHED } from '../../economy';
import type { UpstreamSession } from '../../economy';
import type { MaybePromise } from './maybe-promise';

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

/** A failed key's value in a batch or in `loadMany` (DataLoader's contract: an `Error`). */
function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * A per-operation DataLoader over a single-key fetch, which can also answer at once from
 * the process cache ({@link FetchLoader.loadNow}). The upstream has no batch endpoints, so
 * the batch function runs one fetch per distinct key in parallel; what the loader adds is
 * that each distinct key is fetched at most once per operation. Results keep key order,
 * and a failed key yields its own `Error` (DataLoader's contract), so one failure nulls
 * only the fields that asked for that key.
 *
 * When to use: in a domain's `*.loaders.ts`, called from the per-request context;
 * never at module scope, or data would leak between operations and keys. Resolvers call
 * `loadNow`; `load` and `loadMany` keep DataLoader's promises for everything else.
 */
export class FetchLoader<K, V> extends DataLoader<K, V, string> {
  /** DataLoader's memo (its `cacheMap`), null when the loader does not memoize. */
  private readonly promises: Map<string, Promise<V>> | null;
  /** The values answered at once, by key: the operation sees one answer per key. */
  private readonly values: Map<string, V> | null;

  /**
   * @param session - the operation's session, which `fetch` reads through
   * @param fetch - loads one key (a domain `fetch*`): at once when the cache holds it fresh
   * @param options - `{cache: false}` turns deduplication off (the benchmark's naive baseline)
   * @param keyOf - a string identity for composite keys
   */
  constructor(
    private readonly session: UpstreamSession,
    private readonly fetch: (session: UpstreamSession, key: K) => MaybePromise<V>,
    options: LoaderOptions,
    private readonly keyOf: (key: K) => string,
  ) {
    const promises = options.cache ? new Map<string, Promise<V>>() : null;
    super(
      (keys) => Promise.all(keys.map((key) => Promise.resolve(fetch(session, key)).then((value) => value, asError))),
      { cacheKeyFn: keyOf, cache: options.cache, ...(promises ? { cacheMap: promises } : {}) },
    );
    this.promises = promises;
    this.values = options.cache ? new Map<string, V>() : null;
  }

  /**
   * The value of `key` at once when this operation already has it, or when the process
   * cache holds its answer fresh (read with the same bookkeeping as any hit); else
   * DataLoader's promise (batched, once per operation), as {@link DataLoader.load}. A
   * cached failure is a rejected promise. Why: a resolver that returns a value, not a
   * promise, lets execution complete its field in the same turn, which is most of what
   * executing a document over cached data costs.
   */
  loadNow(key: K): MaybePromise<V> {
    const id = this.keyOf(key);
    // `has`, not a nullish test: an answer may be null (an unset option slot).
    if (this.values?.has(id)) return this.values.get(id) as V;
    const pending = this.promises?.get(id);
    if (pending !== undefined) return pending;
    if (!this.session.answersAtOnce) return this.load(key);
    let value: MaybePromise<V>;
    try {
      value = this.session.peek(this.fetch, key);
    } catch (error) {
      if (error !== NOT_CACHED) throw error;
      return this.load(key);
    }
    if (value instanceof Promise) this.promises?.set(id, value);
    else this.values?.set(id, value);
    return value;
  }

  /**
   * Each key's {@link loadNow}: an array at once when every value is there, else a promise
   * of it; a failed key is its `Error` in the array (as {@link DataLoader.loadMany}).
   */
  loadManyNow(keys: readonly K[]): MaybePromise<Array<V | Error>> {
    const now = keys.map((key) => this.loadNow(key));
    if (!now.some((value) => value instanceof Promise)) return now as V[];
    return Promise.all(now.map((value) => (value instanceof Promise ? value.catch(asError) : value)));
  }

  /** {@link DataLoader.load}, resolving to the value this operation was answered at once, if any. */
  override load(key: K): Promise<V> {
    const id = this.keyOf(key);
    return this.values?.has(id) ? Promise.resolve(this.values.get(id) as V) : super.load(key);
  }

  /** {@link DataLoader.clear}, forgetting a value answered at once too. */
  override clear(key: K): this {
    this.values?.delete(this.keyOf(key));
    return super.clear(key);
  }

  /** {@link DataLoader.clearAll}, forgetting the values answered at once too. */
  override clearAll(): this {
    this.values?.clear();
    return super.clearAll();
  }
}

/**
 * Creates a {@link FetchLoader} for one operation's session.
 *
 * @param fetch - loads one key through the session it is given (the operation's, or its
 *   look at the cache only)
 * @param options - `{cache: false}` turns deduplication off (the benchmark's naive baseline)
 * @param cacheKey - a string identity for composite keys (default: `String(key)`)
 */
export function createFetchLoader<K, V>(
  session: UpstreamSession,
  fetch: (session: UpstreamSession, key: K) => MaybePromise<V>,
  options: LoaderOptions,
  cacheKey: (key: K) => string = (key) => String(key),
): FetchLoader<K, V> {
  return new FetchLoader(session, fetch, options, cacheKey);
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
 * those) of the others. Each domain's member is a getter of one class made for the
 * registry (so an operation allocates one small object, not a getter per domain); it
 * creates the domain's loaders on first use and keeps them as the object's own property.
 */
export function lazyLoaders(session: UpstreamSession, options: LoaderOptions): Loaders {
  if (lazyClass === undefined || lazyClass.domains !== registered.size) lazyClass = lazyLoadersClass();
  return new lazyClass.create(session, options) as unknown as Loaders;
}

/** The class {@link lazyLoaders} makes, for the registry as it was (`domains`: how many were registered). */
let lazyClass:
  { create: new (session: UpstreamSession, options: LoaderOptions) => object; domains: number } | undefined;

function lazyLoadersClass(): NonNullable<typeof lazyClass> {
  const session = Symbol('session');
  const options = Symbol('options');
  class OperationLoaders {
    [session]: UpstreamSession;
    [options]: LoaderOptions;
    constructor(forSession: UpstreamSession, withOptions: LoaderOptions) {
      this[session] = forSession;
      this[options] = withOptions;
    }
  }
  for (const [domain, create] of registered) {
    Object.defineProperty(OperationLoaders.prototype, domain, {
      enumerable: true,
      get(this: OperationLoaders): unknown {
        const loaders = create(this[session], this[options]);
        Object.defineProperty(this, domain, { value: loaders, enumerable: true });
        return loaders;
      },
    });
  }
  return { create: OperationLoaders, domains: registered.size };
}
