import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayConfig } from '../config';
import { bearerToken, createContext, isMalformedAuthorization } from '../context';
import type { GatewayRuntime } from '../runtime';
import { executeOnApollo, readGraphQLRequest, sendGraphQLErrors, sendRefusal } from './apollo-http';
import type { PublicSite } from './public-site';
import type { GraphQLRequestInput, RequestParameters, ServerCredentials } from './public-site';

/** The answer to an `Authorization` header that is not `Bearer <token>`. */
export const MALFORMED_AUTHORIZATION =
  'The Authorization header is not "Bearer <token>": send the word Bearer, one space and your StateV API key (no spaces or < > in it), e.g. "Authorization: Bearer abc123". Leave the header out to send no key.';

/** Most results in the answer to a refused batch: one per operation up to this many, else one. */
const MAX_BATCH_ANSWERS = 50;

/** The answer to a batch (a JSON array of operations): batching is off, see docs/http.md. */
export const BATCH_REFUSED =
  'Batched requests (a JSON array of operations) are not supported: send one operation per request (Apollo Client: HttpLink, not BatchHttpLink; graphql-request: request(), not batchRequests()). Over HTTP/1.1 keep-alive or HTTP/2, separate requests cost little, and each gets its own cost and depth limit.';

/**
 * Handles one GraphQL request on `/graphql` (GET or POST): reads the body (400 on
 * malformed JSON or UTF-8 and on too deep variables or documents, 413 on variables over
 * `config.maxVariablesBytes`; `BodyTooLargeError` past `config.maxBodyBytes`, which the router
 * answers with 413), refuses a malformed `Authorization` header (401 `UNAUTHENTICATED`)
 * and batches (400), applies public-site mode (trusted documents by hash and whose key
 * runs them; 400 when it refuses), then runs the operation on Apollo with a fresh
 * per-request context and writes Apollo's response.
 */
export async function handleGraphQLRequest(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  runtime: GatewayRuntime,
  config: GatewayConfig,
  publicSite: PublicSite,
): Promise<void> {
  const request = await readGraphQLRequest(req, config);
  if (request.kind === 'refused') {
    sendRefusal(req, res, request);
    return;
  }
  // A header that is set but unusable is a mistake to report, never "no key" (which
  // would run introspection or, in public-site mode, the server's trusted documents).
  if (isMalformedAuthorization(request.headers.get('authorization'))) {
    sendGraphQLErrors(req, res, 401, [{ message: MALFORMED_AUTHORIZATION, code: 'UNAUTHENTICATED' }], { 'www-authenticate': 'Bearer' });
    return;
  }
  if (Array.isArray(request.body)) {
    // One refusal per operation (so BatchHttpLink shows it on each), up to MAX_BATCH_ANSWERS;
    // a larger array gets one, so a body of many tiny entries cannot inflate the answer.
    const count = request.body.length;
    sendGraphQLErrors(req, res, 400, [{ message: BATCH_REFUSED, code: 'BAD_REQUEST' }], {}, count >= 1 && count <= MAX_BATCH_ANSWERS ? count : undefined);
    return;
  }
  // Public-site mode: resolve trusted documents by hash, and decide whose key runs it.
  const body = request.body;
  const input: GraphQLRequestInput | null =
    req.method === 'POST'
      ? body && typeof body === 'object' && !Array.isArray(body)
        ? { kind: 'post', body: body as Record<string, unknown> }
        : null
      : { kind: 'get', params: url.searchParams };
  let credentials: ServerCredentials | null = null;
  let parameters: RequestParameters = { body, search: url.search };
  if (input) {
    const decision = publicSite.decide(input, bearerToken(request.headers.get('authorization')) !== null);
    if (decision.kind === 'refuse') {
      sendGraphQLErrors(req, res, 400, [{ message: decision.message, code: decision.code }]);
      return;
    }
    credentials = decision.credentials;
    parameters = decision.parameters;
  }
  await executeOnApollo(runtime.apollo, req, res, {
    headers: request.headers,
    body: parameters.body,
    search: parameters.search,
    context: async () => createContext(runtime.services, req.headers, credentials),
    maxResponseBytes: config.maxResponseBytes,
  });
}
