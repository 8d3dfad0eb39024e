import { GraphQLError } from 'graphql';
import type { GraphQLErrorOptions } from 'graphql';

/** Every `extensions.code` the gateway itself produces (see docs/errors.md). */
export type GatewayErrorCode =
  | 'UNAUTHENTICATED'
  | 'BAD_USER_INPUT'
  | 'UPSTREAM_BAD_REQUEST'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'RATE_LIMITED'
  | 'UPSTREAM_ERROR'
  | 'UPSTREAM_TIMEOUT'
  | 'QUERY_TOO_EXPENSIVE'
  | 'CONFLICT'
  | 'SITE_DOCUMENT_CORRUPT'
  | 'SITE_DOCUMENT_TOO_LARGE'
  | 'BAD_REQUEST'
  | 'INTERNAL_SERVER_ERROR';

/** What the gateway tells about a failed upstream request: never a key or secret. */
export interface UpstreamErrorInfo {
  /** HTTP status, or null when no response arrived (connection error, timeout). */
  status: number | null;
  /** The route pattern, e.g. `GET /factory/inventory/{id}`. */
  endpoint: string;
  /** The upstream's message, or a description of the transport failure. */
  message: string;
}

/** Extensions every gateway error carries; `code` is literal-typed. */
export type GatewayErrorExtensions<C extends GatewayErrorCode> = { code: C } & Record<string, unknown>;

/**
 * Codes of the refusals the gateway answers on purpose (a missing or insufficient key or grant,
 * a bound, a limit, an unknown id): their errors carry no stack frames, which say nothing
 * about them and cost a capture and a formatting per refused request. Upstream failures and
 * internal errors keep their stacks.
 */
const REFUSAL_CODES: ReadonlySet<GatewayErrorCode> = new Set<GatewayErrorCode>([
  'UNAUTHENTICATED',
  'BAD_USER_INPUT',
  'UPSTREAM_BAD_REQUEST',
  'FORBIDDEN',
  'NOT_FOUND',
  'RATE_LIMITED',
  'QUERY_TOO_EXPENSIVE',
  'CONFLICT',
  'SITE_DOCUMENT_TOO_LARGE',
  'BAD_REQUEST',
]);

/**
 * Base of every error the gateway reports on purpose. `formatError` passes these
 * through unchanged and masks any other error as `INTERNAL_SERVER_ERROR`.
 *
 * Use it (or {@link UpstreamError}) whenever a client should see the reason; throw
 * plain `Error` only for programming errors, which clients then see masked.
 */
export class GatewayError<C extends GatewayErrorCode = GatewayErrorCode> extends GraphQLError {
  /** `extensions.code` is always set (one of {@link GatewayErrorCode}), with the code's own fields (see docs/errors.md). */
  declare readonly extensions: GatewayErrorExtensions<C>;

  /**
   * @param code - the `extensions.code`
   * @param message - a sentence a client developer can act on
   * @param extensions - further extensions (e.g. `retryAfterSeconds`)
   * @param httpStatus - HTTP status when the error ends the whole operation before execution
   */
  constructor(code: C, message: string, extensions: Record<string, unknown> = {}, httpStatus?: number) {
    // A refusal is an answer, not a fault: no stack frames are captured (nor, later, formatted
    // when graphql-js copies the stack into the located error). Other codes keep theirs.
    const stackTraceLimit = Error.stackTraceLimit;
    if (REFUSAL_CODES.has(code)) Error.stackTraceLimit = 0;
    try {
      super(message, {
        extensions: { ...extensions, code, ...(httpStatus ? { http: { status: httpStatus } } : {}) },
      });
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
    this.name = 'GatewayError';
  }

  /** The literal code, e.g. `NOT_FOUND`. */
  get code(): C {
    return this.extensions.code;
  }
}

/**
 * A `GraphQLError` over an error that already has its stack (`options.originalError`): a
 * resolver's error located in the result (a list item's, or one graphql-jit reported). graphql-js
 * captures the new error's own stack frames and then replaces them with the original's stack, and
 * V8 formats them on the way (about 10 frames per error, per refused field of a page); here they
 * are neither captured nor formatted. The result is the one `new GraphQLError` gives: the
 * original's stack, message, path, nodes and extensions. Without an original, or with one that
 * has no stack, it is `new GraphQLError` as it is (the new error's own frames are its stack).
 */
export function errorOver(message: string, options: GraphQLErrorOptions): GraphQLError {
  if (!options.originalError?.stack) return new GraphQLError(message, options);
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new GraphQLError(message, options);
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}

/** True for any error the gateway raised on purpose. */
export function isGatewayError(error: unknown): error is GatewayError {
  return error instanceof GatewayError;
}

/** Codes of errors caused by an upstream request. */
export type UpstreamErrorCode = Extract<
  GatewayErrorCode,
  'UPSTREAM_BAD_REQUEST' | 'FORBIDDEN' | 'NOT_FOUND' | 'RATE_LIMITED' | 'UPSTREAM_ERROR' | 'UPSTREAM_TIMEOUT'
>;

/**
 * What an {@link UpstreamError} names of the endpoint that failed: the parts its message
 * quotes. Every `Endpoint` of `src/upstream/endpoints.ts` is one; declared here so that
 * the errors module imports nothing of the upstream client that throws it.
 */
export interface FailedEndpoint {
  /** `METHOD /path` with placeholders, as logs and `extensions.upstream.endpoint` show it. */
  readonly route: string;
  /** The scopes the key needs for it, quoted by `UPSTREAM_BAD_REQUEST` and `FORBIDDEN`. */
  readonly scopes: readonly string[];
  /** True when the endpoint answers only for premium keys (`FORBIDDEN` then says so). */
  readonly premium: boolean;
}

/**
 * An upstream request failed. `extensions.upstream = {status, endpoint, message}`;
 * `UPSTREAM_BAD_REQUEST` and `FORBIDDEN` add `requiredScopes`, `FORBIDDEN` adds
 * `premium: true` on premium-only endpoints, `RATE_LIMITED` adds `retryAfterSeconds`.
 */
export class UpstreamError extends GatewayError<UpstreamErrorCode> {
  /** The endpoint that failed. */
  readonly endpoint: FailedEndpoint;
  /** Status and message, as in `extensions.upstream`. */
  readonly upstream: UpstreamErrorInfo;
  /**
   * The whole cause for the log, never for a client: the upstream's complete text
   * (redacted, up to 16 KiB) or what the gateway found wrong with the answer (e.g. the
   * byte where its JSON nested too deep). Set by the upstream client; absent otherwise.
   */
  detail: string | undefined;

  constructor(
    code: UpstreamErrorCode,
    endpoint: FailedEndpoint,
    upstream: UpstreamErrorInfo,
    extra: Record<string, unknown> = {},
  ) {
    super(code, upstreamMessage(code, endpoint, upstream), { upstream, ...extra });
    this.name = 'UpstreamError';
    this.endpoint = endpoint;
    this.upstream = upstream;
    this.detail = undefined;
  }
}

function upstreamMessage(code: UpstreamErrorCode, endpoint: FailedEndpoint, upstream: UpstreamErrorInfo): string {
  const scopes = endpoint.scopes.join(', ');
  switch (code) {
    case 'UPSTREAM_BAD_REQUEST':
      return `The StateV API refused ${endpoint.route} (400: ${upstream.message}). It needs the scopes ${scopes}.`;
    case 'FORBIDDEN':
      return endpoint.premium
        ? `The StateV API denied ${endpoint.route} (${upstream.status ?? 401}: ${upstream.message}). It is premium-only and needs the scopes ${scopes}.`
        : `The StateV API denied ${endpoint.route} (${upstream.status ?? 401}: ${upstream.message}). The key may be invalid; the endpoint needs the scopes ${scopes}.`;
    case 'NOT_FOUND':
      return `The StateV API found nothing at ${endpoint.route} (404: ${upstream.message}).`;
    case 'RATE_LIMITED':
      return `The StateV API rate limit for this key is reached (${endpoint.route}).`;
    case 'UPSTREAM_TIMEOUT':
      return `The StateV API did not answer ${endpoint.route} in time (${upstream.message}).`;
    case 'UPSTREAM_ERROR':
      return `The StateV API failed on ${endpoint.route} (${upstream.status ?? 'no response'}: ${upstream.message}).`;
  }
}

/** No bearer key on a request that needs the upstream. */
export function missingKeyError(): GatewayError<'UNAUTHENTICATED'> {
  return new GatewayError(
    'UNAUTHENTICATED',
    'This field needs a StateV API key: send the header "Authorization: Bearer <API key>".',
  );
}

/** An argument outside its bounds; reported before any upstream request. */
export function badInputError(message: string, argument: string): GatewayError<'BAD_USER_INPUT'> {
  return new GatewayError('BAD_USER_INPUT', message, { argument }, 400);
}
