/**
 * The refusals of the request checks (steps.ts), as data: what each says, with which code
 * and HTTP status, and the functions that turn a refusal ({@link refusalError}) or an error
 * of a later phase ({@link clientError}) into the GraphQL error every transport writes. How
 * a refusal is written (the result phase's formatting, redaction and report) is
 * `RequestPipeline.refuse` (pipeline.ts).
 */
import { GraphQLError, Kind } from 'graphql';
import type { DocumentNode, OperationDefinitionNode } from 'graphql';
import { isGatewayError } from '../errors/gateway-error';
import { TOKEN_REFUSALS } from '../vault';
import type { TokenRefusal } from '../vault';

/** A request the pipeline refuses before execution: one error, and the HTTP status it is answered with over HTTP. */
export interface Refusal {
  /** The `extensions.code`. */
  readonly code: string;
  /** A sentence the client developer can act on. */
  readonly message: string;
  /** HTTP status over HTTP and on graphql-sse before its stream starts (400, 401, 413 or 429). */
  readonly status: number;
  /** Extra HTTP headers there (e.g. `WWW-Authenticate`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Further extensions (e.g. `limit`, `setting`). */
  readonly extensions?: Readonly<Record<string, unknown>>;
  /** A refused batch: the answer is an array of this many copies of the result (one per operation). */
  readonly copies?: number;
  /** Over HTTP, the answer's text ends with a newline (the refusals Apollo Server wrote before the pipeline did, byte for byte). */
  readonly lineEnd?: boolean;
}

/** The error of each refusal object, built once: a refusal that is a constant (a limit, a malformed key) costs no new error each time. */
const refusalErrors = new WeakMap<Refusal, GraphQLError>();

/** The GraphQL error a refusal is answered with, on every transport: its message, then its extensions with `code` last. */
export function refusalError(refusal: Refusal): GraphQLError {
  let error = refusalErrors.get(refusal);
  if (!error) {
    error = new GraphQLError(refusal.message, { extensions: { ...refusal.extensions, code: refusal.code } });
    refusalErrors.set(refusal, error);
  }
  return error;
}

/** A copy of a GraphQL error as a client receives it: `code` set (else `fallbackCode`), no `http` extension. */
export function clientError(error: GraphQLError, fallbackCode: string): GraphQLError {
  const source = isGatewayError(error.originalError) ? error.originalError : error;
  const { http: _http, ...extensions } = source.extensions as Record<string, unknown>;
  return new GraphQLError(source.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    extensions: { ...extensions, code: typeof extensions.code === 'string' ? extensions.code : fallbackCode },
  });
}

/**
 * An error of the `operation` phase as it is refused: its copy for the client
 * ({@link clientError}), and the HTTP status and headers of its `http` extension (as
 * Apollo Server reads them; 500 when it has none), and the operation's name and type for
 * the report and the trace.
 */
export function httpRefusalOf(
  error: GraphQLError,
  operation: OperationDefinitionNode,
): {
  errors: GraphQLError[];
  status: number;
  headers?: Readonly<Record<string, string>>;
  operationName: string | null;
  operationType: OperationDefinitionNode['operation'];
} {
  const source = isGatewayError(error.originalError) ? error.originalError : error;
  const http = source.extensions.http as { status?: number; headers?: Record<string, string> } | undefined;
  return {
    errors: [clientError(error, 'BAD_REQUEST')],
    status: http?.status ?? 500,
    ...(http?.headers ? { headers: http.headers } : {}),
    operationName: operation.name?.value ?? null,
    operationType: operation.operation,
  };
}

/** The refusal of a key that is not `Bearer <token>`, by transport (HTTP 401 with `WWW-Authenticate: Bearer`). */
export const MALFORMED_KEY: Readonly<Record<'http' | 'streaming', Refusal>> = {
  http: {
    code: 'UNAUTHENTICATED',
    message:
      'The Authorization header is not "Bearer <token>": send the word Bearer, one space and your StateV API key (no spaces or < > in it), e.g. "Authorization: Bearer abc123". Leave the header out to send no key.',
    status: 401,
    headers: { 'www-authenticate': 'Bearer' },
  },
  streaming: {
    code: 'UNAUTHENTICATED',
    message:
      'The authorization value is not "Bearer <API key>": send connectionParams {"authorization": "Bearer <key>"} (WebSocket) or the Authorization header (SSE).',
    status: 401,
  },
};

/** The refusal of a streaming operation without a query (the `parse` check of graphql-ws and graphql-sse), built once. */
export const NO_QUERY: Refusal = {
  code: 'BAD_REQUEST',
  message: 'The request has no query (or no known documentId).',
  status: 400,
};

/**
 * The error for a document with no operation to run by `operationName`, on every transport
 * (`operation-shape`): graphql-js's message, as Apollo Server answered it over HTTP,
 * `OPERATION_RESOLUTION_FAILURE` (HTTP 400).
 */
export function operationResolutionError(document: DocumentNode, operationName: string | undefined): GraphQLError {
  const operations = document.definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION);
  const message =
    operationName !== undefined
      ? `Unknown operation named "${operationName}".`
      : operations.length === 0
        ? 'Must provide an operation.'
        : 'Must provide operation name if query contains multiple operations.';
  return new GraphQLError(message, { extensions: { code: 'OPERATION_RESOLUTION_FAILURE' } });
}

/** The refusal of each refused token, by reason (HTTP 401 with `WWW-Authenticate: Bearer error="invalid_token"`), built once. */
export const TOKEN_REFUSED = Object.fromEntries(
  (Object.keys(TOKEN_REFUSALS) as TokenRefusal[]).map((reason): [TokenRefusal, Refusal] => [
    reason,
    {
      code: 'UNAUTHENTICATED',
      message: TOKEN_REFUSALS[reason],
      status: 401,
      headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
      extensions: { reason },
    },
  ]),
) as Readonly<Record<TokenRefusal, Refusal>>;

/** Most copies in the answer to a refused batch: one per operation up to this many, else one. */
const MAX_BATCH_ANSWERS = 50;

/** The answer to a batch (a JSON array of operations): batching is off, see docs/http.md. */
export const BATCH_REFUSED =
  'Batched requests (a JSON array of operations) are not supported: send one operation per request (Apollo Client: HttpLink, not BatchHttpLink; graphql-request: request(), not batchRequests()). Over HTTP/1.1 keep-alive or HTTP/2, separate requests cost little, and each gets its own cost and depth limit.';

/** The refusal of a batch of `count` operations, one per count (built once each). */
const batchRefusals = new Map<number | undefined, Refusal>();

/**
 * The refusal of a batch of `count` operations: one copy per operation (so batching clients,
 * e.g. Apollo's BatchHttpLink, show it on each), up to {@link MAX_BATCH_ANSWERS}; a larger
 * or empty array gets one, so a body of many tiny entries cannot inflate the answer.
 */
export function batchRefusal(count: number): Refusal {
  const copies = count >= 1 && count <= MAX_BATCH_ANSWERS ? count : undefined;
  let refusal = batchRefusals.get(copies);
  if (!refusal)
    batchRefusals.set(
      copies,
      (refusal = {
        code: 'BAD_REQUEST',
        message: BATCH_REFUSED,
        status: 400,
        ...(copies === undefined ? {} : { copies }),
      }),
    );
  return refusal;
}

/** The refusal of a body over `MAX_BODY_BYTES`, by limit (the rest of the upload is not read: the connection is closed). */
const tooLarge = new Map<number, Refusal>();

/** The refusal of a request body (a graphql-ws subscribe message) over `maxBodyBytes`. */
export function bodyTooLarge(maxBodyBytes: number): Refusal {
  let refusal = tooLarge.get(maxBodyBytes);
  if (!refusal)
    tooLarge.set(
      maxBodyBytes,
      (refusal = {
        code: 'BAD_REQUEST',
        message: `The request body exceeds ${maxBodyBytes} bytes.`,
        status: 413,
        headers: { connection: 'close' },
      }),
    );
  return refusal;
}

/** The setting that caps the queries and mutations in flight on one WebSocket. */
const OPERATION_CAP_SETTING = 'OPERATIONS_MAX_PER_CONNECTION';

/** The refusal of each cap, built once per limit (a burst of refusals builds nothing each). */
const capRefusals = new Map<number, Refusal>();

/** The refusal of a query or mutation over the cap of `max` in flight on one WebSocket (`RATE_LIMITED`, with `limit` and `setting`). */
export function operationCapRefusal(max: number): Refusal {
  let refusal = capRefusals.get(max);
  if (!refusal) {
    refusal = {
      code: 'RATE_LIMITED',
      message: `This connection has ${max} queries and mutations in flight, the most allowed (${OPERATION_CAP_SETTING}). Wait for an answer, or open another connection.`,
      status: 429,
      extensions: { limit: max, setting: OPERATION_CAP_SETTING },
    };
    capRefusals.set(max, refusal);
  }
  return refusal;
}
