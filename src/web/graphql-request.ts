import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { GatewayConfig } from '../config';
import { createContext } from '../context';
import { readCredential } from '../pipeline/credential';
import type { Credential } from '../pipeline/credential';
import type { RequestPipeline } from '../pipeline/pipeline';
import type { GraphQLRequestInput } from '../pipeline/public-site';
import type { GatewayRuntime } from '../runtime';
import { answerFromResponseCache } from './cached-answers';
import { executeOnApollo, readGraphQLRequest, sendGraphQLErrors, sendRefusal } from './apollo-http';

/** Most results in the answer to a refused batch: one per operation up to this many, else one. */
const MAX_BATCH_ANSWERS = 50;

/** The answer to a batch (a JSON array of operations): batching is off, see docs/http.md. */
export const BATCH_REFUSED =
  'Batched requests (a JSON array of operations) are not supported: send one operation per request (Apollo Client: HttpLink, not BatchHttpLink; graphql-request: request(), not batchRequests()). Over HTTP/1.1 keep-alive or HTTP/2, separate requests cost little, and each gets its own cost and depth limit.';

/** Where a connection keeps the credential its last request read (see {@link connectionCredential}). */
const LAST_CREDENTIAL = Symbol('lastCredential');

/** A connection with the credential of its last request, and the header values it was read from. */
type CredentialSocket = Socket & { [LAST_CREDENTIAL]?: { authorization: string | undefined; origin: string | undefined; credential: Credential } };

/**
 * The request's credential (`readCredential`), the same object as the previous request's
 * on the connection when its `Authorization` and `Origin` headers are the same. Why: a
 * key is hashed once per credential object (`hashedKey`), so a client that keeps its
 * connection open (browsers, bots, load balancers) pays the key's HMAC once per
 * connection, not once per request. The header value is kept on the connection only, as
 * long as Node keeps the connection; it never becomes a cache key.
 */
function connectionCredential(req: IncomingMessage, authorization: string | undefined, origin: string | undefined): Credential {
  const socket = req.socket as CredentialSocket;
  const last = socket[LAST_CREDENTIAL];
  if (last !== undefined && last.authorization === authorization && last.origin === origin) return last.credential;
  const credential = readCredential(authorization, origin);
  socket[LAST_CREDENTIAL] = { authorization, origin, credential };
  return credential;
}

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
  const credential = connectionCredential(req, request.headers.get('authorization'), request.headers.get('origin'));
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
  // A response cache hit of an API key: answered here, before Apollo's pipeline.
  const cached = admission.serverCredentials === null ? answerFromResponseCache(req, res, runtime, credential, admission.parameters.body) : { kind: 'apollo' as const, requestKey: undefined };
  if (cached.kind === 'answered') return;
  const { requestKey } = cached;
  await executeOnApollo(runtime.apollo, req, res, {
    headers: request.headers,
    body: admission.parameters.body,
    search: admission.parameters.search,
    context: async () => {
      const context = createContext(runtime.services, req.headers, credential, admission.serverCredentials);
      // Its result goes out as text: a response cache hit needs no parsed data (see ResponseCacheStore.get).
      context.httpResponse = true;
      if (requestKey !== undefined) context.responseHitKey = requestKey;
      return context;
    },
  });
}
