import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FormattedExecutionResult } from 'graphql';
import type { GatewayConfig } from '../config';
import { createContext } from '../context';
import { heavySlice } from '../graph/execution/turn-slices';
import { requestCredential } from '../pipeline/credential';
import { readContentType } from '../pipeline/http-checks';
import type { HttpRequestFacts } from '../pipeline/http-checks';
import type { RequestPipeline } from '../pipeline/pipeline';
import { operationRequest } from '../pipeline/operation-request';
import type { GraphQLRequestInput } from '../pipeline/public-site';
import { reportHttpOperation, reportRefusal } from '../observability/operation.plugin';
import type { GatewayRuntime } from '../runtime';
import { executeOnApollo, readMeasuredRequest, sendRefusal, sendRefusalAnswer } from './apollo-http';
import { answerFromResponseCache } from './cached-answers';

/**
 * POST bodies longer than this (characters) are parsed, validated and checked in one turn of
 * sliced work and run on Apollo in another (see {@link handleGraphQLRequest}): 16 KB, above
 * any ordinary operation (the introspection query is about 2 KB).
 */
export const LARGE_BODY_CHARS = 16 * 1024;

/** The method and headers the HTTP steps read (CSRF, shape, `Accept`, GET queries only), the content type read once. */
function httpFacts(req: IncomingMessage): HttpRequestFacts {
  const contentType = req.headers['content-type'];
  return {
    method: req.method === 'POST' ? 'POST' : 'GET',
    header: (name) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value.join(', ') : value;
    },
    contentType: readContentType(Array.isArray(contentType) ? contentType.join(', ') : contentType),
  };
}

/**
 * Handles one GraphQL request on `/graphql` (GET or POST): reads the body (400 on
 * malformed JSON or UTF-8; reading stops past `config.maxBodyBytes`), runs the `request`
 * phase of the request pipeline (`runtime.pipeline`: a body over `config.maxBodyBytes` is
 * 413 and the connection closes, a malformed `Authorization` header 401 `UNAUTHENTICATED`,
 * a batch 400, variables over `config.maxVariablesBytes` 413, too deep variables or
 * documents 400, public-site refusals 400, CSRF 400, the body's shape 400 or 415, `Accept`
 * 406), answers a response cache hit, runs the parse, validate and operation phases
 * (`RequestPipeline.prepareAdmitted`, as for the streams), writes any refusal as every
 * transport does (`RequestPipeline.refuse`), or runs the operation on Apollo (which
 * neither parses nor validates the document again) with a fresh per-request context and
 * writes Apollo's response, bounded by `MAX_RESPONSE_BYTES`. An APQ hash sent without its
 * text gets it from the APQ cache Apollo registers texts in (`withPersistedText`) first.
 * A POST body over {@link LARGE_BODY_CHARS} waits for a turn of sliced work of its own
 * (`heavySlice`) before its parse, validate and operation phases, and again before it runs on Apollo.
 *
 * @param search - the request's query string, with its leading `?` (empty when none)
 */
export async function handleGraphQLRequest(
  req: IncomingMessage,
  res: ServerResponse,
  search: string,
  runtime: GatewayRuntime,
  config: GatewayConfig,
): Promise<void> {
  const started = performance.now();
  // Read before the body: a body over the limit is not read to its end, and its request loses its socket.
  const credential = requestCredential(req);
  // The body as read, or its bytes when it was over the limit (the `body-size` step refuses it).
  const read = await readMeasuredRequest(req, { maxBodyBytes: config.maxBodyBytes });
  if (read.kind === 'refused') {
    sendRefusal(req, res, read);
    return;
  }
  const request = read.kind === 'too-large' ? read.request : read;
  const body = read.kind === 'too-large' ? undefined : read.body;
  const input: GraphQLRequestInput | null =
    req.method === 'POST'
      ? body && typeof body === 'object' && !Array.isArray(body)
        ? { kind: 'post', body: body as Record<string, unknown> }
        : null
      : { kind: 'get', params: new URLSearchParams(search) };
  const pipeline: RequestPipeline = runtime.pipeline;
  // A token created a moment ago: the vault is read again before it is looked up.
  const tokenReady = pipeline.tokenReady(credential);
  if (tokenReady) await tokenReady;
  const http = httpFacts(req);
  const facts =
    read.kind === 'too-large'
      ? { bodyBytes: read.bodyBytes, http }
      : Array.isArray(body)
        ? { batch: body.length, http }
        : { http };
  const admission = pipeline.admit('http', input, credential, { body, search }, facts);
  if (admission.kind === 'refused') {
    const report = reportRefusal(runtime.metrics, runtime.logger);
    const answer = pipeline.refuse('http', admission.refusal, {
      credential,
      report: ({ errorCodes }) => {
        report({ errorCodes, durationMs: performance.now() - started });
        runtime.tracing?.answered(errorCodes, false);
      },
    });
    sendRefusalAnswer(req, res, answer);
    return;
  }
  // A response cache hit of the caller's own API key: answered here, before Apollo's pipeline.
  const cached = answerFromResponseCache(
    req,
    res,
    runtime,
    http,
    admission.key,
    admission.parameters.body,
    read.kind === 'too-large' ? undefined : read.text,
  );
  if (cached.kind === 'answered') return;
  const { requestKey } = cached;
  const context = createContext(runtime.services, req.headers, admission.key);
  // Its result goes out as text: a response cache hit needs no parsed data (see ResponseCacheStore.get).
  context.httpResponse = true;
  if (requestKey !== undefined) context.responseHitKey = requestKey;
  // An APQ hash without text: its text from the APQ cache Apollo registers texts in (unknown: refused).
  const asked = await pipeline.withPersistedText(operationRequest(admission.parameters));
  // A large body: its checks and its run each wait for a turn of sliced work of their own (turn-slices.ts),
  // so that several connections' large requests are not all prepared and run in one turn
  // (8 connections sending 60 KB variables held each turn 30 ms and more).
  const large = read.kind !== 'too-large' && (read.text?.length ?? 0) > LARGE_BODY_CHARS;
  if (large) await heavySlice(true);
  const prepared = pipeline.prepareAdmitted('http', admission, asked, { http });
  if (prepared.kind === 'refused') {
    // Refused by the parse, validate or operation phase: answered here, Apollo never sees it.
    runtime.tracing?.requested(req.method ?? 'POST', context.session.keyId, {
      type: prepared.operationType,
      name: prepared.operationName,
    });
    const report = reportHttpOperation(runtime.metrics, runtime.logger);
    const answer = pipeline.refuse('http', prepared, {
      execution: context,
      delivery: context,
      report: ({ result, errorCodes }) => {
        report({
          result: result as FormattedExecutionResult,
          errorCodes,
          context,
          operationName: prepared.operationName ?? null,
          executed: false,
          durationMs: performance.now() - started,
          responseCacheAgeSeconds: null,
        });
        runtime.tracing?.answered(errorCodes, false);
      },
    });
    sendRefusalAnswer(req, res, answer);
    return;
  }
  if (large) await heavySlice();
  // Apollo finds the prepared document in its document store: it neither parses nor validates it again.
  const release =
    prepared.queryHash !== undefined ? pipeline.holdDocument(prepared.queryHash, prepared.document) : undefined;
  context.passedSteps = prepared;
  try {
    await executeOnApollo(runtime.apollo, req, res, {
      headers: request.headers,
      body: admission.parameters.body,
      search: admission.parameters.search,
      context: () => Promise.resolve(context),
    });
  } finally {
    release?.();
  }
}
