import type { Endpoint, PathParams } from '../../upstream/endpoints';
import type { UpstreamSession } from '../../upstream/session';
import { StaleUpstreamError } from '../../economy/upstream-economy';
import type { UpstreamReply } from '../../economy/upstream-economy';
import { mapResponse } from './narrow';

/**
 * GETs an endpoint through the operation's session and maps the body; what every
 * domain `*.api.ts` function is made of. A result built from stale data is marked so
 * the response can say so in `extensions.stale`.
 *
 * @param recover - turns a known error into a result (e.g. "Counter is empty" into an
 *   empty counter); return `undefined` to let the error through.
 * @throws UpstreamError from the session, or `UPSTREAM_ERROR` when the body has the wrong shape.
 */
export async function fetchMapped<T>(
  session: UpstreamSession,
  endpoint: Endpoint,
  params: PathParams | undefined,
  map: (body: unknown) => T,
  recover?: (error: unknown) => T | undefined,
): Promise<T> {
  let reply: UpstreamReply;
  try {
    reply = await session.get(endpoint, params);
  } catch (error) {
    const recovered = recover?.(error);
    if (recovered !== undefined) return session.markStale(recovered, error instanceof StaleUpstreamError ? error.stale : null);
    throw error;
  }
  return session.markStale(mapResponse(endpoint, reply.body, map), reply.stale);
}
