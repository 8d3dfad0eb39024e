/** The parts of an upstream failure the recoveries look at (an `UpstreamFailure` or an `UpstreamError`). */
export interface FailureLike {
  /** The error code (`extensions.code`), e.g. `NOT_FOUND`. */
  readonly code: string;
  /** The upstream's own message, as `extensions.upstream.message` carries it. */
  readonly upstream: { readonly message: string };
}

/**
 * True for the upstream's 404 that means "there is nothing here" rather than "no such
 * company": its message says the store or counter is empty (e.g. "Counter is empty").
 * The gateway answers such a 404 with an empty result instead of an error.
 */
export function isEmptyStoreError(failure: FailureLike): boolean {
  return failure.code === 'NOT_FOUND' && /\bempty\b/i.test(failure.upstream.message);
}

/** True for any upstream 404. */
export function isNotFoundError(failure: FailureLike): boolean {
  return failure.code === 'NOT_FOUND';
}
