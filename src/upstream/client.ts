import { Agent, request } from 'undici';
import type { Dispatcher } from 'undici';
import { UpstreamError } from '../errors/gateway-error';
import type { UpstreamErrorCode, UpstreamErrorInfo } from '../errors/gateway-error';
import { buildPath } from './endpoints';
import type { Endpoint, PathParams } from './endpoints';

/** Options of {@link UpstreamClient}. */
export interface UpstreamClientOptions {
  /** Base URL including `/req`, without a trailing slash, e.g. `https://api.statev.de/req`. */
  baseUrl: string;
  /** Connect, headers and body timeout of each request, in ms. */
  timeoutMs: number;
  /** Most open connections to the upstream origin. */
  connections?: number;
  /** A dispatcher to use instead of the client's own Agent (tests pass undici's `MockAgent`). */
  dispatcher?: Dispatcher;
}

/** One call of {@link UpstreamClient.call}. */
export interface UpstreamCall {
  /** Which endpoint. */
  endpoint: Endpoint;
  /** Values of the endpoint's placeholders. */
  params?: PathParams;
  /** The path, when the caller has already built it from `params`. */
  path?: string;
  /** The caller's API key, forwarded as `Authorization: Bearer <key>`. */
  apiKey: string;
  /** JSON request body (POST only). */
  body?: unknown;
}

/** A successful upstream answer. */
export interface UpstreamResponse {
  /** HTTP status (2xx). */
  status: number;
  /** Parsed JSON when the upstream says JSON, else the text. */
  body: unknown;
  /** Size of the body as received, in bytes. */
  bytes: number;
}

/** What the client observed of one finished request, for metrics and accounting. */
export interface UpstreamObservation {
  /** Route pattern, e.g. `GET /factory/inventory/{id}`. */
  route: string;
  /** HTTP status, or null when no response arrived. */
  status: number | null;
  /** Wall time from sending to the end of the body, in ms. */
  durationMs: number;
  /** The error code when the request failed. */
  errorCode?: UpstreamErrorCode;
}

/** Gateway user agent sent upstream. */
const USER_AGENT = 'statev-graphql-gateway/0.1 (+https://github.com/statev-graphql-gateway)';

/** undici error codes (as its docs advise, classified by `err.code`) that mean "too slow". */
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/**
 * The only module that talks HTTP to the StateV API: one undici `Agent` with explicit
 * connect/headers/body timeouts, the caller's bearer key forwarded unchanged, every
 * response body consumed, and every failure turned into an {@link UpstreamError}.
 *
 * When to use: once per process (it owns the connection pool). Per-request dedup and
 * per-key economy live above it; this class knows nothing about keys but the header.
 */
export class UpstreamClient {
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly observers: Array<(observation: UpstreamObservation) => void> = [];

  constructor(options: UpstreamClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs;
    this.ownsDispatcher = options.dispatcher === undefined;
    this.dispatcher =
      options.dispatcher ??
      new Agent({
        connect: { timeout: options.timeoutMs },
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
        connections: options.connections ?? 256,
        keepAliveTimeout: 10_000,
      });
  }

  /** Registers a callback told about every finished request (metrics, accounting). */
  observe(observer: (observation: UpstreamObservation) => void): void {
    this.observers.push(observer);
  }

  /**
   * Sends one request and returns its body: parsed JSON when the upstream says JSON,
   * else the text.
   *
   * @throws UpstreamError — 400 `UPSTREAM_BAD_REQUEST`, 401/403 `FORBIDDEN`, 404 `NOT_FOUND`,
   *   429 `RATE_LIMITED` (with `retryAfterSeconds` from `Retry-After`), 5xx, bad JSON or a
   *   connection error `UPSTREAM_ERROR`, a timeout `UPSTREAM_TIMEOUT`.
   */
  async call(call: UpstreamCall): Promise<unknown> {
    return (await this.send(call)).body;
  }

  /**
   * Like {@link call}, and also tells the size of the body in bytes (the cache's
   * memory accounting uses it).
   */
  async send(call: UpstreamCall): Promise<UpstreamResponse> {
    const { endpoint, apiKey } = call;
    const url = this.baseUrl + (call.path ?? buildPath(endpoint, call.params));
    const headers: Record<string, string> = {
      authorization: `Bearer ${apiKey}`,
      accept: 'application/json',
      'user-agent': USER_AGENT,
    };
    // What must never be echoed back to a client: the key, and a secret sent in the body.
    const bodySecret = call.body && typeof call.body === 'object' ? (call.body as { apiSecret?: unknown }).apiSecret : undefined;
    const secrets = typeof bodySecret === 'string' ? [apiKey, bodySecret] : [apiKey];
    let body: string | undefined;
    if (call.body !== undefined) {
      body = JSON.stringify(call.body);
      headers['content-type'] = 'application/json';
    }
    const started = performance.now();
    const finish = (status: number | null, errorCode?: UpstreamErrorCode): void => {
      const observation: UpstreamObservation = { route: endpoint.route, status, durationMs: performance.now() - started };
      if (errorCode) observation.errorCode = errorCode;
      for (const observer of this.observers) {
        try {
          observer(observation);
        } catch {
          // An observer (metrics) must never change the outcome of a request.
        }
      }
    };

    let statusCode: number;
    let responseHeaders: Record<string, string | string[] | undefined>;
    let text: string;
    try {
      const response = await request(url, {
        dispatcher: this.dispatcher,
        method: endpoint.method,
        headers,
        body,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      statusCode = response.statusCode;
      responseHeaders = response.headers;
      // Always consume the body, also on errors, so the connection returns to the pool.
      text = await response.body.text();
    } catch (error) {
      const failure = transportFailure(endpoint, error, secrets);
      finish(null, failure.code);
      throw failure;
    }

    const contentType = String(responseHeaders['content-type'] ?? '');
    const parsed = parseBody(text, contentType);
    if (statusCode >= 200 && statusCode < 300) {
      if (parsed.ok) {
        finish(statusCode);
        return { status: statusCode, body: parsed.value, bytes: Buffer.byteLength(text) };
      }
      const failure = new UpstreamError('UPSTREAM_ERROR', endpoint, {
        status: statusCode,
        endpoint: endpoint.route,
        message: 'invalid JSON in the response',
      });
      finish(statusCode, failure.code);
      throw failure;
    }
    const failure = statusFailure(endpoint, statusCode, parsed.ok ? parsed.value : text, responseHeaders, secrets);
    finish(statusCode, failure.code);
    throw failure;
  }

  /** Closes the connection pool (only when the client created it). */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }
}

type Parsed = { ok: true; value: unknown } | { ok: false };

function parseBody(text: string, contentType: string): Parsed {
  if (!/\bjson\b/i.test(contentType)) return { ok: true, value: text };
  if (text.trim() === '') return { ok: true, value: null };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** Removes the key and secret from anything the upstream echoes back, so they never reach a client. */
function redact(message: string, secrets: readonly string[]): string {
  let text = message;
  for (const secret of secrets) if (secret.length >= 4) text = text.split(secret).join('[redacted]');
  return text;
}

/** {@link redact} applied to a text body or to the strings of a JSON error body. */
function redactDeep(body: unknown, secrets: readonly string[]): unknown {
  if (typeof body === 'string') return redact(body, secrets);
  if (Array.isArray(body)) return body.map((element: unknown) => redactDeep(element, secrets));
  if (body && typeof body === 'object') {
    return Object.fromEntries(Object.entries(body as Record<string, unknown>).map(([name, value]) => [name, redactDeep(value, secrets)]));
  }
  return body;
}

/** The `message` of the upstream's error body `{statusCode, message, error}`, or the raw text. */
export function upstreamMessage(body: unknown): string {
  if (typeof body === 'string') return body.slice(0, 500);
  if (body && typeof body === 'object') {
    const message: unknown = (body as Record<string, unknown>).message;
    if (typeof message === 'string') return message.slice(0, 500);
    if (Array.isArray(message)) {
      const joined = message.filter((m): m is string => typeof m === 'string').join('; ');
      if (joined) return joined.slice(0, 500);
    }
    const error: unknown = (body as Record<string, unknown>).error;
    if (typeof error === 'string') return error;
  }
  return '';
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

function statusFailure(
  endpoint: Endpoint,
  status: number,
  body: unknown,
  headers: Record<string, string | string[] | undefined>,
  secrets: readonly string[],
): UpstreamError {
  const upstream: UpstreamErrorInfo = {
    status,
    endpoint: endpoint.route,
    // Redact before upstreamMessage shortens the text, so no part of a key survives the cut.
    message: upstreamMessage(redactDeep(body, secrets)) || `HTTP ${status}`,
  };
  const scopes = { requiredScopes: [...endpoint.scopes] };
  if (status === 400) return new UpstreamError('UPSTREAM_BAD_REQUEST', endpoint, upstream, scopes);
  if (status === 401 || status === 403) {
    return new UpstreamError('FORBIDDEN', endpoint, upstream, endpoint.premium ? { ...scopes, premium: true } : scopes);
  }
  if (status === 404) return new UpstreamError('NOT_FOUND', endpoint, upstream);
  if (status === 429) {
    return new UpstreamError('RATE_LIMITED', endpoint, upstream, {
      retryAfterSeconds: parseRetryAfter(headers['retry-after']),
    });
  }
  if (status === 408 || status === 504) return new UpstreamError('UPSTREAM_TIMEOUT', endpoint, upstream);
  return new UpstreamError('UPSTREAM_ERROR', endpoint, upstream);
}

function transportFailure(endpoint: Endpoint, error: unknown, secrets: readonly string[]): UpstreamError {
  const code = errorCode(error);
  const detail = error instanceof Error ? redact(error.message, secrets) : 'request failed';
  const upstream: UpstreamErrorInfo = { status: null, endpoint: endpoint.route, message: code ? `${code}: ${detail}` : detail };
  return new UpstreamError(code && TIMEOUT_CODES.has(code) ? 'UPSTREAM_TIMEOUT' : 'UPSTREAM_ERROR', endpoint, upstream);
}

/** undici's `err.code`, or the code of its `cause` (Node's own socket errors). */
function errorCode(error: unknown): string | undefined {
  if (!error || typeof error !== 'object') return undefined;
  const code: unknown = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  const cause: unknown = (error as { cause?: unknown }).cause;
  return cause ? errorCode(cause) : undefined;
}
