/**
 * How a failed exchange becomes an {@link UpstreamError}: by status (400, 401/403, 404,
 * 429 with `Retry-After`, 408/504, other), or by what stopped it (the client's deadline
 * or limits, undici's timeouts, a socket error), always with the whole cause, redacted,
 * as the error's `detail`.
 */
import { UpstreamError } from '../errors/gateway-error';
import type { UpstreamErrorInfo } from '../errors/gateway-error';
import type { Endpoint } from './endpoints';
import { rawMessage, safeTexts } from './upstream-texts';

/** undici error codes (as its docs advise, classified by `err.code`) that mean "too slow". */
const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);

/** Why the client abandoned an exchange itself (the abort reason). */
export class Abandoned extends Error {
  /**
   * @param why - what ended the exchange
   * @param at - for `too-deep` and `too-many-containers`: the byte offset of the bracket past the limit
   */
  constructor(
    /** What ended the exchange. */
    readonly why: 'deadline' | 'too-large' | 'too-deep' | 'too-many-containers',
    /** For `too-deep` and `too-many-containers`: the byte offset of the bracket past the limit. */
    readonly at: number | null = null,
  ) {
    super(why);
  }
}

/**
 * Seconds to wait from a `Retry-After` header: either delay-seconds or an HTTP date.
 * Null when the header is absent or unreadable.
 */
export function parseRetryAfter(value: string | string[] | undefined, now: number = Date.now()): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined || raw.trim() === '') return null;
  const trimmed = raw.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  // Only an HTTP date (e.g. "Wed, 21 Oct 2015 07:28:00 GMT"); Date.parse alone accepts "1.5" or "-1".
  if (!/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,?\s/.test(trimmed)) return null;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

/** The error of a non-2xx answer: its code by status, the upstream's message (redacted, cut) and the whole text as `detail`. */
export function statusFailure(
  endpoint: Endpoint,
  status: number,
  body: unknown,
  headers: Record<string, string | string[] | undefined>,
  secrets: readonly string[],
  maxRetryAfterSeconds: number,
): UpstreamError {
  const texts = safeTexts(rawMessage(body), secrets, `HTTP ${status}`);
  const upstream: UpstreamErrorInfo = { status, endpoint: endpoint.route, message: texts.shown || `HTTP ${status}` };
  return withDetail(
    statusError(endpoint, status, upstream, headers, maxRetryAfterSeconds),
    `HTTP ${status}: ${texts.detail}`,
  );
}

function statusError(
  endpoint: Endpoint,
  status: number,
  upstream: UpstreamErrorInfo,
  headers: Record<string, string | string[] | undefined>,
  maxRetryAfterSeconds: number,
): UpstreamError {
  const scopes = { requiredScopes: [...endpoint.scopes] };
  if (status === 400) return new UpstreamError('UPSTREAM_BAD_REQUEST', endpoint, upstream, scopes);
  if (status === 401 || status === 403) {
    return new UpstreamError('FORBIDDEN', endpoint, upstream, endpoint.premium ? { ...scopes, premium: true } : scopes);
  }
  if (status === 404) return new UpstreamError('NOT_FOUND', endpoint, upstream);
  if (status === 429) {
    // A hostile or broken Retry-After (e.g. 99999999999) must not silence a key for years.
    const retryAfter = parseRetryAfter(headers['retry-after']);
    return new UpstreamError('RATE_LIMITED', endpoint, upstream, {
      retryAfterSeconds: retryAfter === null ? null : Math.min(retryAfter, maxRetryAfterSeconds),
    });
  }
  if (status === 408 || status === 504) return new UpstreamError('UPSTREAM_TIMEOUT', endpoint, upstream);
  return new UpstreamError('UPSTREAM_ERROR', endpoint, upstream);
}

/** The client's limits, as transport failures name them. */
export interface Limits {
  /** The deadline of an exchange, ms. */
  timeoutMs: number;
  /** Largest body, bytes. */
  maxBodyBytes: number;
  /** Deepest JSON nesting. */
  maxJsonDepth: number;
  /** Most JSON arrays and objects. */
  maxContainers: number;
}

/** The error of an exchange that gave no complete answer: abandoned by the client (deadline, a limit) or failed in undici or the socket. */
export function transportFailure(
  endpoint: Endpoint,
  error: unknown,
  status: number | null,
  secrets: readonly string[],
  limits: Limits,
): UpstreamError {
  if (error instanceof Abandoned) {
    // A deadline means no complete answer: status null, so the retry rules treat it as the
    // timeout it is (never retried), whatever status line came before the body stalled.
    if (error.why === 'deadline') {
      const message = `no complete answer within the ${limits.timeoutMs} ms deadline`;
      return withDetail(
        new UpstreamError('UPSTREAM_TIMEOUT', endpoint, { status: null, endpoint: endpoint.route, message }),
        message,
      );
    }
    const message =
      error.why === 'too-large'
        ? `response body larger than the limit of ${limits.maxBodyBytes} bytes; abandoned`
        : error.why === 'too-many-containers'
          ? `JSON with more than ${limits.maxContainers} arrays and objects; abandoned`
          : `JSON nested deeper than ${limits.maxJsonDepth} levels; abandoned`;
    const at = error.at === null ? '' : ` (at byte ${error.at})`;
    return withDetail(
      new UpstreamError('UPSTREAM_ERROR', endpoint, { status, endpoint: endpoint.route, message }),
      `${message}${at}`,
    );
  }
  const code = errorCode(error);
  const texts = safeTexts(error instanceof Error ? error.message : 'request failed', secrets, 'request failed');
  const upstream: UpstreamErrorInfo = {
    status,
    endpoint: endpoint.route,
    message: code ? `${code}: ${texts.shown}` : texts.shown,
  };
  const failure = new UpstreamError(
    code && TIMEOUT_CODES.has(code) ? 'UPSTREAM_TIMEOUT' : 'UPSTREAM_ERROR',
    endpoint,
    upstream,
  );
  return withDetail(failure, code ? `${code}: ${texts.detail}` : texts.detail);
}

/** Sets the failure's `detail` (the whole cause, for the log) and returns it. */
export function withDetail(failure: UpstreamError, detail: string): UpstreamError {
  failure.detail = detail;
  return failure;
}

/** undici's `err.code`, or the code of its `cause` (Node's own socket errors). */
function errorCode(error: unknown): string | undefined {
  if (!error || typeof error !== 'object') return undefined;
  const code: unknown = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  const cause: unknown = (error as { cause?: unknown }).cause;
  return cause ? errorCode(cause) : undefined;
}
