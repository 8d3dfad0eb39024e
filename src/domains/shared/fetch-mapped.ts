import type { Endpoint, PathParams } from '../../upstream/endpoints';
import type { UpstreamSession } from '../../economy';
import { errorOf, NOT_CACHED } from '../../economy';
import type { UpstreamFailure, UpstreamReply } from '../../economy';
import type { MaybePromise } from './maybe-promise';
import { mapResponse, mapResponseDrift } from './narrow';
import { emitShapeDrift } from './shape-drift';

/**
 * GETs an endpoint through the operation's session and maps the body; what every
 * domain `*.api.ts` function is made of. A result built from stale data is marked so
 * the response can say so in `extensions.stale`.
 *
 * A fresh cached answer is returned at once, mapped, not as a promise (no promise of the
 * session's, the economy's or the read path's; the read path's bookkeeping of a hit is
 * the same), so a resolver over cached data completes in the same turn. Everything else
 * is a promise: misses, stale or cache-only reads, `no-cache`, an invalidation in doubt,
 * tracing on (an upstream span per read), and every failure (no key, an unmapped body, an
 * unrecovered 4xx), which rejects as from an async function. During a session's `peek`,
 * a read the cache cannot answer throws `NOT_CACHED` synchronously and sends nothing.
 *
 * An answer read from the process cache is mapped once while the cache keeps it decoded
 * (its `memo`): the reads after the first share the mapped result (so resolvers must not
 * change what a mapper returns) and report the same shape drift again. So an endpoint
 * has one mapping: every call for an endpoint maps its answer the same way (what a
 * mapper's closure captures comes from the path parameters, which the answer belongs to).
 *
 * @param recover - turns a known definitive 4xx into a result (e.g. "Counter is empty"
 *   into an empty counter); return `undefined` to make it the field's error.
 * @param fresh - skip a fresh cached answer (and store the new one), as `Cache-Control: no-cache` does
 * @throws UpstreamError from the session or for an unrecovered 4xx, or `UPSTREAM_ERROR`
 *   when the body has the wrong shape.
 */
export function fetchMapped<T>(
  session: UpstreamSession,
  endpoint: Endpoint,
  params: PathParams | undefined,
  map: (body: unknown) => T,
  recover?: (failure: UpstreamFailure) => T | undefined,
  fresh = false,
): MaybePromise<T> {
  try {
    const hit = fresh ? undefined : session.cached(endpoint, params);
    if (hit) return mapped(session, endpoint, hit, map, recover);
    return (fresh ? session.getFresh(endpoint, params) : session.get(endpoint, params)).then((reply) =>
      mapped(session, endpoint, reply, map, recover),
    );
  } catch (error) {
    if (error === NOT_CACHED) throw error;
    return Promise.reject(error as Error);
  }
}

/** The result of one reply: mapped (once per decoded answer), recovered, or the field's error. */
function mapped<T>(
  session: UpstreamSession,
  endpoint: Endpoint,
  reply: UpstreamReply,
  map: (body: unknown) => T,
  recover?: (failure: UpstreamFailure) => T | undefined,
): T {
  if (reply.failure) {
    const recovered = recover?.(reply.failure);
    if (recovered === undefined) throw errorOf(endpoint, reply.failure);
    return session.markStale(recovered, reply.stale);
  }
  const memo = reply.memo;
  if (!memo) return session.markStale(mapResponse(endpoint, reply.body, map), reply.stale);
  if (memo.by !== endpoint) {
    const { value, drift } = mapResponseDrift(endpoint, reply.body, map);
    memo.by = endpoint;
    memo.value = value;
    memo.notes = drift;
  } else {
    for (const field of memo.notes ?? []) emitShapeDrift(endpoint.route, field);
  }
  return session.markStale(memo.value as T, reply.stale);
}
