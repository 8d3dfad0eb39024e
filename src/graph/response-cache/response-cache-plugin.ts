/**
 * The response cache's Apollo plugin (`@apollo/server-plugin-response-cache`) over the
 * gateway's store (response-cache-store.ts) and the links of raw requests to its entries
 * (response-cache-hits.ts): how entries are keyed, by session and generation, and when an
 * answer is read from or written to the cache.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import type { KeyValueCache } from '@apollo/utils.keyvaluecache';
import ApolloServerPluginResponseCache from '@apollo/server-plugin-response-cache';
import type { GatewayContext } from '../../domains/gateway-context';
import type { UpstreamEconomy } from '../../economy';
import { afterLargeLists } from '../execution/large-lists';
import { ResponseCacheHits, responseSession } from './response-cache-hits';
import { ResponseCacheStore, responseCacheKey } from './response-cache-store';

/**
 * The per-key whole-operation response cache (`@apollo/server-plugin-response-cache`):
 * sessions are hashed keys, entries live no longer than the freshest-expiring upstream
 * answer they were built from, a key's writes invalidate all its entries (its
 * generation is part of the cache key), and `Cache-Control: no-cache` bypasses it.
 */
export function responseCachePlugin(
  economy: UpstreamEconomy,
  maxBytes: number,
): { plugin: ApolloServerPlugin<GatewayContext>; hits: ResponseCacheHits } {
  const store = new ResponseCacheStore(maxBytes);
  const hits = new ResponseCacheHits(store);
  // The link the key just made may become: made only once its entry is read back (a hit) or
  // written, so that an answer never stored (an error, a refusal, no-store) leaves no link.
  let pending: PendingLink | null = null;
  const plugin = ApolloServerPluginResponseCache<GatewayContext>({
    cache: linkingCache(store, hits, () => {
      const taken = pending;
      pending = null;
      return taken;
    }),
    // The query's hash in place of its text: a read hashes a few hundred bytes, not the
    // document. The plugin reads the key at once: a hit tells the context its data's text.
    generateCacheKey: (requestContext, data) => {
      const key = responseCacheKey(requestContext, data);
      const context = requestContext.contextValue;
      store.expectRead(key, context);
      // A key's own private entry, read or written for a raw request the HTTP layer identified:
      // linked, so the same request is answered before Apollo next time (src/web/cached-answers.ts).
      // An access token's (over one character) too: its session is its own, and Apollo ran its grants before this read.
      const keyId = context.session.keyId;
      // The write generation the key was made under (the plugin's `extra`, from `extraCacheKeyData`).
      const generation = (data as { extra?: unknown } | null)?.extra;
      pending =
        context.responseHitKey !== undefined &&
        keyId !== null &&
        typeof generation === 'number' &&
        !context.owners &&
        !context.serverCredentials &&
        isPrivateRead(data, responseSession(keyId, context.token?.id ?? null))
          ? {
              requestKey: context.responseHitKey,
              entryKey: `${RESPONSE_CACHE_PREFIX}${key}`,
              generation,
              operationName: requestContext.operationName ?? null,
            }
          : null;
      return key;
    },
    // An access token's answers are its own: its grants may shape them.
    sessionId: async ({ contextValue }) =>
      contextValue.session.keyId && responseSession(contextValue.session.keyId, contextValue.token?.id ?? null),
    // A token over several characters: a write through any of its keys invalidates its entries.
    extraCacheKeyData: async ({ contextValue }) =>
      contextValue.owners
        ? contextValue.owners.parts
            .map((part) => (part.context.session.keyId ? economy.generation(part.context.session.keyId) : 0))
            .join(',')
        : contextValue.session.keyId
          ? economy.generation(contextValue.session.keyId)
          : 0,
    shouldReadFromCache: async ({ contextValue }) => !contextValue.session.noCache && !economy.invalidationsInDoubt(),
    // Never a response with list-item errors (added by the result phase, after this plugin) or stale data,
    // nor one larger than an entry may be (the result phase measured its text meanwhile).
    // A large result is serialized for the cache in a later turn than for its response (see large-lists.ts).
    shouldWriteToCache: async ({ contextValue }) => {
      await afterLargeLists(contextValue, null);
      await contextValue.resultPhaseDone;
      return (
        contextValue.itemErrors.size === 0 &&
        contextValue.session.accounting.stale === 0 &&
        (contextValue.responseTextLength ?? 0) <= store.maxEntryBytes
      );
    },
  });
  return { plugin, hits };
}

/** A link {@link ResponseCacheHits.link} makes once its entry is read back or written. */
interface PendingLink {
  readonly requestKey: string;
  readonly entryKey: string;
  readonly generation: number;
  readonly operationName: string | null;
}

/**
 * The plugin's cache: the store, linking the pending link (`take`, the one `generateCacheKey`
 * made for this very key; the plugin calls `get` or `set` right after it, in the same turn)
 * when the `get` finds the entry or the `set` stored it. Before, every private read was
 * linked: a stream of distinct requests answered with errors (never stored) filled the
 * links' 4 MiB with links to nothing.
 */
function linkingCache(
  store: ResponseCacheStore,
  hits: ResponseCacheHits,
  take: () => PendingLink | null,
): KeyValueCache<string> {
  const linkIf = (link: PendingLink | null, key: string, found: boolean): void => {
    if (link !== null && found && link.entryKey === key)
      hits.link(link.requestKey, link.entryKey, link.generation, link.operationName);
  };
  return {
    get: async (key) => {
      const link = take();
      const text = await store.get(key);
      linkIf(link, key, text !== undefined);
      return text;
    },
    set: async (key, value, options) => {
      const link = take();
      await store.set(key, value, options);
      linkIf(link, key, store.has(key));
    },
    delete: (key) => store.delete(key),
  };
}

/** The prefix the response-cache plugin puts before each key it hands its store. */
const RESPONSE_CACHE_PREFIX = 'fqc:';

/** True when the plugin's key data is a read of the private entry of `session` (its `sessionMode` 1: private). */
function isPrivateRead(data: unknown, session: string): boolean {
  if (data === null || typeof data !== 'object') return false;
  const { sessionId, sessionMode } = data as Record<string, unknown>;
  return sessionMode === 1 && sessionId === session;
}
