/**
 * The POST of a webhook delivery (payment events): undici's `request`, kept here because this
 * folder is the only importer of undici. Never follows redirects; the body of the answer is
 * read and dropped.
 *
 * Every POST obeys the outbound URL rules (outbound-url.ts): checked after DNS resolution
 * before it is sent, and again on the address the connection uses (the connector's `lookup`),
 * so neither an edited URL nor a name that changes its answer reaches a private address. One
 * delivery, headers and body together, takes at most `timeoutMs`: a receiver that answers and
 * then sends a byte now and then cannot hold a delivery longer than that.
 *
 * The body of a 429 is read (at most 16 KiB) for how long to wait: Discord's JSON
 * `retry_after` (seconds, fractional) or the `Retry-After` header, whichever is longer.
 */
import { Agent, request } from 'undici';
import type { Dispatcher } from 'undici';
import { OutboundUrlError, guardedLookup, resolveOutboundUrl } from './outbound-url';
import { parseRetryAfter } from './upstream-failures';
import type { HostResolver, OutboundRules } from './outbound-url';

/** The answer to one delivery attempt. */
export interface WebhookAnswer {
  /** The HTTP status, or 0 when there was none (refused URL, connection refused or reset, timed out). */
  readonly status: number;
  /** Why there was no status (a refused URL's rule, a timeout), or null. Never holds the body or headers. */
  readonly problem: string | null;
  /** For a 429: how long the receiver asked to wait, ms (its body's `retry_after` or its `Retry-After`), or null. */
  readonly retryAfterMs?: number | null;
}

/** The most of a 429's body read for its `retry_after`, bytes. */
const RETRY_BODY_LIMIT = 16 * 1024;

/** The wait a 429 asks for, ms: the longer of the JSON body's `retry_after` (seconds) and the `Retry-After` header; null when neither says. */
async function retryAfterOf(answer: Dispatcher.ResponseData, signal: AbortSignal): Promise<number | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of answer.body) {
    const buffer = Buffer.from(chunk as Uint8Array);
    size += buffer.length;
    if (size > RETRY_BODY_LIMIT || signal.aborted) break;
    chunks.push(buffer);
  }
  let fromBody: number | null = null;
  try {
    const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
    const seconds =
      parsed !== null && typeof parsed === 'object' ? (parsed as { retry_after?: unknown }).retry_after : undefined;
    if (typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0) fromBody = Math.ceil(seconds * 1000);
  } catch {
    // not JSON: the header may say
  }
  const header = parseRetryAfter(answer.headers['retry-after']);
  const fromHeader = header === null ? null : header * 1000;
  if (fromBody === null) return fromHeader;
  return fromHeader === null ? fromBody : Math.max(fromBody, fromHeader);
}

/** Sends one POST; never rejects. */
export type WebhookPoster = (url: string, headers: Record<string, string>, body: string) => Promise<WebhookAnswer>;

/** Options of {@link webhookPoster}. */
export interface WebhookPosterOptions extends OutboundRules {
  /** The longest one delivery may take, headers and body, ms (`WEBHOOK_TIMEOUT_MS`, default 10 000). */
  readonly timeoutMs: number;
  /** The resolver of host names (default: the system's). */
  readonly resolve?: HostResolver;
  /** The dispatcher (tests: an undici MockAgent); default two agents whose connectors check each address they connect to. */
  readonly dispatcher?: Dispatcher;
}

/**
 * A poster with its own connection agents (one for https, one for plain http to loopback):
 * see the module comment.
 */
export function webhookPoster(options: WebhookPosterOptions): WebhookPoster {
  const agents = options.dispatcher
    ? null
    : {
        'https:': new Agent({ connect: { lookup: guardedLookup(options, 'https:', options.resolve) } }),
        'http:': new Agent({ connect: { lookup: guardedLookup(options, 'http:', options.resolve) } }),
      };
  return async (url, headers, body) => {
    const abort = new AbortController();
    const timer = setTimeout(
      () => abort.abort(new Error(`no whole answer within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    try {
      const { url: checked } = await resolveOutboundUrl(url, options, options.resolve);
      const dispatcher = options.dispatcher ?? agents?.[checked.protocol as 'https:' | 'http:'];
      const answer = await request(checked, {
        method: 'POST',
        headers,
        body,
        dispatcher,
        signal: abort.signal,
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
      });
      if (answer.statusCode === 429)
        return { status: 429, problem: null, retryAfterMs: await retryAfterOf(answer, abort.signal) };
      await answer.body.dump({ signal: abort.signal, limit: 64 * 1024 });
      return { status: answer.statusCode, problem: null };
    } catch (error) {
      if (error instanceof OutboundUrlError) return { status: 0, problem: `refused: ${error.message}` };
      return {
        status: 0,
        problem: abort.signal.aborted ? `timed out: no whole answer within ${options.timeoutMs} ms` : 'no answer',
      };
    } finally {
      clearTimeout(timer);
    }
  };
}
