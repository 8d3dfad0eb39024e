import { hash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { ResponseCacheStore } from './response-cache-store';

/** Most bytes the links of {@link ResponseCacheHits} may hold (each counted at {@link LINK_BYTES}). */
const LINKS_MAX_BYTES = 4 * 1024 * 1024;
/** A link's heap, roughly: its 43-character key, the entry's key and name, the object, lru-cache's slots. */
const LINK_BYTES = 320;

/** One HTTP request as it arrives, before any parse: the hashed key and the raw operation parameters. */
export interface HitRequest {
  /** The caller's hashed key id (never the key). */
  readonly keyId: string;
  /** The query text, as sent. */
  readonly query: string;
  /** The `operationName` as sent (null when absent). */
  readonly operationName: string | null;
  /** The `variables` as sent (undefined when absent). */
  readonly variables: unknown;
}

/** A response cache entry a request may be answered from. */
export interface StoredHit {
  /** The JSON text of the answer's `data`, as the response cache stored it. */
  readonly dataText: string;
  /** When the answer was stored, ms since the epoch (the plugin's `cacheTime`). */
  readonly cacheTime: number;
  /** The operation's name as Apollo resolved it (null when anonymous), for the report. */
  readonly operationName: string | null;
}

/** What a request key points at: the response cache's own key, and the state it was read under. */
interface Link {
  /** The store's key (with the plugin's prefix). */
  readonly entryKey: string;
  /** The key's write generation when the plugin made that key (its `extraCacheKeyData`). */
  readonly generation: number;
  /** The operation's name as Apollo resolved it. */
  readonly operationName: string | null;
}

/**
 * The response cache seen from before the GraphQL pipeline: which stored answer a raw
 * request (hashed key, query text, operation name, variables as sent) was answered from.
 *
 * Apollo's response-cache plugin makes its key from what the pipeline resolved (the
 * operation's name, the declared variables, the query's hash, the key's write
 * generation). Whenever the plugin makes the private key of a request that carries a
 * {@link requestKey} (`GatewayContext.responseHitKey`), the gateway links the two
 * ({@link link}). The same raw request of the same key later finds that entry with
 * {@link find} without parsing anything: only a request Apollo itself led to that entry
 * is linked, the link names its key id, and it counts only while the key's write
 * generation is the one it was made under (a write of the key changes it).
 *
 * When to use: one per response cache, beside its store.
 */
export class ResponseCacheHits {
  private readonly links = new LRUCache<string, Link>({ maxSize: LINKS_MAX_BYTES, sizeCalculation: () => LINK_BYTES });

  /** @param store - the response cache's store */
  constructor(private readonly store: ResponseCacheStore) {}

  /**
   * The identity of a raw request: sha256 (base64url) of its hashed key id, operation
   * name, variables and query text, as sent. Two requests with the same identity were
   * sent with the same key and the same parameters.
   */
  static requestKey(request: HitRequest): string {
    return hash(
      'sha256',
      JSON.stringify([request.keyId, request.operationName, request.variables ?? null, request.query]),
      'base64url',
    );
  }

  /**
   * Remembers that the request of `requestKey` reads the store's `entryKey` while its key's
   * write generation is `generation`.
   *
   * @param requestKey - {@link requestKey} of the request
   * @param entryKey - the store's key the plugin reads (with its prefix)
   * @param generation - the key's write generation that key was made with
   * @param operationName - the operation's name as Apollo resolved it
   */
  link(requestKey: string, entryKey: string, generation: number, operationName: string | null): void {
    const known = this.links.get(requestKey);
    if (
      known &&
      known.entryKey === entryKey &&
      known.generation === generation &&
      known.operationName === operationName
    )
      return;
    this.links.set(requestKey, { entryKey, generation, operationName });
  }

  /**
   * The stored answer for the request of `requestKey`, or undefined: none linked, the
   * key wrote since (`generation` differs), the entry expired or was evicted, or it is
   * not of the plugin's known shape.
   *
   * @param requestKey - {@link requestKey} of the request
   * @param generation - the key's write generation now
   */
  find(requestKey: string, generation: number): StoredHit | undefined {
    const link = this.links.get(requestKey);
    if (link === undefined || link.generation !== generation) return undefined;
    const stored = this.store.stored(link.entryKey);
    return stored && { ...stored, operationName: link.operationName };
  }
}
