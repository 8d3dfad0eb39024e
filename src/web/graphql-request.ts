import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayConfig } from '../config';
import { createContext } from '../context';
import { requestCredential } from '../pipeline/credential';
import type { RequestPipeline } from '../pipeline/pipeline';
import type { GraphQLRequestInput } from '../pipeline/public-site';
import type { GatewayRuntime } from '../runtime';
import { executeOnApollo, readGraphQLRequest, sendGraphQLErrors, sendRefusal } from './apollo-http';

/** Most results in the answer to a refused batch: one per operation up to this many, else one. */
const MAX_BATCH_ANSWERS = 50;

/** The answer to a batch (a JSON array of operations): batching is off, see docs/http.md. */
export const BATCH_REFUSED =
  'Batched requests (a JSON array of operations) are not supported: send one operation per request (Apollo Client: HttpLink, not BatchHttpLink; graphql-request: request(), not batchRequests()). Over HTTP/1.1 keep-alive or HTTP/2, separate requests cost little, and each gets its own cost and depth limit.';

/**
 * Handles one GraphQL request on `/graphql` (GET or POST): reads the body (400 on
 * malformed JSON or UTF-8; `BodyTooLargeError` past `config.maxBodyBytes`, which the
 * router answers with 413), refuses batches (400), runs the `request` phase of the
 * request pipeline (`runtime.pipeline`: a malformed `Authorization` header is 401
 * `UNAUTHENTICATED`, variables over `config.maxVariablesBytes` 413, too deep variables or
 * documents 400, public-site refusals 400), then runs the operation on Apollo (which
 * runs the pipeline's later phases) with a fresh per-request context and writes
 * Apollo's response, bounded by `MAX_RESPONSE_BYTES`.
 */
export async function handleGraphQLRequest(req: IncomingMessage, res: ServerResponse, url: URL, runtime: GatewayRuntime, config: GatewayConfig): Promise<void> {
  const request = await readGraphQLRequest(req, { maxBodyBytes: config.maxBodyBytes });
  if (request.kind === 'refused') {
    sendRefusal(req, res, request);
    return;
  }
  const credential = requestCredential(req);
  const body = request.body;
  if (Array.isArray(body) && credential.kind !== 'malformed') {
    // One refusal per operation (so BatchHttpLink shows it on each), up to MAX_BATCH_ANSWERS;
    // a larger array gets one, so a body of many tiny entries cannot inflate the answer.
    const count = body.length;
    sendGraphQLErrors(req, res, 400, [{ message: BATCH_REFUSED, code: 'BAD_REQUEST' }], {}, count >= 1 && count <= MAX_BATCH_ANSWERS ? count : undefined);
    return;
  }
  const input: GraphQLRequestInput | null =
    req.method === 'POST'
      ? body && typeof body === 'object' && !Array.isArray(body)
        ? { kind: 'post', body: body as Record<string, unknown> }
        : null
      : { kind: 'get', params: url.searchParams };
  const pipeline: RequestPipeline = runtime.pipeline;
  // A token created a moment ago: the vault is read again before it is looked up.
  const tokenReady = pipeline.tokenReady(credential);
  if (tokenReady) await tokenReady;
  const admission = pipeline.admit(input, credential, { body, search: url.search });
  if (admission.kind === 'refused') {
    const { refusal } = admission;
    sendGraphQLErrors(req, res, refusal.status, [{ message: refusal.message, code: refusal.code, extensions: refusal.extensions }], { ...refusal.headers });
    return;
  }
  await executeOnApollo(runtime.apollo, req, res, {
    headers: request.headers,
    body: admission.parameters.body,
    search: admission.parameters.search,
    context: async () => {
      const context = createContext(runtime.services, req.headers, admission.key);
      // Its result goes out as text: a response cache hit needs no parsed data (see ResponseCacheStore.get).
      context.httpResponse = true;
      return context;
    },
  });
}
