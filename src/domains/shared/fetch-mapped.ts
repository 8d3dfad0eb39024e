import type { Endpoint, PathParams } from '../../upstream/endpoints';
import type { UpstreamSession } from '../../economy';
import { errorOf } from '../../economy';
import type { UpstreamFailure } from '../../economy';
import { mapResponse } from './narrow';

/**
 * GETs an endpoint through the operation's session and maps the body; what every
 * domain `*.api.ts` function is made of. A result built from stale data is marked so
 * the response can say so in `extensions.stale`.
 *
 * @param recover - turns a known definitive 4xx into a result (e.g. "Counter is empty"
 *   into an empty counter); return `undefined` to make it the field's error.
 * @param fresh - skip a fresh cached answer (and store the new one), as `Cache-Control: no-cache` does
 * @throws UpstreamError from the session or for an unrecovered 4xx, or `UPSTREAM_ERROR`
 *   when the body has the wrong shape.
 */
export async function fetchMapped<T>(
  session: UpstreamSession,
  endpoint: Endpoint,
  params: PathParams | undefined,
  map: (body: unknown) => T,
  recover?: (failure: UpstreamFailure) => T | undefined,
  fresh = false,
): Promise<T> {
  const reply = await (fresh ? session.getFresh(endpoint, params) : session.get(endpoint, params));
  if (reply.failure) {
    const recovered = recover?.(reply.failure);
    if (recovered === undefined) throw errorOf(endpoint, reply.failure);
    return session.markStale(recovered, reply.stale);
  }
  return session.markStale(mapResponse(endpoint, reply.body, map), reply.stale);
}
