import { createHash } from 'node:crypto';
import { Agent, request } from 'undici';
import type { Dispatcher } from 'undici';
import { UpstreamError } from '../errors/gateway-error';
import type { UpstreamErrorCode } from '../errors/gateway-error';
import { buildPath } from './endpoints';
import type { Endpoint, PathParams } from './endpoints';
import { reportUpstreamFailure } from './failure-reports';
import { BYTES_PER_CONTAINER, MAX_UPSTREAM_JSON_DEPTH } from './json-nesting';
import { KeyConnectionGate } from './key-connections';
import { parseBody, readBody, turnAfterLargeBody } from './response-body';
import { Abandoned, statusFailure, transportFailure, withDetail } from './upstream-failures';
import type { Limits } from './upstream-failures';
import { safeTexts } from './upstream-texts';

/** Options of {@link UpstreamClient}. */
export interface UpstreamClientOptions {
  /** Base URL including `/req`, without a trailing slash, e.g. `https://api.statev.de/req`. */
  baseUrl: string;
  /**
   * Deadline of each request, in ms: waiting for a connection, connect, headers and
   * the whole body together (a body that drips slowly fails at the deadline).
   */
  timeoutMs: number;
  /** Most open connections to the upstream origin for all keys together; 0 or absent: no shared cap. */
  connections?: number;
  /** Most requests in use per key at once (default 6); see {@link KeyConnectionGate}. */
  connectionsPerKey?: number;
  /** Largest response body accepted, in bytes (default 1 MiB); enforced while streaming, as is a JSON body's count of arrays and objects (at most this / {@link BYTES_PER_CONTAINER}). */
  maxBodyBytes?: number;
  /** Deepest nesting of arrays and objects accepted in a JSON body (default {@link MAX_UPSTREAM_JSON_DEPTH}); enforced while streaming. */
  maxJsonDepth?: number;
  /** Largest `Retry-After` believed, seconds (default 3600); a longer one is cut to this. */
  maxRetryAfterSeconds?: number;
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
  /**
   * The hashed key (see `keyId`): what the per-key connection limit is counted under and
   * what a failure's log line names (its first 8 characters, as every other log line of
   * the operation names the key). The economy always passes it; without it (a caller
   * outside the economy, tests) a SHA-256 of the key computed here, which names the key
   * differently from the rest of the logs.
   */
  keyId?: string;
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

/** Default of {@link UpstreamClientOptions.maxBodyBytes}: 1 MiB (see `UPSTREAM_MAX_BODY_BYTES` in docs/configuration.md for why). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** Default of {@link UpstreamClientOptions.maxRetryAfterSeconds}: one hour. */
export const DEFAULT_MAX_RETRY_AFTER_SECONDS = 3600;
/** Default of {@link UpstreamClientOptions.connectionsPerKey}. */
export const DEFAULT_CONNECTIONS_PER_KEY = 6;

/** A complete answer: status, headers and the whole body. */
interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  bytes: number;
}

/** Why an exchange gave no complete answer (the abort reason or undici's error), and the status if one came. */
interface ExchangeFailure {
  reason: unknown;
  status: number | null;
}

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
  private readonly maxBodyBytes: number;
  private readonly maxJsonDepth: number;
  private readonly maxContainers: number;
  private readonly maxRetryAfterSeconds: number;
  /** Per-key limit on connections in use, so hung keys cannot starve the others. */
  readonly connectionGate: KeyConnectionGate;
  private readonly observers: Array<(observation: UpstreamObservation) => void> = [];

  constructor(options: UpstreamClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs;
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.maxJsonDepth = options.maxJsonDepth ?? MAX_UPSTREAM_JSON_DEPTH;
    this.maxContainers = Math.floor(this.maxBodyBytes / BYTES_PER_CONTAINER);
    this.maxRetryAfterSeconds = options.maxRetryAfterSeconds ?? DEFAULT_MAX_RETRY_AFTER_SECONDS;
    this.connectionGate = new KeyConnectionGate(Math.max(1, options.connectionsPerKey ?? DEFAULT_CONNECTIONS_PER_KEY));
    this.ownsDispatcher = options.dispatcher === undefined;
    this.dispatcher =
      options.dispatcher ??
      new Agent({
        connect: { timeout: options.timeoutMs },
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
        // No shared cap by default: fairness comes from the per-key gate (see KeyConnectionGate).
        connections: options.connections ? options.connections : null,
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
   *   429 `RATE_LIMITED` (with `retryAfterSeconds` from `Retry-After`), 5xx, bad JSON, JSON
   *   nested deeper than `maxJsonDepth`, a body over `maxBodyBytes`, JSON with more than
   *   `maxBodyBytes` / {@link BYTES_PER_CONTAINER} arrays and objects, or a connection error
   *   `UPSTREAM_ERROR`, a timeout `UPSTREAM_TIMEOUT`. Its `detail` holds the whole cause
   *   for the log (redacted); the client-facing message is cut (see `safeTexts`).
   */
  async call(call: UpstreamCall): Promise<unknown> {
    return (await this.send(call)).body;
  }

  /**
   * Like {@link call}, and also tells the size of the body in bytes (the cache's
   * memory accounting uses it).
   */
  async send(call: UpstreamCall): Promise<UpstreamResponse> {
    const { endpoint } = call;
    // What must never be echoed back to a client: the key, and a secret sent in the body.
    const bodySecret =
      call.body && typeof call.body === 'object' ? (call.body as { apiSecret?: unknown }).apiSecret : undefined;
    const secrets = typeof bodySecret === 'string' ? [call.apiKey, bodySecret] : [call.apiKey];
    const url = this.baseUrl + (call.path ?? buildPath(endpoint, call.params));
    const finish = this.reporter(call);
    let answer: Answer;
    try {
      answer = await this.exchange(call, url);
    } catch (error) {
      const { reason, status } = error as ExchangeFailure;
      const failure = transportFailure(endpoint, reason, status, secrets, this.limits());
      finish(status, failure);
      throw failure;
    }
    const { status, headers, text, bytes } = answer;
    const parsed = parseBody(text, String(headers['content-type'] ?? ''));
    if (status >= 200 && status < 300) {
      if (parsed.ok) {
        finish(status);
        const turn = turnAfterLargeBody(bytes);
        if (turn) await turn;
        return { status, body: parsed.value, bytes };
      }
      const failure = new UpstreamError('UPSTREAM_ERROR', endpoint, {
        status,
        endpoint: endpoint.route,
        message: 'invalid JSON in the response',
      });
      withDetail(
        failure,
        `invalid JSON in a ${bytes}-byte response: ${safeTexts(parsed.reason, secrets, 'JSON.parse failed').detail}`,
      );
      finish(status, failure);
      throw failure;
    }
    const failure = statusFailure(
      endpoint,
      status,
      parsed.ok ? parsed.value : text,
      headers,
      secrets,
      this.maxRetryAfterSeconds,
    );
    finish(status, failure);
    throw failure;
  }

  /**
   * One exchange under one deadline: waiting for this key's connection, connect, headers
   * and the complete body (undici's own timeouts only bound idle time). Always consumes
   * the body, also on errors, so the connection returns to the pool, but never more of it
   * than the limits allow.
   *
   * @throws ExchangeFailure — why it gave no complete answer, and the status if one came
   */
  private async exchange(call: UpstreamCall, url: string): Promise<Answer> {
    const { endpoint, apiKey } = call;
    const headers: Record<string, string> = {
      authorization: `Bearer ${apiKey}`,
      accept: 'application/json',
      'user-agent': USER_AGENT,
    };
    let body: string | undefined;
    if (call.body !== undefined) {
      body = JSON.stringify(call.body);
      headers['content-type'] = 'application/json';
    }
    const controller = new AbortController();
    const deadline = setTimeout(() => controller.abort(new Abandoned('deadline')), this.timeoutMs);
    let status: number | null = null;
    let release: (() => void) | undefined;
    try {
      release = await this.connectionGate.acquire(call.keyId ?? partitionOf(apiKey), controller.signal);
      const response = await request(url, {
        dispatcher: this.dispatcher,
        method: endpoint.method,
        headers,
        body,
        signal: controller.signal,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      status = response.statusCode;
      const read = await readBody(response.body, response.headers, this.limits(), controller);
      if (controller.signal.aborted) throw controller.signal.reason;
      return { status: response.statusCode, headers: response.headers, ...read };
    } catch (error) {
      const failure: ExchangeFailure = { reason: controller.signal.aborted ? controller.signal.reason : error, status };
      throw failure;
    } finally {
      clearTimeout(deadline);
      release?.();
    }
  }

  /** The function that ends a call: tells every observer and reports a failure (never with the key). */
  private reporter(call: UpstreamCall): (status: number | null, failure?: UpstreamError) => void {
    const started = performance.now();
    const route = call.endpoint.route;
    return (status, failure) => {
      const observation: UpstreamObservation = { route, status, durationMs: performance.now() - started };
      if (failure) {
        observation.errorCode = failure.code;
        const key = (call.keyId ?? partitionOf(call.apiKey)).slice(0, 8);
        reportUpstreamFailure({
          route,
          status,
          code: failure.code,
          detail: failure.detail ?? failure.upstream.message,
          key,
        });
      }
      for (const observer of this.observers) {
        try {
          observer(observation);
        } catch {
          // An observer (metrics) must never change the outcome of a request.
        }
      }
    };
  }

  /** The client's limits, as the body reader and the failures name them. */
  private limits(): Limits {
    return {
      timeoutMs: this.timeoutMs,
      maxBodyBytes: this.maxBodyBytes,
      maxJsonDepth: this.maxJsonDepth,
      maxContainers: this.maxContainers,
    };
  }

  /** Closes the connection pool (only when the client created it). */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }
}

/** The partition of a key in the connection gate when the caller gave no key id: a hash, never the key. */
function partitionOf(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex').slice(0, 32);
}
