/**
 * The checks of GraphQL over HTTP that come before the document is parsed: cross-site
 * request forgery, the body's or query string's shape, and the `Accept` header. Apollo
 * Server 5 made them inside `executeHTTPGraphQLRequest`; the request pipeline runs them as
 * `request` steps (steps.ts) with Apollo's statuses and messages, so a refused request
 * never reaches Apollo and answers as it did.
 */
import Negotiator from 'negotiator';
import { GraphQLError, Kind } from 'graphql';
import type { OperationDefinitionNode } from 'graphql';
import type { Refusal } from './refusals';

/**
 * Request headers whose (non-empty) presence shows a request is not a cross-site forgery:
 * a browser sends none of them cross-site without a CORS preflight the gateway controls.
 */
const CSRF_SAFE_HEADERS = ['authorization', 'x-api-secret', 'apollo-require-preflight', 'x-apollo-operation-name'];

/** What the HTTP steps read of an HTTP request beside its parameters: its method and headers. */
export interface HttpRequestFacts {
  /** `GET` or `POST` (the router answers any other method). */
  readonly method: 'GET' | 'POST';
  /** A header's value (repeated ones joined with `, `), or undefined. */
  header(name: string): string | undefined;
  /** Its `Content-Type` as {@link readContentType} read it (undefined when it has none): read once, handed on with the request. */
  readonly contentType: ContentType | undefined;
}

/**
 * A request's `Content-Type` as the HTTP steps and the response cache's early answer
 * (src/web/cached-answers.ts) read it: its essence for the CSRF and GET checks, and
 * whether Apollo Server reads a POST body with it as JSON.
 */
export interface ContentType {
  /** The header's value (repeated ones joined with `, `). */
  readonly value: string;
  /** Its essence (`type/subtype`, lower case) as the WHATWG MIME Sniffing Standard parses it, or null when it does not parse. */
  readonly essence: string | null;
  /** Whether it is a JSON content type as Apollo Server reads a body as JSON ({@link JSON_CONTENT_TYPE}). */
  readonly json: boolean;
}

/** A JSON content type, as Apollo Server reads a body as JSON. */
const JSON_CONTENT_TYPE = /^application\/json\s*(;|$)/i;

/** The content types a browser sends cross-site without a preflight (CORS-safelisted). */
const NON_PREFLIGHTED_CONTENT_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain'];

/** HTTP token code points (a MIME type's type and subtype). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** The last content type {@link readContentType} read: clients send the same one on every request. */
let lastContentType: ContentType | null = null;

/**
 * A `Content-Type` header's value as the HTTP steps read it ({@link ContentType}), made
 * once per value while requests send the same one; undefined for none.
 */
export function readContentType(value: string | undefined): ContentType | undefined {
  if (value === undefined) return undefined;
  if (lastContentType?.value !== value)
    lastContentType = { value, essence: parseMimeEssence(value), json: JSON_CONTENT_TYPE.test(value) };
  return lastContentType;
}

/** A content type's essence (`type/subtype`, lower case) as the WHATWG MIME Sniffing Standard parses it, or null when it does not parse. */
function parseMimeEssence(value: string): string | null {
  const text = value.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
  const slash = text.indexOf('/');
  if (slash <= 0) return null;
  const type = text.slice(0, slash);
  const end = text.indexOf(';', slash + 1);
  const subtype = text.slice(slash + 1, end < 0 ? undefined : end).replace(/[\t\n\r ]+$/, '');
  if (!TOKEN.test(type) || !TOKEN.test(subtype)) return null;
  return `${type}/${subtype}`.toLowerCase();
}

/** A 400 `BAD_REQUEST` as Apollo Server answers one (its answer ends with a newline). */
function badRequest(message: string, status = 400, headers?: Record<string, string>): Refusal {
  return { code: 'BAD_REQUEST', message, status, lineEnd: true, ...(headers ? { headers } : {}) };
}

const CSRF_REFUSAL = badRequest(
  `This operation has been blocked as a potential Cross-Site Request Forgery (CSRF). Please either specify a 'content-type' header (with a type that is not one of ${NON_PREFLIGHTED_CONTENT_TYPES.join(', ')}) or provide a non-empty value for one of the following headers: ${CSRF_SAFE_HEADERS.join(', ')}\n`,
);

/**
 * Cross-site request forgery, as Apollo Server's `csrfPrevention` decides it: a request
 * with no content type, or a CORS-safelisted one, must carry one of {@link CSRF_SAFE_HEADERS}.
 */
export function csrfRefusal(http: HttpRequestFacts): Refusal | null {
  const contentType = http.contentType;
  if (contentType !== undefined) {
    const essence = contentType.essence;
    if (essence === null || !NON_PREFLIGHTED_CONTENT_TYPES.includes(essence)) return null;
  }
  return CSRF_SAFE_HEADERS.some((name) => (http.header(name) ?? '') !== '') ? null : CSRF_REFUSAL;
}

const refusals = new Map<string, Refusal>();

/** The refusal with `message` (and a status other than 400), built once. */
function once(message: string, status?: number): Refusal {
  let refusal = refusals.get(message);
  if (!refusal) refusals.set(message, (refusal = badRequest(message, status)));
  return refusal;
}

/** An object that is not an array (a JSON object). */
function isRecord(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === 'object' && !Array.isArray(value) && !Buffer.isBuffer(value);
}

/** Whether `value` has no own enumerable member (as `Object.keys(value).length === 0`, without the array). */
function isEmpty(value: Record<string, unknown>): boolean {
  for (const name in value) if (Object.hasOwn(value, name)) return false;
  return true;
}

/** A POST body's `variables` or `extensions` sent as a JSON-encoded string: Apollo Server's refusal. */
function recursivelyEncoded(name: 'variables' | 'extensions'): Refusal {
  return once(`\`${name}\` in a POST body should be provided as an object, not a recursively JSON-encoded string.`);
}

/** A POST body's shape, as Apollo Server checks it. */
function postShapeRefusal(body: unknown): Refusal | null {
  if (!isRecord(body) || isEmpty(body))
    return once('POST body missing, invalid Content-Type, or JSON object has no keys.');
  const { query, variables, extensions, operationName } = body;
  if (query && typeof query !== 'string')
    return once(
      (query as { kind?: unknown }).kind === Kind.DOCUMENT
        ? "GraphQL queries must be strings. It looks like you're sending the internal graphql-js representation of a parsed query in your request instead of a request in the GraphQL query language. You can convert an AST to a string using the `print` function from `graphql`, or use a client like `apollo-client` which converts the internal representation to a string for you."
        : 'GraphQL queries must be strings.',
    );
  // Written out, not a loop over pairs: no arrays made for every request.
  if (typeof variables === 'string') return recursivelyEncoded('variables');
  if (typeof extensions === 'string') return recursivelyEncoded('extensions');
  if ('extensions' in body && extensions !== null && !isRecord(extensions))
    return once('`extensions` in a POST body must be an object if provided.');
  if ('variables' in body && variables !== null && !isRecord(variables))
    return once('`variables` in a POST body must be an object if provided.');
  if ('operationName' in body && operationName !== null && typeof operationName !== 'string')
    return once('`operationName` in a POST body must be a string if provided.');
  return null;
}

/** A GET request's content type and query string, as Apollo Server checks them. */
function getShapeRefusal(search: string, http: HttpRequestFacts): Refusal | null {
  const contentType = http.contentType;
  if (contentType !== undefined && contentType.essence !== 'application/json')
    return once('GET requests may not have a content-type header other than application/json.', 415);
  const params = new URLSearchParams(search);
  for (const name of ['query', 'operationName', 'variables', 'extensions']) {
    const values = params.getAll(name);
    if (values.length > 1) return once(`The '${name}' search parameter may only be specified once.`);
    if (values.length === 0 || (name !== 'variables' && name !== 'extensions')) continue;
    let value: unknown;
    try {
      value = JSON.parse(values[0] as string) as unknown;
    } catch {
      return once(`The ${name} search parameter contains invalid JSON.`);
    }
    if (!isRecord(value)) return once(`The ${name} search parameter should contain a JSON-encoded object.`);
  }
  return null;
}

/** The body's (POST) or query string's (GET) shape, as Apollo Server checks it before it reads the operation. */
export function shapeRefusal(body: unknown, search: string, http: HttpRequestFacts): Refusal | null {
  return http.method === 'POST' ? postShapeRefusal(body) : getShapeRefusal(search, http);
}

/** The media types of a single GraphQL result, in Apollo Server's order of preference. */
const SINGLE_RESULT_TYPES = ['application/json; charset=utf-8', 'application/graphql-response+json; charset=utf-8'];

/** Most `Accept` values whose negotiated type {@link singleResultType} remembers (then it starts afresh). */
const ACCEPT_MEMO_MAX = 64;
/** The negotiated type of each `Accept` value seen lately (clients send few distinct ones). */
const acceptTypes = new Map<string, string | null>();

/** The content type of a single GraphQL result for `accept`, exactly as Apollo Server chooses it; null when none is acceptable (406). */
export function singleResultType(accept: string | undefined): string | null {
  if (!accept) return 'application/json; charset=utf-8';
  let type = acceptTypes.get(accept);
  if (type === undefined) {
    type = new Negotiator({ headers: { accept } }).mediaType(SINGLE_RESULT_TYPES) ?? null;
    if (acceptTypes.size >= ACCEPT_MEMO_MAX) acceptTypes.clear();
    acceptTypes.set(accept, type);
  }
  return type;
}

const NOT_ACCEPTABLE = badRequest(
  `An 'accept' header was provided for this request which does not accept ${SINGLE_RESULT_TYPES.join(' or ')}`,
  406,
);

/** An `Accept` header that accepts no GraphQL result type: 406, as Apollo Server answers it. */
export function acceptRefusal(http: HttpRequestFacts): Refusal | null {
  return singleResultType(http.header('accept')) === null ? NOT_ACCEPTABLE : null;
}

/** An HTTP request without query text: Apollo Server's refusal (with the operation's upstream accounting, zeros). */
export const NO_HTTP_QUERY: Refusal = {
  code: 'BAD_REQUEST',
  message: 'GraphQL operations must contain a non-empty `query` or a `persistedQuery` extension.',
  status: 400,
};

/** Over GET, an operation that is not a query: 405 with `Allow: POST`, as Apollo Server answers it. */
export function getQueryOnlyError(
  http: HttpRequestFacts | undefined,
  operation: OperationDefinitionNode,
): GraphQLError | null {
  if (http?.method !== 'GET' || operation.operation === 'query') return null;
  return new GraphQLError(`GET requests only support query operations, not ${operation.operation} operations`, {
    extensions: { code: 'BAD_REQUEST', http: { status: 405, headers: { allow: 'POST' } } },
  });
}
