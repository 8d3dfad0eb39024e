import { UpstreamError } from '../../errors/gateway-error';
import type { UpstreamErrorCode, UpstreamErrorInfo } from '../../errors/gateway-error';
import type { Endpoint } from '../../upstream/endpoints';

/**
 * A definitive upstream 4xx as plain data: what an `UpstreamError` is made of. Kept in
 * caches instead of the error itself (an error object costs about a kilobyte and a
 * stack capture); most are turned into results by mappers (an empty counter, an unset
 * record) and never become errors at all.
 */
export interface UpstreamFailure {
  /** The error code the failure becomes (`NOT_FOUND`, `FORBIDDEN`, ...). */
  code: UpstreamErrorCode;
  /** What the upstream answered: status, endpoint route and message. */
  upstream: UpstreamErrorInfo;
  /** Further extensions (`requiredScopes`, `premium`). */
  extra: Record<string, unknown>;
}

/** The failure an error describes. */
export function failureOf(error: UpstreamError): UpstreamFailure {
  const { code: _code, upstream: _upstream, ...extra } = error.extensions;
  return { code: error.code, upstream: error.upstream, extra };
}

/** The error a failure describes, for the field that cannot do without the answer. */
export function errorOf(endpoint: Endpoint, failure: UpstreamFailure): UpstreamError {
  return new UpstreamError(failure.code, endpoint, failure.upstream, failure.extra);
}

/**
 * A place for what the domain layer makes of one cached answer (its mapped result), kept
 * beside the decoded body by the process cache, so the reads of a cached answer map it
 * once and not once each (see `fetchMapped`). The economy never reads it. A new answer
 * for the same request is a new entry with a new, empty memo. Whatever is kept here is
 * shared by every operation that reads the answer: it must not be changed.
 */
export interface AnswerMemo {
  /** What made {@link value} (for `fetchMapped`, the endpoint whose mapping it is), to tell it from another use of the same answer. */
  by?: unknown;
  /** The result. */
  value?: unknown;
  /** Extra facts about the result (the fields the mapper found drifted). */
  notes?: readonly string[];
}

/**
 * One cached upstream answer: a body, or a definitive 4xx (an empty counter's 404, a
 * missing scope's 400, a premium endpoint's 401), which is as stable as a body and as
 * costly to ask again. `storedAt` is epoch ms; `bytes` approximates its JSON size. A body
 * read from the process cache carries the memo of its decoded form (see `AnswerMemo`).
 */
export type CacheEntry =
  | { kind: 'body'; body: unknown; storedAt: number; bytes: number; memo?: AnswerMemo }
  | { kind: 'failure'; failure: UpstreamFailure; storedAt: number; bytes: number };

/**
 * The key of one upstream GET in every cache level (process, Redis) and in the
 * in-flight map: `<hashed key>|<path>`. Never the API key in clear, never shared
 * between keys.
 *
 * @param keyId - the hashed API key (see `keyId`)
 * @param path - the request path with parameters, e.g. `/factory/counter/abc`
 */
export function cacheKey(keyId: string, path: string): string {
  return `${keyId}|${path}`;
}

/** The request path of a cache key: the inverse of {@link cacheKey}. */
export function pathOfCacheKey(keyId: string, key: string): string {
  return key.slice(keyId.length + 1);
}

/**
 * The one shared copy of a key text, for tables that keep keys long (the process cache,
 * refresh-ahead's resources): V8 keeps a string used as an object's property name once
 * per distinct text (internalized: flat, shared by every table that asks, dropped when
 * none keeps it). Why: {@link cacheKey} builds a key by concatenation, which V8 keeps as a
 * tree of cons strings (32 bytes per node, the path's own pieces under it), and each table
 * would keep the tree of the read that stored it. Only for keys being stored, not for
 * every read: it costs an object.
 */
export function sharedKey(key: string): string {
  const holder: Record<string, 0> = { [key]: 0 };
  for (const name in holder) return name;
  return key;
}
