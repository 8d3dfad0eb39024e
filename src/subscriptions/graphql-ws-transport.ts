/**
 * The graphql-ws transport (protocol `graphql-transport-ws`) on a `ws` server without a
 * port of its own: transports.ts hands it the upgrade requests to `/graphql`. The credential
 * is read once per connection; every subscribe message goes through the admission
 * (admission.ts), queries and mutations also through the cap on those in flight per
 * connection (operation-cap.ts).
 */
import type { IncomingMessage } from 'node:http';
import { GraphQLError } from 'graphql';
import type { GraphQLFormattedError } from 'graphql';
import type { Context } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import type { Extra } from 'graphql-ws/use/ws';
import { WebSocket, WebSocketServer } from 'ws';
import { isLiveQueryOperationDefinitionNode } from '@n1ru4l/graphql-live-query';
import type { Credential } from '../pipeline/credential';
import { readCredential } from '../pipeline/credential';
import { formatClientError } from '../pipeline/result-steps';
import { closeForRefusals, contextOf, mayBeStreaming, prepare, RefusalCount } from './admission';
import { livePatchFormat } from './live-operations';
import { OperationsInFlight, overOperationCap } from './operation-cap';
import type { OperationRuns } from './operation-runs';
import type { WatchedOperation } from './operation-watch';
import { SubscriptionConnection } from './subscription-service';
import type { SubscriptionScope } from './subscription-service';
import type { SubscriptionTransportOptions } from './transport-options';

/** The answer to a subscribe message on a closing WebSocket (never sent: the socket is closing). */
const CLOSING: readonly GraphQLError[] = [new GraphQLError('The connection is closing.')];

/**
 * The `next` payload of each refusal over a limit, as JSON text, by its error: the result
 * phase's answer to `{ errors: [error] }` without an operation context, which is the same
 * every time (the limits' errors are built once each).
 */
const refusalPayloads = new WeakMap<GraphQLError, string>();

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
    credential = readCredential(params.authorization ?? params.Authorization ?? ctx.extra.request.headers.authorization, ctx.extra.request.headers.origin);
    connectionCredentials.set(ctx, credential);
  }
  return credential;
}

/** The W3C trace context a WebSocket's connection parameters carry (a browser cannot set the upgrade request's headers). */
function traceCarrier(headers: IncomingMessage['headers'], params: Record<string, unknown> | undefined): IncomingMessage['headers'] {
  const { traceparent, tracestate } = params ?? {};
  if (typeof traceparent !== 'string') return headers;
  return { ...headers, traceparent, ...(typeof tracestate === 'string' ? { tracestate } : {}) };
}

/** Errors of an `error` message, formatted as a result's are (the result phase's `format-errors`). */
function formatErrors(errors: readonly GraphQLError[]): GraphQLFormattedError[] {
  return errors.map((error) => formatClientError(error));
}

/** The graphql-ws transport: its `ws` server (which takes the upgrades) and the graphql-ws server on it. */
export interface WsTransport {
  /** The `ws` server, without a port of its own. */
  readonly wss: WebSocketServer;
  /** graphql-ws on it; `dispose()` closes every WebSocket with 1001. */
  readonly server: ReturnType<typeof useServer>;
}

/** Creates the graphql-ws transport on `runs` (shared with graphql-sse). */
export function createWsTransport(options: SubscriptionTransportOptions, runs: OperationRuns, addressOf: (request: IncomingMessage) => string): WsTransport {
  const { watch, patchFormats, credentials, finish, execute, subscribe } = runs;
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  const connections = new WeakMap<object, { connection: SubscriptionConnection; refusals: RefusalCount; inFlight: OperationsInFlight }>();
  const connectionOf = (ctx: object, request: IncomingMessage): { connection: SubscriptionConnection; refusals: RefusalCount; inFlight: OperationsInFlight } => {
    let state = connections.get(ctx);
    if (!state) {
      state = { connection: new SubscriptionConnection('ws', addressOf(request)), refusals: new RefusalCount(), inFlight: new OperationsInFlight(options.operationsMaxPerConnection) };
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
  /** Listens for the client's `complete` messages on a new WebSocket (one text test per message, a parse only for those). */
  const watchCompletes = (ctx: WsContext): void => {
    ctx.extra.socket.on('message', (data: unknown) => {
      const text = String(data);
      if (!text.includes('"complete"')) return;
      try {
        const message = JSON.parse(text) as { type?: unknown; id?: unknown };
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
  const refuseOverLimit = (ctx: WsContext, id: string, errors: readonly GraphQLError[], refusals: RefusalCount): readonly GraphQLError[] => {
    const { socket } = ctx.extra;
    if (!countRefusal(ctx, refusals)) {
      const error = errors.length === 1 ? errors[0] : undefined;
      let payload = error && refusalPayloads.get(error);
      if (payload === undefined) {
        payload = JSON.stringify(finish('graphql-ws', {}, { errors }));
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
        // Queries and mutations over OPERATIONS_MAX_PER_CONNECTION (see operation-cap.ts):
        // refused before the pipeline, unless the text may hold a subscription (whose limits
        // the pipeline checks), and then once parsed.
        const overCap = (): readonly GraphQLError[] => {
          const errors = overOperationCap(inFlight.max);
          watch.finish(watched, errors, 'rejected');
          return refuseOverLimit(ctx, id, errors, refusals);
        };
        if (inFlight.full() && !mayBeStreaming(payload)) return overCap();
        const prepared = prepare(options, 'graphql-ws', payload, credential, connection);
        if (prepared.kind === 'run') {
          const { document, operationName, variables } = prepared;
          if (prepared.operation.operation !== 'subscription' && !isLiveQueryOperationDefinitionNode(prepared.operation, variables)) {
            if (inFlight.full()) return overCap();
            inFlight.hold(id);
          }
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
        watch.admitted(watched, prepared, undefined);
        if (prepared.step === 'subscription-limit') return refuseOverLimit(ctx, id, prepared.errors, refusals);
        countRefusal(ctx, refusals);
        // GraphQLErrors here are sent as an `error` message; onError formats them for the client.
        return prepared.errors;
      },
      onOperation: (_ctx, _id, _payload, args, result) => watch.answered(args, result),
      onNext: (_ctx, _id, _payload, args, result) => finish('graphql-ws', args.contextValue, result),
      onError: (ctx, id, _payload, errors) => {
        connections.get(ctx)?.inFlight.release(id);
        leave(ctx, id);
        const formatted = formatErrors(errors);
        const watched = wsWatchedOf(ctx, id);
        if (watched) watch.finish(watched, formatted);
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
