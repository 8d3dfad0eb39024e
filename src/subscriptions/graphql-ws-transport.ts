/**
 * The graphql-ws transport (protocol `graphql-transport-ws`) on a `ws` server without a
 * port of its own: transports.ts hands it the upgrade requests to `/graphql`. The credential
 * is read once per connection; every subscribe message goes through the admission
 * (admission.ts: the request pipeline, with the subscribe message's size, the
 * connection's subscription limits and its cap on queries and mutations in flight,
 * operation-cap.ts), and every refusal is written by the pipeline (`RequestPipeline.refuse`).
 */
import type { IncomingMessage } from 'node:http';
import { GraphQLError } from 'graphql';
import type { GraphQLFormattedError } from 'graphql';
import type { RawData } from 'ws';
import type { Context } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import type { Extra } from 'graphql-ws/use/ws';
import { WebSocket, WebSocketServer } from 'ws';
import { isLiveQueryOperationDefinitionNode } from '@n1ru4l/graphql-live-query';
import type { Credential } from '../pipeline/credential';
import { readCredential } from '../pipeline/credential';
import type { StepName } from '../pipeline/steps';
import { closeForRefusals, contextOf, prepare, RefusalCount } from './admission';
import { livePatchFormat } from './live-operations';
import { OperationsInFlight } from './operation-cap';
import type { OperationRuns } from './operation-runs';
import type { WatchedOperation } from './operation-watch';
import { SubscriptionConnection } from './subscription-service';
import type { SubscriptionScope } from './subscription-service';
import type { SubscriptionTransportOptions } from './transport-options';

/** The answer to a subscribe message on a closing WebSocket (never sent: the socket is closing). */
const CLOSING: readonly GraphQLError[] = [new GraphQLError('The connection is closing.')];

/**
 * The `next` payload of each refusal over a limit, as JSON text, by its error: the
 * pipeline's refusal (`RequestPipeline.refuse`) of `[error]`, which is the same every time
 * (the limits' errors are built once each, and name no key).
 */
const refusalPayloads = new WeakMap<GraphQLError, string>();

/** The steps whose refusals are answered at once, as a `next` and a `complete` (see `refuseOverLimit`). */
const OVER_A_LIMIT: ReadonlySet<StepName> = new Set<StepName>([
  'subscription-limit',
  'operation-cap',
  'operation-cap-parsed',
]);

/** The `error` payload of each refused subscribe, by the errors its `onSubscribe` returned (graphql-ws hands `onError` the same array). */
const errorPayloads = new WeakMap<readonly GraphQLError[], readonly GraphQLFormattedError[]>();

/** The size of the message each WebSocket is handling now: graphql-ws calls `onSubscribe` in the same turn as the message's listeners. */
const messageBytes = new WeakMap<WebSocket, number>();

/** The bytes a client's `complete` message holds (its type), searched for in each message before it is decoded. */
const COMPLETE_TYPE = Buffer.from('"complete"');

/** Headroom of `ws`'s frame limit over `MAX_BODY_BYTES`: a message a little over the limit is refused as a body is, a far larger one closes the socket (1009). */
const FRAME_HEADROOM_BYTES = 64 * 1024;

/** The bytes of a `ws` message. */
function bytesOf(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((sum, part) => sum + part.length, 0);
  return data instanceof ArrayBuffer ? data.byteLength : data.length;
}

/**
 * Holds a connection's writes until the end of this turn, once per turn: the refusals of
 * a burst's messages (`ws` emits a TCP chunk's messages in one turn) leave in one write.
 */
function corkForThisTurn(socket: IncomingMessage['socket']): void {
  if (socket.writableCorked > 0) return;
  socket.cork();
  process.nextTick(() => socket.uncork());
}

/** A graphql-ws connection's context on a `ws` server. */
type WsContext = Context<Record<string, unknown> | undefined, Extra>;

/** Each graphql-ws connection's credential (by its graphql-ws context), read once: its parameters and upgrade request do not change. */
const connectionCredentials = new WeakMap<WsContext, Credential>();

/** The connection's credential: its `authorization` parameter, else the upgrade request's header (see `readCredential`), read on first use. */
function credentialOf(ctx: WsContext): Credential {
  let credential = connectionCredentials.get(ctx);
  if (!credential) {
    const params = ctx.connectionParams ?? {};
    credential = readCredential(
      params.authorization ?? params.Authorization ?? ctx.extra.request.headers.authorization,
      ctx.extra.request.headers.origin,
    );
    connectionCredentials.set(ctx, credential);
  }
  return credential;
}

/** The W3C trace context a WebSocket's connection parameters carry (a browser cannot set the upgrade request's headers). */
function traceCarrier(
  headers: IncomingMessage['headers'],
  params: Record<string, unknown> | undefined,
): IncomingMessage['headers'] {
  const { traceparent, tracestate } = params ?? {};
  if (typeof traceparent !== 'string') return headers;
  return { ...headers, traceparent, ...(typeof tracestate === 'string' ? { tracestate } : {}) };
}

/** The graphql-ws transport: its `ws` server (which takes the upgrades) and the graphql-ws server on it. */
export interface WsTransport {
  /** The `ws` server, without a port of its own. */
  readonly wss: WebSocketServer;
  /** graphql-ws on it; `dispose()` closes every WebSocket with 1001. */
  readonly server: ReturnType<typeof useServer>;
}

/** Creates the graphql-ws transport on `runs` (shared with graphql-sse). */
export function createWsTransport(
  options: SubscriptionTransportOptions,
  runs: OperationRuns,
  addressOf: (request: IncomingMessage) => string,
): WsTransport {
  const { watch, patchFormats, credentials, finish, execute, subscribe } = runs;
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: Math.max(1024 * 1024, options.maxBodyBytes + FRAME_HEADROOM_BYTES),
  });
  // Before graphql-ws's listener (added by useServer below): each message's size, for the `body-size` step.
  wss.on('connection', (socket: WebSocket) =>
    socket.on('message', (data: RawData) => messageBytes.set(socket, bytesOf(data))),
  );
  const connections = new WeakMap<
    object,
    { connection: SubscriptionConnection; refusals: RefusalCount; inFlight: OperationsInFlight }
  >();
  const connectionOf = (
    ctx: object,
    request: IncomingMessage,
  ): { connection: SubscriptionConnection; refusals: RefusalCount; inFlight: OperationsInFlight } => {
    let state = connections.get(ctx);
    if (!state) {
      state = {
        connection: new SubscriptionConnection('ws', addressOf(request)),
        refusals: new RefusalCount(),
        inFlight: new OperationsInFlight(options.operationsMaxPerConnection),
      };
      connections.set(ctx, state);
    }
    return state;
  };
  // A WebSocket's operations by id (graphql-ws's onComplete and onError name an operation only by its id).
  const wsWatched = new WeakMap<object, Map<string, WatchedOperation>>();
  const wsWatchedOf = (ctx: object, id: string): WatchedOperation | undefined => {
    const watched = wsWatched.get(ctx)?.get(id);
    if (watched) wsWatched.get(ctx)?.delete(id);
    return watched;
  };
  // Each WebSocket's admitted operations' scopes by id: a `complete` from the client frees
  // their places at once (graphql-ws itself returns an operation still starting only when its
  // start is over, e.g. after a subscription's first poll).
  const wsScopes = new WeakMap<object, Map<string, SubscriptionScope>>();
  const leave = (ctx: object, id: string): void => {
    const scopes = wsScopes.get(ctx);
    const scope = scopes?.get(id);
    if (!scope) return;
    scopes?.delete(id);
    options.subscriptions.leave(scope);
  };
  /**
   * Listens for the client's `complete` messages on a new WebSocket (one search of the
   * message's bytes, not decoded, per message; a parse only for those that may be one).
   */
  const watchCompletes = (ctx: WsContext): void => {
    ctx.extra.socket.on('message', (data: RawData) => {
      if (Buffer.isBuffer(data) ? !data.includes(COMPLETE_TYPE) : !String(data).includes('"complete"')) return;
      try {
        const message = JSON.parse(String(data)) as { type?: unknown; id?: unknown };
        if (message.type === 'complete' && typeof message.id === 'string') leave(ctx, message.id);
      } catch {
        // Not JSON: graphql-ws closes the socket for it.
      }
    });
  };
  /** Counts one refused subscribe; true when it was one too many and the socket is closing with 4429. */
  const countRefusal = (ctx: WsContext, refusals: RefusalCount): boolean => {
    if (!refusals.add(Date.now())) return false;
    closeForRefusals(ctx.extra.socket, ctx.extra.request, ctx.subscriptions);
    return true;
  };
  /**
   * Answers a subscribe refused over a limit as graphql-ws answers a refused subscription
   * (a `next` with the errors, then `complete`), but at once: two prebuilt frames, none of
   * graphql-ws's execution and awaited sends, so a flood of refused subscribes costs little.
   * The operation is then no longer graphql-ws's (as if its client had completed it), and
   * the errors returned only end its `onSubscribe`. Counts the refusal first: the one over
   * `MAX_REFUSED_SUBSCRIBES` (admission.ts) closes the socket with 4429 instead.
   */
  const refuseOverLimit = (
    ctx: WsContext,
    id: string,
    errors: readonly GraphQLError[],
    refusals: RefusalCount,
  ): readonly GraphQLError[] => {
    const { socket } = ctx.extra;
    if (!countRefusal(ctx, refusals)) {
      const error = errors.length === 1 ? errors[0] : undefined;
      let payload = error && refusalPayloads.get(error);
      if (payload === undefined) {
        payload = options.pipeline.refuse('graphql-ws', errors).text;
        if (error) refusalPayloads.set(error, payload);
      }
      const quotedId = JSON.stringify(id);
      corkForThisTurn(ctx.extra.request.socket);
      socket.send(`{"id":${quotedId},"type":"next","payload":${payload}}`);
      socket.send(`{"id":${quotedId},"type":"complete"}`);
    }
    delete (ctx.subscriptions as Record<string, unknown>)[id];
    return errors;
  };
  const server = useServer<Record<string, unknown> | undefined>(
    {
      schema: options.schema,
      connectionInitWaitTimeout: options.connectionInitTimeoutMs,
      // A token created a moment ago: the vault is read again before the connection is acknowledged.
      onConnect: async (ctx) => {
        await options.pipeline.tokenReady(credentialOf(ctx));
      },
      subscribe,
      execute,
      onSubscribe(ctx, id, payload) {
        // Messages that arrive while the socket closes (e.g. after 4429) cost nothing more.
        if (ctx.extra.socket.readyState !== WebSocket.OPEN) return CLOSING;
        const { connection, refusals, inFlight } = connectionOf(ctx, ctx.extra.request);
        const credential = credentialOf(ctx);
        const watched = watch.begin('graphql-ws', () => traceCarrier(ctx.extra.request.headers, ctx.connectionParams));
        const bodyBytes = messageBytes.get(ctx.extra.socket);
        const prepared = prepare(options, 'graphql-ws', payload, credential, connection, {
          operations: inFlight,
          ...(bodyBytes === undefined ? {} : { bodyBytes }),
        });
        if (prepared.kind === 'run') {
          const { document, operationName, variables } = prepared;
          // A query or mutation holds one of the connection's places (operation-cap.ts) until it completes.
          if (
            prepared.operation.operation !== 'subscription' &&
            !isLiveQueryOperationDefinitionNode(prepared.operation, variables)
          )
            inFlight.hold(id);
          const contextValue = contextOf(options, prepared, connection);
          credentials.set(contextValue, credential);
          if (contextValue.subscription) {
            let scopes = wsScopes.get(ctx);
            if (!scopes) {
              wsScopes.set(ctx, (scopes = new Map()));
              watchCompletes(ctx);
            }
            scopes.set(id, contextValue.subscription);
          }
          patchFormats.set(contextValue, livePatchFormat(payload.extensions));
          watch.admitted(watched, prepared, contextValue);
          wsWatched.set(ctx, (wsWatched.get(ctx) ?? new Map<string, WatchedOperation>()).set(id, watched));
          return { schema: options.schema, document, operationName, variableValues: variables, contextValue };
        }
        if (OVER_A_LIMIT.has(prepared.step)) {
          watch.finish(watched, prepared.errors, 'rejected');
          return refuseOverLimit(ctx, id, prepared.errors, refusals);
        }
        countRefusal(ctx, refusals);
        // Sent as an `error` message: its payload is the pipeline's refusal (onError hands it to graphql-ws).
        const answer = options.pipeline.refuse('graphql-ws', prepared.errors, {
          credential,
          report: ({ result }) => watch.finish(watched, result.errors, 'rejected'),
        });
        errorPayloads.set(prepared.errors, answer.result.errors);
        return prepared.errors;
      },
      onOperation: (_ctx, _id, _payload, args, result) => watch.answered(args, result),
      onNext: (_ctx, _id, _payload, args, result) => finish('graphql-ws', args.contextValue, result),
      onError: (ctx, id, _payload, errors) => {
        connections.get(ctx)?.inFlight.release(id);
        leave(ctx, id);
        const watched = wsWatchedOf(ctx, id);
        // A refusal was written already; errors of an admitted operation are written the same way, with its context.
        const formatted =
          errorPayloads.get(errors) ??
          options.pipeline.refuse('graphql-ws', errors, {
            delivery: watched?.contextValue ?? null,
            report: ({ result }) => watched && watch.finish(watched, result.errors),
          }).result.errors;
        return formatted as unknown as GraphQLError[];
      },
      onComplete: (ctx, id) => {
        connections.get(ctx)?.inFlight.release(id);
        leave(ctx, id);
        const watched = wsWatchedOf(ctx, id);
        if (watched) watch.finish(watched, undefined);
      },
    },
    wss,
    options.keepAliveMs,
  );
  return { wss, server };
}
