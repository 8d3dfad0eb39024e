/**
 * Automatic persisted queries (APQ) over HTTP, resolved by the request pipeline: the query
 * text of a hash sent without it is looked up in the same cache Apollo Server registers the
 * texts in (its public `persistedQueries.cache` option), so the pipeline parses and
 * validates it like any other text, and refuses an unknown hash as Apollo Server 5 does.
 */
import { createHash } from 'node:crypto';
import { GraphQLError } from 'graphql';
import { InMemoryLRUCache, PrefixingKeyValueCache } from '@apollo/utils.keyvaluecache';
import type { KeyValueCache } from '@apollo/utils.keyvaluecache';
import type { OperationRequest } from './operation-request';

/** The `persistedQuery` extension of an APQ request, as sent. */
interface PersistedQueryExtension {
  readonly version?: unknown;
  readonly sha256Hash?: unknown;
}

/** An APQ hash sent without its text that the cache does not hold: Apollo Server 5's answer (HTTP 200, not cached). */
const PERSISTED_QUERY_NOT_FOUND = {
  message: 'PersistedQueryNotFound',
  code: 'PERSISTED_QUERY_NOT_FOUND',
  status: 200,
  headers: { 'cache-control': 'private, no-cache, must-revalidate' },
} as const;

/**
 * The refusal of an APQ request (`extensions.persistedQuery`) as Apollo Server 5 checks it
 * before the text parses, or null: version 1 (400, no code), then the text (its hash
 * unknown: {@link PERSISTED_QUERY_NOT_FOUND}), then the sha256 of the text as its hash (400, no code).
 *
 * @param query - the request's text, or the one {@link PersistedQueries.textOf} found for its hash
 */
export function persistedQueryRefusal(
  extensions: Record<string, unknown> | undefined,
  query: string | undefined,
): { errors: GraphQLError[]; status: number; headers?: Readonly<Record<string, string>> } | null {
  const persisted = extensions?.persistedQuery as PersistedQueryExtension | undefined;
  if (!persisted) return null;
  if (persisted.version !== 1)
    return { errors: [new GraphQLError('Unsupported persisted query version')], status: 400 };
  if (query === undefined) {
    const { message, code, status, headers } = PERSISTED_QUERY_NOT_FOUND;
    return { errors: [new GraphQLError(message, { extensions: { code } })], status, headers };
  }
  if (persisted.sha256Hash === createHash('sha256').update(query).digest('hex')) return null;
  return { errors: [new GraphQLError('provided sha does not match query')], status: 400 };
}

/**
 * The APQ texts by hash: Apollo Server registers a text sent with its hash (once the hash
 * matched), and both Apollo and {@link textOf} look a hash up, in one cache of Apollo's
 * default bound (30 MiB of text).
 *
 * When to use: one per pipeline, its {@link apolloCache} given to Apollo Server.
 */
export class PersistedQueries {
  private readonly texts: KeyValueCache<string> = new InMemoryLRUCache<string>();

  /** Apollo Server's `persistedQueries.cache`: the same cache, keyed by the bare hash (no `apq:` prefix). */
  readonly apolloCache: KeyValueCache<string> = PrefixingKeyValueCache.cacheDangerouslyDoesNotNeedPrefixesForIsolation(
    this.texts,
  );

  /**
   * `request` with its text, for an APQ hash sent without it (version 1) that the cache
   * holds; `request` itself otherwise (an unknown hash is refused by the `parse` phase).
   */
  async textOf(request: OperationRequest): Promise<OperationRequest> {
    if (request.query !== undefined) return request;
    const persisted = request.extensions?.persistedQuery as PersistedQueryExtension | undefined;
    if (persisted?.version !== 1 || typeof persisted.sha256Hash !== 'string') return request;
    const query = await this.texts.get(persisted.sha256Hash);
    return query === undefined ? request : { ...request, query };
  }
}
