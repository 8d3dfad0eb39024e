import { UpstreamError } from '../../errors/gateway-error';

/**
 * True for the upstream's 404 that means "there is nothing here" rather than "no such
 * company": its message says the store or counter is empty (e.g. "Counter is empty").
 * The gateway answers such a 404 with an empty result instead of an error.
 */
export function isEmptyStoreError(error: unknown): boolean {
  return error instanceof UpstreamError && error.code === 'NOT_FOUND' && /\bempty\b/i.test(error.upstream.message);
}

/** True for any upstream 404. */
export function isNotFoundError(error: unknown): boolean {
  return error instanceof UpstreamError && error.code === 'NOT_FOUND';
}
