import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayConfig } from '../config';
import { bearerToken, createContext } from '../context';
import type { GatewayRuntime } from '../runtime';
import { executeOnApollo, readGraphQLRequest, sendJson, sendRefusal } from './apollo-http';
import type { PublicSite } from './public-site';
import type { GraphQLRequestInput, RequestParameters, ServerCredentials } from './public-site';

/**
 * Handles one GraphQL request on `/graphql` (GET or POST): reads the body (400 on
 * malformed JSON or UTF-8 and on too deep variables or documents, 413 on variables over
 * `config.maxVariablesBytes`; `BodyTooLargeError` past `config.maxBodyBytes`, which the router
 * answers with 413), applies public-site mode (trusted documents by hash and whose key
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
    sendRefusal(res, request);
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
      sendJson(res, 400, { errors: [{ message: decision.message, extensions: { code: decision.code } }] });
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
  });
}
