import { createHash } from 'node:crypto';
import { Agent, request } from 'undici';
import type { Dispatcher } from 'undici';
import { UpstreamError } from '../errors/gateway-error';
import type { UpstreamErrorCode, UpstreamErrorInfo } from '../errors/gateway-error';
import { buildPath } from './endpoints';
import type { Endpoint, PathParams } from './endpoints';
import { reportUpstreamFailure } from './failure-reports';
import { BYTES_PER_CONTAINER, JsonNesting, MAX_UPSTREAM_JSON_DEPTH } from './json-nesting';
import { KeyConnectionGate } from './key-connections';
import { Redactor } from './redact';

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
   * The hashed key (see `keyId`) that the per-key connection limit is counted under;
   * without it, a hash of the key computed here.
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

/** undici error codes (as its docs advise, classified by `err.code`) that mean "too slow". */
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/**
 * Most body bytes read (and scanned, see json-nesting.ts) in one turn of the event loop:
 * a large body's chunks, when undici has them buffered, would otherwise all be handled
 * in one turn (about 50 ms for 5 MiB on a loaded machine), holding up every other request.
 */
const READ_SLICE_BYTES = 256 * 1024;

/** Default of {@link UpstreamClientOptions.maxBodyBytes}: 1 MiB (see `UPSTREAM_MAX_BODY_BYTES` in docs/configuration.md for why). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** Default of {@link UpstreamClientOptions.maxRetryAfterSeconds}: one hour. */
export const DEFAULT_MAX_RETRY_AFTER_SECONDS = 3600;
/** Default of {@link UpstreamClientOptions.connectionsPerKey}. */
export const DEFAULT_CONNECTIONS_PER_KEY = 6;

/** Why the client abandoned an exchange itself (the abort reason). */
class Abandoned extends Error {
  constructor(
    readonly why: 'deadline' | 'too-large' | 'too-deep' | 'too-many-containers',
    /** For `too-deep` and `too-many-containers`: the byte offset of the bracket past the limit. */
    readonly at: number | null = null,
  ) {
    super(why);
  }
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
   *   for the log (redacted); the client-facing message is cut (see {@link clientText}).
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
    const finish = (status: number | null, failure?: UpstreamError): void => {
      const observation: UpstreamObservation = { route: endpoint.route, status, durationMs: performance.now() - started };
      if (failure) {
        observation.errorCode = failure.code;
        const key = (call.keyId ?? partitionOf(apiKey)).slice(0, 8);
        reportUpstreamFailure({ route: endpoint.route, status, code: failure.code, detail: failure.detail ?? failure.upstream.message, key });
      }
      for (const observer of this.observers) {
        try {
          observer(observation);
        } catch {
          // An observer (metrics) must never change the outcome of a request.
        }
      }
    };

    // One deadline for the whole exchange: waiting for this key's connection, connect,
    // headers and the complete body. undici's own timeouts only bound idle time.
    const controller = new AbortController();
    const deadline = setTimeout(() => controller.abort(new Abandoned('deadline')), this.timeoutMs);
    let statusCode: number | null = null;
    let responseHeaders: Record<string, string | string[] | undefined> = {};
    let text: string;
    let bytes = 0;
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
      statusCode = response.statusCode;
      responseHeaders = response.headers;
      const declared = Number(responseHeaders['content-length']);
      if (Number.isFinite(declared) && declared > this.maxBodyBytes) controller.abort(new Abandoned('too-large'));
      // A JSON body's nesting is followed as it streams (see json-nesting.ts): a hostile
      // one is abandoned at the first bracket past the limit, before anything parses it.
      const nesting = isJson(String(responseHeaders['content-type'] ?? '')) ? new JsonNesting(this.maxJsonDepth, this.maxContainers) : null;
      // Always consume the body, also on errors, so the connection returns to the pool;
      // but never more of it than the limits allow.
      const chunks: Buffer[] = [];
      let sinceTurn = 0;
      for await (const chunk of response.body) {
        const buffer = chunk as Buffer;
        bytes += buffer.length;
        sinceTurn += buffer.length;
        if (sinceTurn >= READ_SLICE_BYTES) {
          // Chunks already buffered arrive as microtasks, without a turn of the event loop
          // between them: give other requests one every slice.
          sinceTurn = 0;
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
        if (bytes > this.maxBodyBytes) {
          controller.abort(new Abandoned('too-large'));
          break;
        }
        if (nesting && !nesting.feed(buffer)) {
          controller.abort(new Abandoned(nesting.exceeded === 'containers' ? 'too-many-containers' : 'too-deep', nesting.exceededAt));
          break;
        }
        chunks.push(buffer);
      }
      if (controller.signal.aborted) throw controller.signal.reason;
      text = Buffer.concat(chunks, bytes).toString('utf8');
    } catch (error) {
      const reason = controller.signal.aborted ? controller.signal.reason : error;
      const failure = transportFailure(endpoint, reason, statusCode, secrets, { timeoutMs: this.timeoutMs, maxBodyBytes: this.maxBodyBytes, maxJsonDepth: this.maxJsonDepth, maxContainers: this.maxContainers });
      finish(statusCode, failure);
      throw failure;
    } finally {
      clearTimeout(deadline);
      release?.();
    }

    const contentType = String(responseHeaders['content-type'] ?? '');
    const parsed = parseBody(text, contentType);
    if (statusCode >= 200 && statusCode < 300) {
      if (parsed.ok) {
        finish(statusCode);
        return { status: statusCode, body: parsed.value, bytes };
      }
      const failure = new UpstreamError('UPSTREAM_ERROR', endpoint, {
        status: statusCode,
        endpoint: endpoint.route,
        message: 'invalid JSON in the response',
      });
      withDetail(failure, `invalid JSON in a ${bytes}-byte response: ${safeTexts(parsed.reason, secrets, 'JSON.parse failed').detail}`);
      finish(statusCode, failure);
      throw failure;
    }
    const failure = statusFailure(endpoint, statusCode, parsed.ok ? parsed.value : text, responseHeaders, secrets, this.maxRetryAfterSeconds);
    finish(statusCode, failure);
    throw failure;
  }

  /** Closes the connection pool (only when the client created it). */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }
}

type Parsed = { ok: true; value: unknown } | { ok: false; reason: string };

function isJson(contentType: string): boolean {
  return /\bjson\b/i.test(contentType);
}

function parseBody(text: string, contentType: string): Parsed {
  if (!isJson(contentType)) return { ok: true, value: text };
  if (text.trim() === '') return { ok: true, value: null };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

/** Longest upstream text passed on to clients (in `extensions.upstream.message` and the error message), in characters. */
export const MAX_MESSAGE_LENGTH = 200;
/** Longest upstream text kept whole for the log (the error's `detail`), in characters; the rest is cut with a note. */
export const MAX_DETAIL_LENGTH = 16 * 1024;
/** How much of a text is looked at for the client's cut, in characters (markup may take most of it). */
const CLIENT_SOURCE_LENGTH = 64 * 1024;

/**
 * What a client is shown of an upstream text: markup stripped (see {@link stripMarkup};
 * whitespace runs collapsed to one space), then cut to {@link MAX_MESSAGE_LENGTH}
 * characters. The client's own texts go through {@link safeTexts}, which redacts
 * before it cuts (stripping can join the pieces of an echo).
 */
function clientText(text: string): string {
  return plainText(text).slice(0, MAX_MESSAGE_LENGTH);
}

/** The text's first {@link CLIENT_SOURCE_LENGTH} characters without markup, whitespace collapsed. */
function plainText(text: string): string {
  return stripMarkup(text.slice(0, CLIENT_SOURCE_LENGTH)).replace(/\s+/g, ' ').trim();
}

/**
 * The text without HTML/XML markup: tags, comments, and whole `<script>` and `<style>`
 * elements become a space; a `<` that starts no tag ("a < b") stays. Linear in the
 * text's length (each search starts where the last ended; an unclosed construct runs
 * to the end), so a hostile text of unclosed tags costs no more than any other.
 */
function stripMarkup(text: string): string {
  const lower = text.toLowerCase();
  let out = '';
  let from = 0;
  for (;;) {
    const open = lower.indexOf('<', from);
    if (open < 0) return out + text.slice(from);
    out += text.slice(from, open);
    const next = lower.charAt(open + 1);
    if (!/[a-z!/?]/.test(next)) {
      out += '<';
      from = open + 1;
      continue;
    }
    out += ' ';
    const element = /^<(script|style)\b/.exec(lower.slice(open, open + 8))?.[1];
    if (lower.startsWith('<!--', open)) from = after(lower, '-->', open + 4);
    else if (element) from = after(lower, '>', after(lower, `</${element}`, open) - 1);
    else from = after(lower, '>', open);
  }
}

/** The index just past the first `token` at or after `from`, or the text's end when there is none. */
function after(text: string, token: string, from: number): number {
  const at = text.indexOf(token, from);
  return at < 0 ? text.length : at + token.length;
}

/**
 * The upstream's text for the client (see {@link clientText}) and for the log (whole, up
 * to {@link MAX_DETAIL_LENGTH}), with the key and secret removed in every form (see
 * {@link Redactor}); when a secret is too short to be recognised, a neutral text
 * replaces both. Redacts before cutting, so no piece of a key survives the cut.
 */
function safeTexts(message: string, secrets: readonly string[], fallback: string): { shown: string; detail: string } {
  const redactor = new Redactor(secrets);
  const withheld = `${fallback} (message withheld: it may echo the credentials)`;
  // Enough beyond the cut that an echo crossing it is still seen whole.
  const shown = redactor.redact(plainText(message).slice(0, MAX_MESSAGE_LENGTH * 2 + 256));
  const whole = redactor.redact(message.slice(0, MAX_DETAIL_LENGTH + 256));
  if (shown === null || whole === null) return { shown: withheld, detail: withheld };
  const cut = message.length > MAX_DETAIL_LENGTH ? ` … (cut at ${MAX_DETAIL_LENGTH} of ${message.length} characters)` : '';
  return { shown: shown.slice(0, MAX_MESSAGE_LENGTH), detail: whole.slice(0, MAX_DETAIL_LENGTH) + cut };
}

/**
 * The `message` of the upstream's error body `{statusCode, message, error}`, or the raw
 * text, as a client would see it: markup stripped, cut to {@link MAX_MESSAGE_LENGTH}
 * (not redacted: the client redacts with the request's secrets).
 */
export function upstreamMessage(body: unknown): string {
  return clientText(rawMessage(body));
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
  maxRetryAfterSeconds: number,
): UpstreamError {
  const texts = safeTexts(rawMessage(body), secrets, `HTTP ${status}`);
  const upstream: UpstreamErrorInfo = { status, endpoint: endpoint.route, message: texts.shown || `HTTP ${status}` };
  return withDetail(statusError(endpoint, status, upstream, headers, maxRetryAfterSeconds), `HTTP ${status}: ${texts.detail}`);
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
interface Limits {
  timeoutMs: number;
  maxBodyBytes: number;
  maxJsonDepth: number;
  maxContainers: number;
}

function transportFailure(endpoint: Endpoint, error: unknown, status: number | null, secrets: readonly string[], limits: Limits): UpstreamError {
  if (error instanceof Abandoned) {
    // A deadline means no complete answer: status null, so the retry rules treat it as the
    // timeout it is (never retried), whatever status line came before the body stalled.
    if (error.why === 'deadline') {
      const message = `no complete answer within the ${limits.timeoutMs} ms deadline`;
      return withDetail(new UpstreamError('UPSTREAM_TIMEOUT', endpoint, { status: null, endpoint: endpoint.route, message }), message);
    }
    const message =
      error.why === 'too-large'
        ? `response body larger than the limit of ${limits.maxBodyBytes} bytes; abandoned`
        : error.why === 'too-many-containers'
          ? `JSON with more than ${limits.maxContainers} arrays and objects; abandoned`
          : `JSON nested deeper than ${limits.maxJsonDepth} levels; abandoned`;
    const at = error.at === null ? '' : ` (at byte ${error.at})`;
    return withDetail(new UpstreamError('UPSTREAM_ERROR', endpoint, { status, endpoint: endpoint.route, message }), `${message}${at}`);
  }
  const code = errorCode(error);
  const texts = safeTexts(error instanceof Error ? error.message : 'request failed', secrets, 'request failed');
  const upstream: UpstreamErrorInfo = { status, endpoint: endpoint.route, message: code ? `${code}: ${texts.shown}` : texts.shown };
  const failure = new UpstreamError(code && TIMEOUT_CODES.has(code) ? 'UPSTREAM_TIMEOUT' : 'UPSTREAM_ERROR', endpoint, upstream);
  return withDetail(failure, code ? `${code}: ${texts.detail}` : texts.detail);
}

function withDetail(failure: UpstreamError, detail: string): UpstreamError {
  failure.detail = detail;
  return failure;
}

/** The whole message text of an error body, uncut (cut after redaction). */
function rawMessage(body: unknown): string {
  if (typeof body === 'string') return body;
  if (body && typeof body === 'object') {
    const message: unknown = (body as Record<string, unknown>).message;
    if (typeof message === 'string') return message;
    if (Array.isArray(message)) {
      const joined = message.filter((m): m is string => typeof m === 'string').join('; ');
      if (joined) return joined;
    }
    const error: unknown = (body as Record<string, unknown>).error;
    if (typeof error === 'string') return error;
  }
  return '';
}

/** The partition of a key in the connection gate when the caller gave no key id: a hash, never the key. */
function partitionOf(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex').slice(0, 32);
}

/** undici's `err.code`, or the code of its `cause` (Node's own socket errors). */
function errorCode(error: unknown): string | undefined {
  if (!error || typeof error !== 'object') return undefined;
  const code: unknown = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  const cause: unknown = (error as { cause?: unknown }).cause;
  return cause ? errorCode(cause) : undefined;
}
