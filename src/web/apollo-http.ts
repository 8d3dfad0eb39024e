import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HeaderMap } from '@apollo/server';
import type { ApolloServer, BaseContext } from '@apollo/server';
import Negotiator from 'negotiator';
import { nextSlice } from '../graph/execution/turn-slices';
import { checkRequestShape } from '../graph/validation/document-limits';
import type { RefusalAnswer } from '../pipeline/pipeline';
import { readBody } from './read-body';

/**
 * The bridge between `node:http` and Apollo Server 5's `executeHTTPGraphQLRequest`:
 * what an Apollo integration package does, in one small module, so the gateway and
 * the benchmark's bare-Apollo floor share the same HTTP layer.
 */

/** The request body was larger than allowed (the caller answers 413 and closes). */
export class BodyTooLargeError extends Error {
  constructor(
    /** The bytes read when reading stopped (more than the limit). */
    readonly bytes: number,
    /** The request's headers, once {@link readGraphQLRequest} knows them. */
    readonly request: ReadRequest = { kind: 'request', headers: new HeaderMap(), body: undefined },
  ) {
    super(`The request body exceeds the limit (${bytes} bytes read).`);
  }
}

/** Writes a JSON response with a Content-Length. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** The media types of a GraphQL response, as Apollo Server writes them. */
const GRAPHQL_RESPONSE_TYPES = ['application/json; charset=utf-8', 'application/graphql-response+json; charset=utf-8'];

/**
 * The content type of a GraphQL error answer, chosen from the request's `Accept` the way
 * Apollo Server chooses it for its own answers (GraphQL over HTTP):
 * `application/graphql-response+json` when the client prefers it, otherwise
 * `application/json` (also when `Accept` is missing, `*` or names neither).
 */
export function graphQLResponseType(accept: string | string[] | undefined): string {
  const header = Array.isArray(accept) ? accept.join(', ') : accept;
  if (!header) return 'application/json; charset=utf-8';
  return (
    new Negotiator({ headers: { accept: header } }).mediaType(GRAPHQL_RESPONSE_TYPES) ??
    'application/json; charset=utf-8'
  );
}

/** One error of a GraphQL error answer: a message and its `extensions.code`. */
export interface RequestError {
  /** What is wrong, for the client developer. */
  message: string;
  /** The `extensions.code`. */
  code: string;
  /** Further extensions (e.g. a refused token's `reason`), beside the code. */
  extensions?: Readonly<Record<string, unknown>>;
}

/**
 * Writes a GraphQL-over-HTTP error answer `{"errors": [...]}` for a request the gateway
 * refuses before it reaches the request pipeline (malformed JSON or UTF-8, method), in the
 * content type the request's `Accept` asks for. The pipeline's refusals are written by
 * {@link sendRefusalAnswer}.
 */
export function sendGraphQLErrors(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  errors: RequestError[],
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify({
    errors: errors.map(({ message, code, extensions }) => ({ message, extensions: { ...extensions, code } })),
  });
  res.writeHead(status, {
    ...headers,
    'content-type': graphQLResponseType(req.headers.accept),
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** Limits applied while reading a request, before anything parses its document. */
export interface RequestLimits {
  /** Largest body, bytes (`MAX_BODY_BYTES`); past it {@link BodyTooLargeError}. */
  maxBodyBytes: number;
  /**
   * Largest `variables`, bytes of JSON (`MAX_VARIABLES_BYTES`); past it HTTP 413. When
   * given, the reader checks the request's sizes itself (`checkRequestShape`, as the
   * benchmark's bare-Apollo floor does); the gateway leaves it out: its pipeline's
   * `document-size` step checks them for every transport.
   */
  maxVariablesBytes?: number;
}

/** A request the gateway answers itself, with an HTTP status and one error, before Apollo sees it. */
export interface Refusal {
  /** Always `refused`. */
  kind: 'refused';
  /** The HTTP status. */
  status: 400 | 413;
  /** The `extensions.code`. */
  code: 'BAD_REQUEST' | 'GRAPHQL_PARSE_FAILED';
  /** What is wrong. */
  message: string;
}

/** A GraphQL request as read: headers, and the body (a parsed JSON value or text; none for GET). */
export interface ReadRequest {
  /** Always `request`. */
  kind: 'request';
  /** The request headers, one value per name (repeated headers joined with `, `). */
  headers: HeaderMap;
  /** A JSON body parsed, any other body as text, undefined for GET. */
  body: unknown;
  /** A POST body's text exactly as read (before any parse); absent for GET. */
  text?: string;
}

/** A body's text: its bytes checked to be UTF-8, decoded, a byte order mark dropped (as a fatal `TextDecoder` decodes); null when they are not UTF-8. */
function utf8Text(bytes: Buffer): string | null {
  if (!isUtf8(bytes)) return null;
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function refuse(status: Refusal['status'], code: Refusal['code'], message: string): Refusal {
  return { kind: 'refused', status, code, message };
}

/** {@link checkRequestShape}'s refusal, when the limits ask the reader to check sizes. */
function shapeRefusal(query: unknown, variables: unknown, limits: RequestLimits): Refusal | null {
  if (limits.maxVariablesBytes === undefined) return null;
  const refusal = checkRequestShape(query, variables, { maxVariablesBytes: limits.maxVariablesBytes });
  return refusal ? { kind: 'refused', ...refusal } : null;
}

/** The request's headers as Apollo reads them: one value per name (repeated headers joined with `, `). */
function headerMap(req: IncomingMessage): HeaderMap {
  const headers = new HeaderMap();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return headers;
}

/** Bodies up to this many bytes are kept on their connection (see {@link readGraphQLRequest}). */
const LAST_BODY_MAX_BYTES = 16 * 1024;

/** Where a connection keeps the body of its last POST, as read (see {@link readGraphQLRequest}). */
const LAST_BODY = Symbol('lastBody');

/** A connection with its last POST body: its bytes (a copy), its `Content-Type`, its text and what was read from it. */
type BodySocket = IncomingMessage['socket'] & {
  [LAST_BODY]?: {
    bytes: Buffer;
    contentType: string | undefined;
    /** The limit its sizes were checked against (see {@link RequestLimits.maxVariablesBytes}). */
    maxVariablesBytes: number | undefined;
    text: string;
    body: unknown;
  };
};

/** `value` and everything in it frozen: a parsed body handed to several requests is never changed by one of them. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

/** A request as read, its header map built when first read (a response-cache hit answered before Apollo never reads it). */
class LazyReadRequest implements ReadRequest {
  readonly kind = 'request';
  private map: HeaderMap | undefined;
  text?: string;

  constructor(
    private readonly req: IncomingMessage,
    readonly body: unknown,
  ) {}

  get headers(): HeaderMap {
    return (this.map ??= headerMap(this.req));
  }
}

/** A request as read (see {@link LazyReadRequest}). */
function readRequest(req: IncomingMessage, body: unknown, text?: string): ReadRequest {
  const read = new LazyReadRequest(req, body);
  if (text !== undefined) read.text = text;
  return read;
}

/**
 * Reads a GraphQL request's headers and body: JSON bodies parsed (Apollo expects an
 * object), other bodies as text (the gateway's `http-shape` step, or Apollo, explains what it cannot use). Refused with a
 * client error before Apollo sees it: a body that is not UTF-8, JSON that does not
 * parse, and, when `limits.maxVariablesBytes` is given, what `checkRequestShape` refuses
 * (for GET, in the query string).
 *
 * A POST body of at most {@link LAST_BODY_MAX_BYTES} is kept on its connection (a copy of
 * its bytes, its text, its parsed value frozen): the next request on the connection with
 * the same bytes and `Content-Type`, read with the same `maxVariablesBytes`, gets the same
 * text and value without decoding and parsing them again (a client polling one operation
 * over keep-alive).
 *
 * @throws BodyTooLargeError past `maxBodyBytes`.
 */
export async function readGraphQLRequest(req: IncomingMessage, limits: RequestLimits): Promise<ReadRequest | Refusal> {
  const read = await readMeasuredRequest(req, limits);
  if (read.kind === 'too-large') throw new BodyTooLargeError(read.bodyBytes, read.request);
  return read;
}

/** A POST body over `maxBodyBytes` as {@link readMeasuredRequest} answers it: the bytes read, and the headers. */
export interface TooLargeRead {
  /** Always `too-large`. */
  kind: 'too-large';
  /** The bytes read when reading stopped (more than the limit). */
  bodyBytes: number;
  /** The request's headers (no body). */
  request: ReadRequest;
}

/**
 * {@link readGraphQLRequest}, with a body over `maxBodyBytes` answered as a {@link TooLargeRead}
 * instead of thrown: its promise settles as the body ends, with no turn between.
 */
export function readMeasuredRequest(
  req: IncomingMessage,
  limits: RequestLimits,
): Promise<ReadRequest | Refusal | TooLargeRead> {
  if (req.method !== 'POST') {
    const params = new URL(req.url ?? '/', 'http://gateway.invalid').searchParams;
    const refusal = shapeRefusal(params.get('query'), params.get('variables') ?? undefined, limits);
    return Promise.resolve(refusal ?? readRequest(req, undefined));
  }
  return readBody<ReadRequest | Refusal | TooLargeRead>(req, limits.maxBodyBytes, {
    body: (bytes) => postRequest(req, bytes, limits),
    tooLarge: (bodyBytes) => ({ kind: 'too-large', bodyBytes, request: readRequest(req, undefined) }),
    failed: () => refuse(400, 'BAD_REQUEST', 'The request body is not valid UTF-8.'),
  });
}

/** A POST request of {@link readMeasuredRequest}, its body's bytes read. */
function postRequest(req: IncomingMessage, bytes: Buffer, limits: RequestLimits): ReadRequest | Refusal {
  const contentType = req.headers['content-type'];
  const socket = req.socket as BodySocket;
  const last = socket[LAST_BODY];
  // The same bytes as the connection's previous request: the same text and parsed body, not decoded again.
  if (
    last !== undefined &&
    last.contentType === contentType &&
    last.maxVariablesBytes === limits.maxVariablesBytes &&
    last.bytes.equals(bytes)
  )
    return readRequest(req, last.body, last.text);
  const text = utf8Text(bytes);
  if (text === null) return refuse(400, 'BAD_REQUEST', 'The request body is not valid UTF-8.');
  let body: unknown = text;
  if (/application\/(graphql-response\+)?json/i.test(contentType ?? '') && text !== '') {
    try {
      body = JSON.parse(text) as unknown;
    } catch {
      return refuse(400, 'BAD_REQUEST', 'The request body is not valid JSON.');
    }
    if (body && typeof body === 'object' && !Array.isArray(body)) {
      const fields = body as Record<string, unknown>;
      const refusal = shapeRefusal(fields.query, fields.variables, limits);
      if (refusal) return refusal;
    }
  }
  if (bytes.length <= LAST_BODY_MAX_BYTES)
    socket[LAST_BODY] = {
      bytes: Buffer.from(bytes),
      contentType,
      maxVariablesBytes: limits.maxVariablesBytes,
      text,
      body: deepFreeze(body),
    };
  return readRequest(req, body, text);
}

/** Answers a {@link Refusal}: its status and `{errors: [{message, extensions: {code}}]}`, in the type `Accept` asks for. */
export function sendRefusal(req: IncomingMessage, res: ServerResponse, refusal: Refusal): void {
  sendGraphQLErrors(req, res, refusal.status, [{ message: refusal.message, code: refusal.code }]);
}

/** Writes a refusal of the request pipeline (`RequestPipeline.refuse`): its status, headers and text, in the type `Accept` asks for. */
export function sendRefusalAnswer(req: IncomingMessage, res: ServerResponse, answer: RefusalAnswer): void {
  res.writeHead(answer.status, {
    ...answer.headers,
    'content-type': graphQLResponseType(req.headers.accept),
    'content-length': Buffer.byteLength(answer.text),
  });
  res.end(answer.text);
}

/** Characters of a response's text written in one slice of sliced work: a larger text is written in several. */
const WRITE_SLICE_CHARS = 128 * 1024;

/**
 * Writes `text` and ends the response: a large text in parts of about
 * {@link WRITE_SLICE_CHARS} characters, each in a slice of sliced work (turn-slices.ts),
 * so encoding and sending a response of megabytes does not hold the event loop in one turn.
 * A part never ends between the two halves of a surrogate pair.
 */
async function endInSlices(res: ServerResponse, text: string): Promise<void> {
  let from = 0;
  while (text.length - from > WRITE_SLICE_CHARS) {
    let to = from + WRITE_SLICE_CHARS;
    const last = text.charCodeAt(to - 1);
    if (last >= 0xd800 && last <= 0xdbff) to -= 1;
    res.write(text.slice(from, to));
    from = to;
    await nextSlice();
    // The client went away meanwhile: nothing more to send.
    if (res.destroyed) return;
  }
  res.end(from === 0 ? text : text.slice(from));
}

/**
 * Runs one HTTP GraphQL request on Apollo and writes its response (single or
 * incremental), as Apollo wrote it (the gateway's result phase, response size included,
 * ran in Apollo's plugins: see `RequestPipeline.resultPhase`).
 */
export async function executeOnApollo<TContext extends BaseContext>(
  apollo: ApolloServer<TContext>,
  req: IncomingMessage,
  res: ServerResponse,
  request: { headers: HeaderMap; body: unknown; search: string; context: () => Promise<TContext> },
): Promise<void> {
  const response = await apollo.executeHTTPGraphQLRequest({
    httpGraphQLRequest: {
      method: req.method ?? 'GET',
      headers: request.headers,
      search: request.search,
      body: request.body,
    },
    context: request.context,
  });
  const outHeaders: Record<string, string> = {};
  for (const [name, value] of response.headers) outHeaders[name] = value;
  if (response.body.kind === 'complete') {
    const text = response.body.string;
    delete outHeaders['content-length'];
    res.writeHead(response.status ?? 200, { ...outHeaders, 'content-length': String(Buffer.byteLength(text)) });
    if (text.length > WRITE_SLICE_CHARS) await endInSlices(res, text);
    else res.end(text);
    return;
  }
  res.writeHead(response.status ?? 200, outHeaders);
  for await (const chunk of response.body.asyncIterator) res.write(chunk);
  res.end();
}
