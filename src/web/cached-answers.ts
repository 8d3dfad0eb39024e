import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHitContext, wantsNoCache } from '../context';
import { singleResultType } from '../pipeline/http-checks';
import type { HttpRequestFacts } from '../pipeline/http-checks';
import type { KeyInUse } from '../pipeline/key-in-use';
import type { GatewayRuntime } from '../runtime';
import { responseSession } from '../graph/response-cache/response-cache-hits';
import type { ResponseCacheHits } from '../graph/response-cache/response-cache-hits';

/** Members a body may have to be answered before Apollo (any other, e.g. `extensions`, goes through Apollo). */
const PLAIN_MEMBERS = new Set(['query', 'operationName', 'variables']);

/**
 * One value of a header (repeated ones joined), as Apollo's header map holds it. Called
 * with `req.headers.<name>`, a name written out: V8 then reads each header on its fast
 * path (a name passed in made every read a generic one).
 */
function one(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * The response cache's session of a caller whose hits may be answered here: the caller's
 * own API key, or an access token over one character (its `token` step has run; a link
 * to its entry was made only after Apollo ran its grants on the same raw request, and a
 * token's grants never change); null for any other (the site's key, a token over several
 * characters, none).
 */
function hitSession(inUse: KeyInUse | null): string | null {
  if (inUse?.source === 'caller') return responseSession(inUse.key.keyId, null);
  if (inUse?.source === 'token' && inUse.characters.length === 1) {
    // A token's keys are one object per token of the opened vault (see tokenKey): its session is built once.
    let session = tokenSessions.get(inUse);
    if (session === undefined) tokenSessions.set(inUse, (session = responseSession(inUse.key.keyId, inUse.token.id)));
    return session;
  }
  return null;
}

/** The session of each token's keys ({@link hitSession}), by the keys' object (never a token's text). */
const tokenSessions = new WeakMap<KeyInUse, string>();

/** Bodies up to this many characters have their request key kept on their connection ({@link requestKeyOf}). */
const KEPT_KEY_MAX_CHARS = 8 * 1024;
/** Where a connection keeps its last request's key (see {@link requestKeyOf}). */
const LAST_KEY = Symbol('lastRequestKey');
/** A connection with its last request's body text, session and request key. */
type KeySocket = IncomingMessage['socket'] & {
  [LAST_KEY]?: { readonly text: string; readonly session: string; readonly requestKey: string };
};

/**
 * `hits.requestKey(session, text)`, kept on the connection for its next request: a client
 * polling one operation sends the same text (the same string, kept by the body's reader)
 * with the same session, and finds the same key string at once (no text compared, joined or
 * hashed). Only for a text of at most {@link KEPT_KEY_MAX_CHARS}: such a body is kept on its
 * connection by its reader too (see `readGraphQLRequest`), a larger one is not kept at all.
 */
function requestKeyOf(req: IncomingMessage, hits: ResponseCacheHits, session: string, text: string): string {
  const socket = req.socket as KeySocket;
  const last = socket[LAST_KEY];
  if (last !== undefined && last.text === text && last.session === session) return last.requestKey;
  const requestKey = hits.requestKey(session, text);
  if (text.length <= KEPT_KEY_MAX_CHARS) socket[LAST_KEY] = { text, session, requestKey };
  return requestKey;
}

/** Stored answers up to this many bytes are written from one buffer with their extensions ({@link wholeAnswer}). */
const WHOLE_ANSWER_MAX_BYTES = 32 * 1024;
/** Most answers {@link wholeAnswer} keeps (then it starts afresh): at most 2 MiB. */
const WHOLE_ANSWERS_MAX = 64;
/** The answer last written for each stored head: its text after the head, and both in one buffer once written twice. */
const wholeAnswers = new Map<Buffer, { readonly tail: string; bytes: Buffer | null }>();

/**
 * The stored bytes `head` and the text after them in one buffer, made the second time the
 * same entry is answered with the same text (its age changes once a second) and kept for
 * the next times: written as the bytes floor writes its answer, one buffer after the
 * headers. Null the first time (many keys answered in turn copy nothing), and for a head
 * over {@link WHOLE_ANSWER_MAX_BYTES}: those are written in two parts.
 */
function wholeAnswer(head: Buffer, tail: string): Buffer | null {
  if (head.length > WHOLE_ANSWER_MAX_BYTES) return null;
  const known = wholeAnswers.get(head);
  if (known !== undefined && known.tail === tail) return (known.bytes ??= Buffer.concat([head, Buffer.from(tail)]));
  if (known === undefined && wholeAnswers.size >= WHOLE_ANSWERS_MAX) wholeAnswers.clear();
  wholeAnswers.set(head, { tail, bytes: null });
  return null;
}

/** What {@link answerFromResponseCache} decided. */
export type CachedOutcome =
  /** Answered from the cache: the response is written. */
  | { readonly kind: 'answered' }
  /** Not answered: run the request on Apollo, with this request key in its context (`responseHitKey`), when it has one. */
  | { readonly kind: 'apollo'; readonly requestKey: string | undefined };

const NOT_ELIGIBLE: CachedOutcome = { kind: 'apollo', requestKey: undefined };
const ANSWERED: CachedOutcome = { kind: 'answered' };

/**
 * Answers a GraphQL POST of an API key from the per-key response cache before Apollo
 * Server runs any of its pipeline, when Apollo answered the same raw request of the same
 * key from an entry that is still there (see `ResponseCacheHits`): the request phase
 * (credential, limits, public site) has run; the text and headers are those Apollo
 * writes for a hit (content type as Apollo negotiates it, `age`, `content-length`), and
 * the result phase runs as for a hit through Apollo (`extensions.upstream`, the report).
 *
 * Only the plainest requests: POST with `Content-Type: application/json`, a body of only
 * `query`, `operationName` and `variables`, the caller's own API key or an access token
 * over one character (not the site's key, not a token over several), no `Prefer`, no
 * `Cache-Control: no-cache`. Anything else, and every miss, runs on Apollo as before.
 *
 * The request is identified by its session (key id, and a token's id) and its body's text
 * exactly as read (`ResponseCacheHits.requestKey`); the stored bytes are written as they
 * are, after one `writeHead`. A token's request is linked to an entry only once Apollo
 * ran the whole pipeline on the same raw request with the same token (its grants
 * included), so an entry it is answered from holds nothing its grants do not allow.
 *
 * @param http - the request's facts as the HTTP steps read them (its content type read once)
 * @param body - the request body as admitted (a trusted document's text in place of its hash)
 * @param text - the request body's text as read (undefined: not answered here)
 */
export function answerFromResponseCache(
  req: IncomingMessage,
  res: ServerResponse,
  runtime: GatewayRuntime,
  http: HttpRequestFacts,
  inUse: KeyInUse | null,
  body: unknown,
  text: string | undefined,
): CachedOutcome {
  const answers = runtime.responseCacheHits;
  const session = hitSession(inUse);
  if (
    answers === null ||
    inUse === null ||
    session === null ||
    req.method !== 'POST' ||
    text === undefined ||
    body === null ||
    typeof body !== 'object' ||
    Array.isArray(body)
  )
    return NOT_ELIGIBLE;
  const headers = req.headers;
  if (http.contentType?.json !== true || one(headers.prefer) !== undefined) return NOT_ELIGIBLE;
  const fields = body as Record<string, unknown>;
  for (const name in fields) if (!PLAIN_MEMBERS.has(name)) return NOT_ELIGIBLE;
  const { query, operationName } = fields;
  if (
    typeof query !== 'string' ||
    (operationName !== undefined && operationName !== null && typeof operationName !== 'string')
  )
    return NOT_ELIGIBLE;
  const key = inUse.key;
  const requestKey = requestKeyOf(req, answers.hits, session, text);
  const type = singleResultType(one(headers.accept));
  if (
    type === null ||
    wantsNoCache(one(headers['cache-control']), one(headers.pragma)) ||
    runtime.economy.invalidationsInDoubt()
  )
    return { kind: 'apollo', requestKey };
  const started = performance.now();
  const stored = answers.hits.find(requestKey, runtime.economy.generation(key.keyId));
  if (stored === undefined) return { kind: 'apollo', requestKey };
  // The plugin's age: whole seconds since it stored the answer.
  const ageSeconds = Math.round((Date.now() - stored.cacheTime) / 1000);
  const answer = answers.response(createHitContext(req.headers, inUse), {
    head: stored.head,
    ageSeconds,
    operationName: stored.operationName,
    started,
  });
  // The stored bytes and the extensions in one buffer, or a large answer's as they are: one write of the socket (corked).
  const whole = typeof answer === 'string' ? answer : wholeAnswer(answer.head, answer.tail);
  if (whole !== null) {
    const length = typeof whole === 'string' ? Buffer.byteLength(whole) : whole.length;
    res.writeHead(200, ['age', String(ageSeconds), 'content-type', type, 'content-length', String(length)]);
    res.end(whole);
    return ANSWERED;
  }
  const split = answer as Exclude<typeof answer, string>;
  res.cork();
  res.writeHead(200, [
    'age',
    String(ageSeconds),
    'content-type',
    type,
    'content-length',
    String(split.head.length + Buffer.byteLength(split.tail)),
  ]);
  res.write(split.head);
  res.end(split.tail);
  res.uncork();
  return ANSWERED;
}
