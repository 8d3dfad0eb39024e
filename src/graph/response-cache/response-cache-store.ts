import { hash } from 'node:crypto';
import type { KeyValueCache, KeyValueCacheSetOptions } from '@apollo/utils.keyvaluecache';
import { LRUCache } from 'lru-cache';
import { compactBytes, compactText, compactUtf8, keyBytes } from '../../economy';
import type { CompactJson } from '../../economy';
import { variablesDigest } from '../validation/variables-digest';

/** Bookkeeping of one lru-cache entry (its slots in the index arrays, the TTL record, the entry object of four fields), bytes. */
const ENTRY_OVERHEAD_BYTES = 112;

/**
 * The largest response kept is this share of the cache's bound (1 MiB of the default 32
 * MiB): one key's single response never takes more, and one larger than that is not
 * serialized a second time for the cache (see {@link ResponseCacheStore.maxEntryBytes}).
 */
const MAX_ENTRY_SHARE = 32;

/** How the response-cache plugin's stored text begins: `JSON.stringify({ data, cachePolicy, cacheTime })`. */
const DATA_PREFIX = '{"data":';

/**
 * One stored response: its text, where its `data` member's JSON ends in it (-1: not
 * known), the same end counted in bytes of its UTF-8, and its `cacheTime` (-1: not known).
 */
interface StoredResponse {
  readonly json: CompactJson;
  readonly dataEnd: number;
  readonly dataEndBytes: number;
  readonly cacheTime: number;
  /** What {@link ResponseCacheStore.stored} answers, made at its first hit (the same for every later one). */
  stored?: StoredBytes;
}

/** The answer of a stored response, as a hit before Apollo writes it (see {@link ResponseCacheStore.stored}). */
export interface StoredBytes {
  /** The UTF-8 bytes of `{"data":` and the JSON of `data` as stored (a view of the stored bytes, not a copy). */
  readonly head: Buffer;
  /** When the plugin stored it, ms since the epoch (its `cacheTime`). */
  readonly cacheTime: number;
}

/** Who reads next (see {@link ResponseCacheStore.expectRead}): the key it reads and the context that learns the answer's `data` text. */
interface ExpectedRead {
  readonly key: string;
  readonly context: { responseCacheData?: string; readonly httpResponse?: boolean };
}

/** The end of the plugin's text after `data`: its cache policy (an object of numbers and names) and the time. */
const POLICY_SUFFIX = /,"cachePolicy":\{[^{}]*\},"cacheTime":\d+\}$/;

/** The plugin's `cacheTime` at the end of its text. */
const CACHE_TIME = /"cacheTime":(\d+)\}$/;

/**
 * Where the JSON of `data` ends in a text of `{"data":…,"cachePolicy":{…},"cacheTime":…}`
 * (what `JSON.stringify({ data, cachePolicy, cacheTime })` gives), or -1 for any other text.
 * Only the ends are looked at, not the data, which can be megabytes: {@link shapeOf} checks
 * once per process, by a parse, that the plugin's texts have exactly these members.
 */
function dataEndOf(value: string): number {
  if (!value.startsWith(DATA_PREFIX)) return -1;
  const suffix = POLICY_SUFFIX.exec(value.slice(-200));
  return suffix === null ? -1 : value.length - suffix[0].length;
}

/**
 * Whether a text the plugin stored is exactly `{"data":…,"cachePolicy":…,"cacheTime":…}`
 * with `data` ending where {@link dataEndOf} says: checked by a parse. Another plugin
 * version (another shape) then gets no data texts at all, and answers are serialized as usual.
 */
function shapeOf(value: string): 'known' | 'other' {
  const end = dataEndOf(value);
  if (end < 0) return 'other';
  try {
    const parsed = JSON.parse(value) as Record<string, unknown>;
    if (Object.keys(parsed).join() !== 'data,cachePolicy,cacheTime') return 'other';
    return JSON.stringify(parsed.data) === value.slice(DATA_PREFIX.length, end) ? 'known' : 'other';
  } catch {
    return 'other';
  }
}

/**
 * The store of Apollo's whole-response cache (`@apollo/server-plugin-response-cache`),
 * bounded by the bytes it really holds.
 *
 * Apollo's own `InMemoryLRUCache` counts a string by its length, which is half of what
 * it costs as soon as one character is outside Latin-1 (V8 then keeps the whole string
 * with two bytes per character), and it does not count keys. This store keeps each
 * response as UTF-8 bytes (see `compact-json.ts`: larger ones outside the V8 heap) and
 * counts value, key and bookkeeping.
 *
 * When to use: one per process, as the response-cache plugin's `cache`.
 */
export class ResponseCacheStore implements KeyValueCache<string> {
  private readonly lru: LRUCache<string, StoredResponse>;
  /**
   * The most bytes one entry may cost: a larger one is not stored (and an older entry of
   * its key goes). The plugin's `shouldWriteToCache` asks it first, with the length of the
   * response text the result phase measured, so such a response is not serialized again.
   */
  readonly maxEntryBytes: number;
  /** The read {@link expectRead} announced, until the next `get`. */
  private expected: ExpectedRead | null = null;
  /** What the first stored text showed of the plugin's shape (see {@link shapeOf}); unknown until then. */
  private shape: 'known' | 'other' | 'unknown' = 'unknown';

  /**
   * @param maxBytes - `RESPONSE_CACHE_MAX_BYTES`: the most bytes held, keys and bookkeeping included.
   * @param now - clock of the TTLs, ms (tests pass a fake one)
   */
  constructor(maxBytes: number, now: () => number = () => performance.now()) {
    this.maxEntryBytes = Math.floor(maxBytes / MAX_ENTRY_SHARE);
    this.lru = new LRUCache<string, StoredResponse>({
      maxSize: maxBytes,
      maxEntrySize: this.maxEntryBytes,
      perf: { now },
      // The clock is read on each look-up: lru-cache's default (1 ms) kept its reading with
      // a timer started every millisecond a hit was served, which cost more than the reading.
      ttlResolution: 0,
      sizeCalculation: (value, key) => compactBytes(value.json) + keyBytes(key) + ENTRY_OVERHEAD_BYTES,
    });
  }

  /**
   * Announces the next read: when the `get` that follows at once reads `key` (the plugin
   * prefixes it) and finds an answer, `context.responseCacheData` becomes the JSON text of
   * that answer's `data` (and, for a context with `httpResponse`, `get` returns the text
   * without it, see {@link get}). Why: the result phase then writes the response around
   * that text instead of serializing the parsed answer again.
   * The response-cache plugin calls its `generateCacheKey` and then this store's `get` in
   * the same turn; a `get` of any other key only clears the announcement.
   *
   * @param key - the key `generateCacheKey` just made
   * @param context - the operation's context
   */
  expectRead(key: string, context: { responseCacheData?: string; readonly httpResponse?: boolean }): void {
    this.expected = { key, context };
  }

  /**
   * The cached text, or undefined. For the announced read of a context that writes its
   * response as text (`httpResponse`), the plugin gets the text with an empty `data` object
   * in place of the data, and the context the data's text: the plugin parses what it
   * stored on every hit, and nothing reads that parsed data but the serializer, which
   * writes the text instead (a hit's parse was over a quarter of its CPU).
   */
  async get(key: string): Promise<string | undefined> {
    const expected = this.expected;
    this.expected = null;
    const entry = this.lru.get(key);
    if (entry === undefined) return undefined;
    const text = compactUtf8(entry.json).toString('utf8');
    if (expected === null || entry.dataEnd <= 0 || !key.endsWith(expected.key)) return text;
    expected.context.responseCacheData = text.slice(DATA_PREFIX.length, entry.dataEnd);
    return expected.context.httpResponse === true ? `${DATA_PREFIX}{}${text.slice(entry.dataEnd)}` : text;
  }

  /**
   * The stored answer of `key` as the bytes of `{"data":` and its `data` (a view of the
   * stored UTF-8, nothing decoded or copied for a large one) and its `cacheTime` (ms since
   * the epoch), without the plugin: undefined when there is none (or it expired), or when
   * its text is not of the plugin's known shape.
   */
  stored(key: string): StoredBytes | undefined {
    const entry = this.lru.get(key);
    if (entry === undefined || entry.dataEnd <= 0 || entry.cacheTime < 0) return undefined;
    // Made once per entry: a hit writes the same bytes as the one before (a small entry's are decoded once).
    return (entry.stored ??= Object.freeze({
      head: compactUtf8(entry.json).subarray(0, entry.dataEndBytes),
      cacheTime: entry.cacheTime,
    }));
  }

  /** Stores a text for `options.ttl` seconds (no TTL: until evicted). */
  async set(key: string, value: string, options?: KeyValueCacheSetOptions): Promise<void> {
    if (this.shape === 'unknown') this.shape = shapeOf(value);
    const dataEnd = this.shape === 'known' ? dataEndOf(value) : -1;
    const bytes = Buffer.from(value);
    const time = dataEnd > 0 ? CACHE_TIME.exec(value.slice(-40))?.[1] : undefined;
    const stored: StoredResponse = {
      json: compactText(bytes),
      dataEnd,
      // What follows `data` (its cache policy and time) is ASCII: counted from the end.
      dataEndBytes: dataEnd > 0 ? bytes.length - Buffer.byteLength(value.slice(dataEnd)) : -1,
      cacheTime: time === undefined ? -1 : Number(time),
    };
    const ttl = options?.ttl ? options.ttl * 1000 : undefined;
    this.lru.set(key, stored, ttl ? { ttl } : {});
  }

  /** True when an entry of `key` is held (and not expired). */
  has(key: string): boolean {
    return this.lru.has(key);
  }

  /** Forgets one entry. */
  async delete(key: string): Promise<boolean> {
    return this.lru.delete(key);
  }

  /** Bytes held, as counted against the bound (metrics, tests). */
  get bytes(): number {
    return this.lru.calculatedSize;
  }

  /** Entries held. */
  get size(): number {
    return this.lru.size;
  }
}

/** The request's variables as Apollo holds them (the object `variablesDigest` remembers). */
interface KeyRequestContext {
  readonly queryHash?: string;
  readonly request?: { readonly variables?: Readonly<Record<string, unknown>> };
}

/** True when `copy` has exactly the members of `original`, the same values (the plugin's `{ ...variables }`). */
function sameMembers(copy: Record<string, unknown>, original: Readonly<Record<string, unknown>>): boolean {
  const names = Object.keys(copy);
  if (names.length !== Object.keys(original).length) return false;
  for (const name of names)
    if (!Object.prototype.hasOwnProperty.call(original, name) || copy[name] !== original[name]) return false;
  return true;
}

/**
 * sha256 of the JSON of the key data's `variables` (null when there are none): the
 * request's own digest (`variablesDigest`, shared with the operation phase's memos) when
 * the plugin's copy holds the request's variables, as it does; throws as `JSON.stringify`
 * does for variables that cannot be serialized.
 */
function variablesPart(requestContext: KeyRequestContext, variables: unknown): string | null {
  if (variables === undefined) return null;
  const original = requestContext.request?.variables;
  if (variables !== null && typeof variables === 'object' && !Array.isArray(variables)) {
    const own = original && sameMembers(variables as Record<string, unknown>, original) ? original : variables;
    const digest = variablesDigest(own as Readonly<Record<string, unknown>>);
    if (digest !== null) return digest;
  }
  return hash('sha256', JSON.stringify(variables), 'base64url');
}

/**
 * The response cache's key (its `generateCacheKey` option): sha256 (base64url) of the JSON
 * of the request's identity as the plugin hands it (`operationName`, `extra`,
 * `sessionId`, `sessionMode`), with the query text replaced by its sha256 (Apollo's
 * `queryHash`, already computed for every request) and the variables by the sha256 of
 * their JSON (computed once per request, see `variablesDigest`). The plugin's default
 * hashes the JSON of the whole query text and variables on every read; this one hashes a
 * few hundred bytes. Falls back to the text when Apollo has no hash.
 *
 * @param requestContext - Apollo's request context (its `queryHash` and `request.variables`)
 * @param data - the plugin's key data: `source` (the query text), `variables` and the fields above
 * @returns the entry's key; the session id in it is already a hashed key id, never a raw key
 */
export function responseCacheKey(requestContext: KeyRequestContext, data: unknown): string {
  if (data === null || typeof data !== 'object') return hash('sha256', JSON.stringify([null, data]), 'base64url');
  const { source, variables, ...rest } = data as Record<string, unknown>;
  return hash(
    'sha256',
    JSON.stringify([requestContext.queryHash ?? source, rest, variablesPart(requestContext, variables)]),
    'base64url',
  );
}
