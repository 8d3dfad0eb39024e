import { buildPath, placeholderNames } from '../../upstream/endpoints';
import type { Endpoint, PathParams } from '../../upstream/endpoints';
import { cacheKey, sharedKey } from './cache-entry';

/** Keys made per hashed key, by endpoint, then by each placeholder's value in pattern order. */
type KeyTree = Map<string | number, KeyTree | string>;

/** One endpoint's keys for one hashed key, with its placeholders' names. */
interface EndpointKeys {
  readonly names: readonly string[];
  readonly tree: KeyTree;
}

/** Default bound of the keys kept over all API keys (then all are forgotten and made again). */
const MAX_KEYS = 10_000;

/**
 * The cache keys of reads (`cacheKey(keyId, buildPath(endpoint, params))`), made once per
 * hashed key, endpoint and parameter values and then looked up, as the one shared copy of
 * each key (see `sharedKey`). Why: a dashboard reads about 86 cached answers; building each
 * one's path and key per read, then hashing that new string in every table it looks in (the
 * process cache, refresh-ahead), was about a twentieth of a warm operation's CPU time. A key kept here
 * is the copy those tables hold, so their lookups compare it by identity.
 *
 * Keys are kept per hashed key (a key's table is never asked for another's), by the
 * endpoint object, then by each placeholder's value: `1` and `'1'` are two entries with the
 * same key text. At most `maxKeys` keys are kept over all API keys (a key costs about 50
 * bytes, and its text, about 90 more, once the process cache no longer shares it: the
 * default 10,000 are 0.5 to 1.4 MB, the reads of about 116 keys' dashboards of 86 reads); past
 * that all are dropped and made again as they are read. The bound is low on purpose: with 500
 * keys rotating (the bench's `many-keys`, 43,000 keys) a bound of 50,000 added about 5 MB to a
 * peak RSS that must stay under 200 MB, while a key's own dashboard needs only its 86.
 *
 * When to use: the read path owns one; nothing else needs it.
 */
export class CacheKeys {
  private readonly byKeyId = new Map<string, Map<Endpoint, EndpointKeys>>();
  /** The last hashed key asked for and its table: an operation's reads come in a row for one key. */
  private lastKeyId: string | undefined;
  private lastTable: Map<Endpoint, EndpointKeys> | undefined;
  private count = 0;

  /** @param maxKeys - most keys kept over all API keys (default 10,000) */
  constructor(private readonly maxKeys = MAX_KEYS) {}

  /** Keys kept now (tests). */
  get size(): number {
    return this.count;
  }

  /**
   * The cache key of a GET of `endpoint` with `params` for the hashed key `keyId`.
   *
   * @throws Error when a placeholder has no value (as `buildPath`)
   */
  key(keyId: string, endpoint: Endpoint, params: PathParams | undefined): string {
    const table = this.tableOf(keyId);
    let keys = table.get(endpoint);
    if (keys === undefined) table.set(endpoint, (keys = { names: placeholderNames(endpoint), tree: new Map() }));
    const names = keys.names;
    let node = keys.tree;
    const last = names.length - 1;
    if (last < 0) {
      const known = node.get('');
      return typeof known === 'string' ? known : this.make(node, '', keyId, endpoint, params);
    }
    for (let i = 0; i < last; i += 1) {
      const value = params?.[names[i] as string];
      if (value === undefined) return cacheKey(keyId, buildPath(endpoint, params)); // throws
      const next = node.get(value);
      if (next === undefined || typeof next === 'string') {
        const made: KeyTree = new Map();
        node.set(value, made);
        node = made;
      } else node = next;
    }
    const value = params?.[names[last] as string];
    if (value === undefined) return cacheKey(keyId, buildPath(endpoint, params)); // throws
    const known = node.get(value);
    return typeof known === 'string' ? known : this.make(node, value, keyId, endpoint, params);
  }

  private tableOf(keyId: string): Map<Endpoint, EndpointKeys> {
    if (keyId === this.lastKeyId && this.lastTable !== undefined) return this.lastTable;
    let table = this.byKeyId.get(keyId);
    if (table === undefined) this.byKeyId.set(keyId, (table = new Map()));
    this.lastKeyId = keyId;
    this.lastTable = table;
    return table;
  }

  private make(
    node: KeyTree,
    value: string | number,
    keyId: string,
    endpoint: Endpoint,
    params: PathParams | undefined,
  ): string {
    const key = sharedKey(cacheKey(keyId, buildPath(endpoint, params)));
    if (this.count >= this.maxKeys) {
      // Rare (more reads than any process keeps cached): start again rather than track recency per read.
      this.byKeyId.clear();
      this.lastKeyId = undefined;
      this.lastTable = undefined;
      this.count = 0;
      return key;
    }
    node.set(value, key);
    this.count += 1;
    return key;
  }
}
