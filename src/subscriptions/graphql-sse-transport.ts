/**
 * The graphql-sse transport at `/graphql/stream`: one connection per request ("distinct
 * connections"), or one per reservation token (single connection mode), with reservations
 * not yet connected capped and expiring (sse-reservations.ts), keep-alive comments, slow
 * readers cut (slow-readers.ts: an operation waits until its stream has flushed before it
 * hands over its next result), and the end of operations whose client left while they started.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { subscribe as graphqlSubscribe, validate as graphqlValidate } from 'graphql';
import type { DocumentNode, ExecutionResult } from 'graphql';
import { createHandler } from 'graphql-sse';
import type { Request as SseRequest, Response as SseResponse } from 'graphql-sse';
import { requestCredential } from '../pipeline/credential';
import type { Credential } from '../pipeline/credential';
import type { RefusalResult, RequestFacts } from '../pipeline/pipeline';
import { sendRefusalAnswer } from '../web/apollo-http';
import { readBody } from '../web/read-body';
import { contextOf, prepare } from './admission';
import { armDeadPeerDetection, prepareDeadPeerDetection } from './dead-peers';
import { livePatchFormat } from './live-operations';
import type { OperationRuns } from './operation-runs';
import { guardSseResponse } from './slow-readers';
import type { SlowReaderGuard } from './slow-readers';
import { SseReservations } from './sse-reservations';
import { SseResultBytes, rememberResultText, resultBytes } from './sse-result-bytes';
import { SubscriptionConnection } from './subscription-service';
import type { SubscriptionContext } from './subscription-service';
import type { SubscriptionTransportOptions } from './transport-options';

/** The reservation token of a graphql-sse request (header or `token` parameter), or null. */
function streamToken(req: IncomingMessage): string | null {
  const header = req.headers['x-graphql-event-stream-token'];
  if (typeof header === 'string' && header) return header;
  return new URL(req.url ?? '/', 'http://gateway.invalid').searchParams.get('token') || null;
}

/** The graphql-sse request of a `node:http` request: its context is the response. */
type NodeSseRequest = SseRequest<IncomingMessage, { res: ServerResponse }>;

/**
 * A POST's body, read here at most `maxBodyBytes` (graphql-sse's own reader has no
 * limit), or what the pipeline's `body-size` and `batch` steps refuse: its bytes when it
 * is larger, the size of a JSON array.
 */
async function readSseBody(
  req: IncomingMessage,
  maxBodyBytes: number,
): Promise<{ text: string | null; facts: RequestFacts | null }> {
  if (req.method !== 'POST') return { text: null, facts: null };
  // The bytes, or how many were read when the body went over the limit.
  const read = await readBody<Buffer | number>(req, maxBodyBytes, {
    body: (bytes) => bytes,
    tooLarge: (bytes) => bytes,
    failed: (error) => {
      throw error;
    },
  });
  if (typeof read === 'number') return { text: null, facts: { bodyBytes: read } };
  const text = read.toString('utf8');
  if (!text.trimStart().startsWith('[')) return { text, facts: null };
  try {
    const parsed = JSON.parse(text) as unknown;
    return { text, facts: Array.isArray(parsed) ? { batch: parsed.length } : null };
  } catch {
    return { text, facts: null }; // graphql-sse explains
  }
}

/**
 * Writes graphql-sse's answer to a `node:http` response, as graphql-sse's own `use/http` does;
 * an event holding one of `results`' placeholders is written around the result's shared bytes.
 */
async function writeSseResponse(
  res: ServerResponse,
  [body, init]: SseResponse,
  results: SseResultBytes | undefined,
  guard: SlowReaderGuard | undefined,
): Promise<void> {
  res.writeHead(init.status, init.statusText, init.headers);
  if (!body || typeof body === 'string') return new Promise((resolve) => res.end(body, () => resolve()));
  const stop = (): void => void body.return(undefined);
  res.once('close', stop);
  for await (const value of body) {
    const pieces = results?.pieces(value) ?? null;
    const closed = await new Promise<boolean>((resolve, reject) => {
      if (!res.writable || guard?.closed) return resolve(true);
      const done = (error: Error | null | undefined): void => (error ? reject(error) : resolve(false));
      if (pieces === null) return void res.write(value, done);
      res.cork();
      res.write(pieces[0]);
      res.write(pieces[1]);
      res.write(pieces[2], done);
      res.uncork();
    });
    if (closed) break;
  }
  res.off('close', stop);
  return new Promise((resolve) => res.end(resolve));
}

/** What graphql-sse is handed in place of a result its stream was cut before it could take (never written). */
const NOT_SENT: ExecutionResult = Object.freeze({ data: null });

/** Sockets armed by {@link armSseSocket} (a keep-alive connection may carry several streams, one after another). */
const armedSockets = new WeakSet<object>();

/** Arms an event stream's socket against dead peers, once per socket; logs when the kernel closes it for one. */
function armSseSocket(req: IncomingMessage, options: SubscriptionTransportOptions): void {
  const socket = req.socket;
  if (armedSockets.has(socket)) return;
  armedSockets.add(socket);
  void armDeadPeerDetection(socket, { idleMs: options.keepAliveMs, timeoutMs: options.sseDeadPeerTimeoutMs ?? 0 }).then(
    (arming) => {
      if (arming === 'off') return;
      socket.once('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'ETIMEDOUT')
          options.logger?.warn(
            { transport: 'graphql-sse', reason: 'dead-peer', arming },
            'An SSE stream was closed: its peer stopped acknowledging',
          );
      });
    },
  );
}

/** The graphql-sse transport. */
export interface SseTransport {
  /** Answers a request to `/graphql/stream`. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Drops the reservations not yet connected and ends every open stream (a stop). */
  close(): void;
}

/** Creates the graphql-sse transport on `runs` (shared with graphql-ws). */
export function createSseTransport(
  options: SubscriptionTransportOptions,
  runs: OperationRuns,
  addressOf: (request: IncomingMessage) => string,
): SseTransport {
  const { watch, patchFormats, abandonedChecks, credentials, unlessAbandoned, untilTokenRefused, finish, execute } =
    runs;
  if ((options.sseDeadPeerTimeoutMs ?? 0) > 0) prepareDeadPeerDetection();
  // Reservations (their connections) whose event stream closed.
  const closedStreams = new WeakSet<SubscriptionConnection>();
  // graphql-sse: one connection per request ("distinct connections"), or per reservation token.
  const reservations = new Map<string, SubscriptionConnection>();
  const sseConnectionOf = (token: string | null | undefined, request: IncomingMessage): SubscriptionConnection => {
    if (!token) return new SubscriptionConnection('sse', addressOf(request));
    for (const [held, connection] of reservations)
      if (connection.active === 0 && held !== token) reservations.delete(held);
    let connection = reservations.get(token);
    if (!connection) {
      connection = new SubscriptionConnection('sse', addressOf(request));
      reservations.set(token, connection);
    }
    return connection;
  };
  // Reservations (PUT) not yet connected expire and are capped (src/subscriptions/sse-reservations.ts).
  // The guard of each open event stream: by its request (distinct connections), by its token (a reservation's stream).
  const guardsByRequest = new WeakMap<IncomingMessage, SlowReaderGuard>();
  const guardsByToken = new Map<string, SlowReaderGuard>();
  const guardOf = (request: IncomingMessage, token: string | null): SlowReaderGuard | undefined =>
    token ? guardsByToken.get(token) : guardsByRequest.get(request);
  // The results each open event stream was handed as placeholders (sse-result-bytes.ts), by its guard.
  const resultsOf = new WeakMap<SlowReaderGuard, SseResultBytes>();
  const sseReservations: SseReservations | null = options.sseReservations
    ? new SseReservations({ addressOf, ...options.sseReservations }, (req, res) => sse(req, res))
    : null;
  // The payload of each refusal graphql-sse sends as a result, by the result onSubscribe gave it.
  const refusals = new WeakMap<object, RefusalResult>();
  const refuse = (
    credential: Credential,
    errors: Parameters<typeof options.pipeline.refuse>[1],
    watched: ReturnType<typeof watch.begin>,
  ): ReturnType<typeof options.pipeline.refuse> =>
    options.pipeline.refuse('graphql-sse', errors, {
      credential,
      report: ({ result }) => watch.finish(watched, result.errors, 'rejected'),
    });
  // The documents onSubscribe handed on: the pipeline validated each in full (its validated
  // documents), so graphql-sse does not validate them again (about 1 ms per stream, fifty
  // streams of a burst in one turn).
  const admittedDocuments = new WeakSet<DocumentNode>();
  const handler = createHandler<IncomingMessage, { res: ServerResponse }, Record<string, unknown>>({
    schema: options.schema,
    validate: (schema, document, ...rest) =>
      admittedDocuments.has(document) ? [] : graphqlValidate(schema, document, ...rest),
    ...(sseReservations ? { authenticate: sseReservations.authenticate } : {}),
    execute,
    subscribe: (args) =>
      untilTokenRefused(args.contextValue, unlessAbandoned(args.contextValue, graphqlSubscribe(args))),
    onSubscribe(req, params) {
      const token =
        req.headers.get('x-graphql-event-stream-token') ??
        new URL(req.url, 'http://gateway.invalid').searchParams.get('token');
      const connection = sseConnectionOf(token, req.raw);
      const watched = watch.begin('graphql-sse', () => req.raw.headers);
      const credential = requestCredential(req.raw);
      const prepared = prepare(options, 'graphql-sse', params, credential, connection);
      // graphql-sse takes a result for one only when it has a `data` key; onNext sends the
      // pipeline's refusal in its place (no `data`: nothing executed).
      if (prepared.kind === 'refused') {
        const refused = { data: null, errors: prepared.errors };
        refusals.set(refused, refuse(credential, prepared.errors, watched).result);
        return refused;
      }
      const { document, operationName, variables } = prepared;
      const contextValue = contextOf(options, prepared, connection);
      credentials.set(contextValue, credential);
      patchFormats.set(contextValue, livePatchFormat(params.extensions));
      watch.admitted(watched, prepared, contextValue);
      if (token && req.headers.get('accept') !== 'text/event-stream') {
        // Posted to a reservation: abandoned when this POST ends unanswered or the reservation's stream closes.
        const post = req.context.res;
        abandonedChecks.set(
          contextValue,
          () => (post.destroyed && !post.writableFinished) || closedStreams.has(connection),
        );
      }
      admittedDocuments.add(document);
      return {
        schema: options.schema,
        document,
        operationName,
        variableValues: variables,
        contextValue: contextValue as unknown as Record<string, unknown>,
      };
    },
    // graphql-sse's operation context is the context onSubscribe gave the operation.
    onOperation: (_ctx, _req, args, result) => watch.answered(args, result),
    // A stream still flushing its last write: the operation waits (graphql-sse awaits onNext),
    // so a client that does not read holds one result per operation, not every one made.
    // A result goes to the stream as a placeholder of its JSON's bytes, encoded once for
    // every stream it goes to (sse-result-bytes.ts), unless its stream is not open yet.
    onNext: (ctx, req, result) => {
      const refusal = refusals.get(result);
      if (refusal) return refusal as ExecutionResult;
      const guard = guardOf(req.raw, streamToken(req.raw));
      const send = (): ExecutionResult => {
        // Cut while the result waited for the stream to flush: nothing more is written to it
        // (writeSseResponse), so the result is neither finished nor printed by graphql-sse
        // (fifty streams cut in one turn printed 290 KB each there: 110 ms of one turn).
        if (guard?.closed) return NOT_SENT;
        const final = finish('graphql-sse', ctx, result as ExecutionResult, rememberResultText);
        const bytes = resultBytes(final);
        const results = guard ? resultsOf.get(guard) : undefined;
        return bytes && results ? results.placeholder(bytes) : final;
      };
      const flushed = guard?.flushed();
      return flushed ? flushed.then(send) : send();
    },
    onComplete: (ctx) => {
      // Its places go now (a subscription completed while its first poll ran would hold them until that poll answered).
      // A refusal has no context (graphql-sse's `context` option is not set): nothing to free.
      const scope = (ctx as { subscription?: SubscriptionContext['subscription'] } | undefined)?.subscription;
      if (scope) options.subscriptions.leave(scope);
      const watched = watch.of(ctx);
      if (watched) watch.finish(watched, undefined);
    },
  });
  // graphql-sse on `node:http`, with the body read here: a POST over MAX_BODY_BYTES, or a
  // batch, is refused by the pipeline (as over HTTP) before graphql-sse sees it.
  const sse = async (req: IncomingMessage, res: ServerResponse, results?: SseResultBytes): Promise<void> => {
    // Read before the body: a body over the limit is not read to its end, and its request loses its socket.
    const address = addressOf(req);
    const credential = requestCredential(req);
    const { text, facts } = await readSseBody(req, options.maxBodyBytes);
    if (facts) {
      const watched = watch.begin('graphql-sse', () => req.headers);
      const prepared = prepare(
        options,
        'graphql-sse',
        {},
        credential,
        new SubscriptionConnection('sse', address),
        facts,
      );
      if (prepared.kind === 'refused') {
        sendRefusalAnswer(req, res, refuse(credential, prepared.refusal ?? prepared.errors, watched));
        return;
      }
    }
    const request: NodeSseRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers: {
        get: (key) => (Array.isArray(req.headers[key]) ? req.headers[key].join('\n') : req.headers[key]) ?? null,
      },
      body: text,
      raw: req,
      context: { res },
    };
    await writeSseResponse(res, await handler(request), results, guardsByRequest.get(req));
  };
  // The SSE responses open now: a stop ends them (nothing else would before the grace period).
  const sseResponses = new Set<ServerResponse>();
  return {
    async handle(req, res) {
      sseResponses.add(res);
      res.once('close', () => sseResponses.delete(res));
      const token = req.headers.accept === 'text/event-stream' ? streamToken(req) : null;
      // Slow readers are cut, not buffered (slow-readers.ts).
      const guard = guardSseResponse(res, options.streamBounds, (reason) =>
        options.logger?.warn(
          { transport: 'graphql-sse', reason, queuedBytes: res.writableLength },
          'An SSE stream was cut: its client does not read it',
        ),
      );
      guardsByRequest.set(req, guard);
      const results = new SseResultBytes();
      resultsOf.set(guard, results);
      if (token) {
        guardsByToken.set(token, guard);
        res.once('close', () => {
          if (guardsByToken.get(token) === guard) guardsByToken.delete(token);
        });
        const reserved = reservations.get(token);
        if (reserved) closedStreams.delete(reserved);
        res.once('close', () => {
          const connection = reservations.get(token);
          if (connection) closedStreams.add(connection);
        });
      }
      // A peer gone without a trace (half-open) is closed by the kernel (dead-peers.ts).
      if (req.headers.accept?.includes('text/event-stream')) armSseSocket(req, options);
      // Keep-alive comments stop proxies from closing an idle stream.
      const keepAlive = setInterval(() => {
        if (res.headersSent && !res.writableEnded) res.write(':\n\n');
      }, options.keepAliveMs);
      res.once('close', () => clearInterval(keepAlive));
      // A token created a moment ago: the vault is read again before the pipeline looks it up.
      const tokenReady = options.pipeline.tokenReady(requestCredential(req));
      if (tokenReady) await tokenReady;
      try {
        await (sseReservations
          ? sseReservations.handle(req, res, () => sse(req, res, results))
          : sse(req, res, results));
      } finally {
        if (res.writableEnded) clearInterval(keepAlive);
      }
    },
    close() {
      sseReservations?.close();
      // An SSE stream has no close handshake: its connection ends (a client reconnects, e.g.
      // EventSource, to another replica), and graphql-sse returns its operations.
      for (const res of sseResponses) res.destroy();
    },
  };
}
