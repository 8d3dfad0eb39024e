import type { IncomingMessage, ServerResponse } from 'node:http';
import { HeaderMap } from '@apollo/server';
import type { ApolloServer, BaseContext } from '@apollo/server';
import Negotiator from 'negotiator';
import { MAX_DOCUMENT_NESTING, MAX_VARIABLES_NESTING, measureJson, textNesting } from '../graph/document-limits';

/**
 * The bridge between `node:http` and Apollo Server 5's `executeHTTPGraphQLRequest`:
 * what an Apollo integration package does, in one small module, so the gateway and
 * the benchmark's bare-Apollo floor share the same HTTP layer.
 */

/** The request body was larger than allowed (the caller answers 413 and closes). */
export class BodyTooLargeError extends Error {}

/** Writes a JSON response with a Content-Length. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
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
  return new Negotiator({ headers: { accept: header } }).mediaType(GRAPHQL_RESPONSE_TYPES) ?? 'application/json; charset=utf-8';
}

/** One error of a GraphQL error answer: a message and its `extensions.code`. */
export interface RequestError {
  message: string;
  code: string;
}

/**
 * Writes a GraphQL-over-HTTP error answer `{"errors": [...]}` for a request the gateway
 * refuses before execution (limits, malformed JSON, public-site refusal, batch, body too
 * large, method, malformed Authorization), in the content type the request's `Accept` asks for.
 */
export function sendGraphQLErrors(req: IncomingMessage, res: ServerResponse, status: number, errors: RequestError[], headers: Record<string, string> = {}, copies?: number): void {
  const result = { errors: errors.map(({ message, code }) => ({ message, extensions: { code } })) };
  // `copies`: one result per operation of a refused batch, so batching clients
  // (Apollo's BatchHttpLink) show the message on each operation.
  const text = JSON.stringify(copies === undefined ? result : Array.from({ length: copies }, () => result));
  res.writeHead(status, { ...headers, 'content-type': graphQLResponseType(req.headers.accept), 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) throw new BodyTooLargeError();
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

/** Limits applied while reading a request, before anything parses its document. */
export interface RequestLimits {
  /** Largest body, bytes (`MAX_BODY_BYTES`); past it {@link BodyTooLargeError}. */
  maxBodyBytes: number;
  /** Largest `variables`, bytes of JSON (`MAX_VARIABLES_BYTES`); past it HTTP 413. */
  maxVariablesBytes: number;
}

/** A request the gateway answers itself, with an HTTP status and one error, before Apollo sees it. */
export interface Refusal {
  kind: 'refused';
  status: 400 | 413;
  code: 'BAD_REQUEST' | 'GRAPHQL_PARSE_FAILED';
  message: string;
}

/** A GraphQL request as read: headers, and the body (a parsed JSON value or text; none for GET). */
export interface ReadRequest {
  kind: 'request';
  headers: HeaderMap;
  body: unknown;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function refuse(status: Refusal['status'], code: Refusal['code'], message: string): Refusal {
  return { kind: 'refused', status, code, message };
}

/**
 * Checks the document text and the variables of a request against the limits, without
 * parsing the document: `variables` over `maxVariablesBytes` (413), nested deeper than
 * {@link MAX_VARIABLES_NESTING}, or a document nested deeper than
 * {@link MAX_DOCUMENT_NESTING} (400). The variables are only measured, never serialized.
 */
export function checkRequestShape(query: unknown, variables: unknown, limits: RequestLimits): Refusal | null {
  if (typeof variables === 'string') {
    if (Buffer.byteLength(variables) > limits.maxVariablesBytes) return variablesTooLarge(limits);
    if (textNesting(variables, MAX_VARIABLES_NESTING, false) > MAX_VARIABLES_NESTING) return variablesTooDeep();
  } else if (variables !== undefined && variables !== null) {
    const measured = measureJson(variables, MAX_VARIABLES_NESTING, limits.maxVariablesBytes);
    if (measured.bytes > limits.maxVariablesBytes) return variablesTooLarge(limits);
    if (measured.depth > MAX_VARIABLES_NESTING) return variablesTooDeep();
  }
  if (typeof query === 'string' && textNesting(query, MAX_DOCUMENT_NESTING, true) > MAX_DOCUMENT_NESTING) {
    return refuse(400, 'GRAPHQL_PARSE_FAILED', `The document nests brackets deeper than ${MAX_DOCUMENT_NESTING} levels.`);
  }
  return null;
}

function variablesTooLarge(limits: RequestLimits): Refusal {
  return refuse(413, 'BAD_REQUEST', `The variables exceed ${limits.maxVariablesBytes} bytes.`);
}

function variablesTooDeep(): Refusal {
  return refuse(400, 'BAD_REQUEST', `The variables are nested deeper than ${MAX_VARIABLES_NESTING} levels.`);
}

/**
 * Reads a GraphQL request's headers and body: JSON bodies parsed (Apollo expects an
 * object), other bodies as text (Apollo explains what it cannot use). Refused with a
 * client error before Apollo sees it: a body that is not UTF-8, JSON that does not
 * parse, and what {@link checkRequestShape} refuses (for GET, in the query string).
 *
 * @throws BodyTooLargeError past `maxBodyBytes`.
 */
export async function readGraphQLRequest(req: IncomingMessage, limits: RequestLimits): Promise<ReadRequest | Refusal> {
  const headers = new HeaderMap();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  if (req.method !== 'POST') {
    const params = new URL(req.url ?? '/', 'http://gateway.invalid').searchParams;
    return checkRequestShape(params.get('query'), params.get('variables') ?? undefined, limits) ?? { kind: 'request', headers, body: undefined };
  }
  let text: string;
  try {
    text = utf8.decode(await readBody(req, limits.maxBodyBytes));
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw error;
    return refuse(400, 'BAD_REQUEST', 'The request body is not valid UTF-8.');
  }
  if (/application\/(graphql-response\+)?json/i.test(headers.get('content-type') ?? '') && text !== '') {
    let body: unknown;
    try {
      body = JSON.parse(text) as unknown;
    } catch {
      return refuse(400, 'BAD_REQUEST', 'The request body is not valid JSON.');
    }
    if (body && typeof body === 'object' && !Array.isArray(body)) {
      const fields = body as Record<string, unknown>;
      const refusal = checkRequestShape(fields.query, fields.variables, limits);
      if (refusal) return refusal;
    }
    return { kind: 'request', headers, body };
  }
  return { kind: 'request', headers, body: text };
}

/** Answers a {@link Refusal}: its status and `{errors: [{message, extensions: {code}}]}`, in the type `Accept` asks for. */
export function sendRefusal(req: IncomingMessage, res: ServerResponse, refusal: Refusal): void {
  sendGraphQLErrors(req, res, refusal.status, [{ message: refusal.message, code: refusal.code }]);
}

/**
 * The answer that replaces a response larger than `maxResponseBytes`: no data and one
 * `QUERY_TOO_EXPENSIVE` error saying so (the client should ask for less at once).
 */
export function responseTooLarge(bytes: number, maxResponseBytes: number): string {
  return JSON.stringify({
    data: null,
    errors: [
      {
        message: `The response would be ${bytes} bytes, more than the ${maxResponseBytes} bytes allowed (MAX_RESPONSE_BYTES). Ask for fewer fields, companies or pages at once.`,
        extensions: { code: 'QUERY_TOO_EXPENSIVE', responseBytes: bytes, maxResponseBytes },
      },
    ],
  });
}

/**
 * Runs one HTTP GraphQL request on Apollo and writes its response (single or
 * incremental). A single response over `request.maxResponseBytes` is replaced by
 * {@link responseTooLarge}.
 */
export async function executeOnApollo<TContext extends BaseContext>(
  apollo: ApolloServer<TContext>,
  req: IncomingMessage,
  res: ServerResponse,
  request: { headers: HeaderMap; body: unknown; search: string; context: () => Promise<TContext>; maxResponseBytes?: number },
): Promise<void> {
  const response = await apollo.executeHTTPGraphQLRequest({
    httpGraphQLRequest: { method: req.method ?? 'GET', headers: request.headers, search: request.search, body: request.body },
    context: request.context,
  });
  const outHeaders: Record<string, string> = {};
  for (const [name, value] of response.headers) outHeaders[name] = value;
  if (response.body.kind === 'complete') {
    let text = response.body.string;
    const max = request.maxResponseBytes;
    // A string of n UTF-16 units is at most 3n bytes: measure only when it could be over.
    if (max !== undefined && text.length * 3 > max) {
      const bytes = Buffer.byteLength(text);
      if (bytes > max) text = responseTooLarge(bytes, max);
    }
    delete outHeaders['content-length'];
    res.writeHead(response.status ?? 200, { ...outHeaders, 'content-length': String(Buffer.byteLength(text)) });
    res.end(text);
    return;
  }
  res.writeHead(response.status ?? 200, outHeaders);
  for await (const chunk of response.body.asyncIterator) res.write(chunk);
  res.end();
}
