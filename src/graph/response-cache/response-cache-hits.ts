import { hash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { ResponseCacheStore } from './response-cache-store';

/** Most bytes the links of {@link ResponseCacheHits} may hold (each counted at {@link LINK_BYTES}). */
const LINKS_MAX_BYTES = 4 * 1024 * 1024;
/** A link's heap, roughly: its key (a key id and a 43-character digest), the entry's key and name, the object, lru-cache's slots. */
const LINK_BYTES = 400;
/** Most bytes the digests of {@link ResponseCacheHits.requestKey} may hold (each counted as its body's text and {@link DIGEST_BYTES}). */
const DIGESTS_MAX_BYTES = 2 * 1024 * 1024;
/** A digest's heap besides its body's text: the 43-character digest, the body string's header, lru-cache's slots. */
const DIGEST_BYTES = 160;
/**
 * Bodies longer than this many characters are hashed each time, not remembered: a text kept
 * outlives its request, so a stream of distinct large bodies (60 KB variables) had each one
 * copied into the old generation (60 KB per request), and the major collections that frees
 * it held the event loop. Hashing 60 KB again costs about 0.1 ms; an operation's text (the
 * dashboard's 1.6 KB) stays remembered.
 */
const DIGEST_MAX_BODY = 8 * 1024;

/**
 * The response cache's session of a caller: its hashed key id, or for an access token
 * `<key id>:<token id>` (a token's answers are its own: its grants may shape them). The
 * plugin's `sessionId`, and what {@link ResponseCacheHits.requestKey} identifies a caller by.
 *
 * @param keyId - the hashed key id the operation runs with
 * @param tokenId - the access token's id (never the token), null for a key
 */
export function responseSession(keyId: string, tokenId: string | null): string {
  return tokenId === null ? keyId : `${keyId}:${tokenId}`;
}

/** A response cache entry a request may be answered from. */
export interface StoredHit {
  /** The UTF-8 bytes of `{"data":` and the JSON of the answer's `data`, as the response cache stored them. */
  readonly head: Buffer;
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
 * request (hashed key, and the request body's text exactly as sent) was answered from.
 *
 * Apollo's response-cache plugin makes its key from what the pipeline resolved (the
 * operation's name, the declared variables, the query's hash, the key's write
 * generation). Whenever the plugin makes the private key of a request that carries a
 * {@link ResponseCacheHits.requestKey} (`GatewayContext.responseHitKey`), the gateway links the two
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
   * The sha256 (base64url) of each body text seen lately, by the text: a repeated request
   * is not hashed again. Bounded in bytes (the texts are its keys); a text over
   * {@link DIGEST_MAX_BODY} characters is not kept.
   */
  private readonly digests = new LRUCache<string, string>({
    maxSize: DIGESTS_MAX_BYTES,
    sizeCalculation: (_digest, body) => body.length + DIGEST_BYTES,
  });

  /** Requests linked now (tests). */
  get linked(): number {
    return this.links.size;
  }

  /**
   * The identity of a raw request: the caller's session ({@link responseSession}: its
   * hashed key id, and an access token's id) and the sha256 (base64url) of its body's
   * text, exactly as sent (the same text has the same query, operation name, variables and
   * every other member). Two requests with the same identity were sent with the same key
   * (the same token) and the same body. The key id is an HMAC, never the key.
   *
   * @param session - the caller's {@link responseSession}
   * @param body - the request body's text as read (before any parse)
   */
  requestKey(session: string, body: string): string {
    // A connection's repeated request (a client polling one operation) is answered by its caller from the connection (cached-answers.ts).
    const remembered = body.length <= DIGEST_MAX_BODY;
    let digest = remembered ? this.digests.get(body) : undefined;
    if (digest === undefined) {
      digest = hash('sha256', body, 'base64url');
      if (remembered) this.digests.set(body, digest);
    }
    // The digest has a fixed length: the pair is read back unambiguously.
    return `${session}.${digest}`;
  }

  /**
   * Remembers that the request of `requestKey` reads the store's `entryKey` while its key's
   * write generation is `generation`.
   *
   * @param requestKey - {@link ResponseCacheHits.requestKey} of the request
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
   * @param requestKey - {@link ResponseCacheHits.requestKey} of the request
   * @param generation - the key's write generation now
   */
  find(requestKey: string, generation: number): StoredHit | undefined {
    const link = this.links.get(requestKey);
    if (link === undefined || link.generation !== generation) return undefined;
    const stored = this.store.stored(link.entryKey);
    return stored && { head: stored.head, cacheTime: stored.cacheTime, operationName: link.operationName };
  }
}
