/**
 * The two subscription transports: `graphql-ws` (protocol `graphql-transport-ws`) on the
 * `ws` server at `/graphql`, and `graphql-sse` at `/graphql/stream`. Both run the
 * gateway's one request pipeline (src/pipeline/steps.ts) on every operation: the key,
 * sizes, public-site rules, the subscription limits, parsing, validation, bounds and the
 * cost limit, before anything is executed or polled; and its result phase
 * (src/pipeline/result-steps.ts: list-item errors, extensions.upstream, formatting,
 * redaction, response size, the report) on every result, event and live query result.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { GraphQLError, parse, subscribe as graphqlSubscribe } from 'graphql';
import type { ExecutionArgs, ExecutionResult, GraphQLFormattedError, GraphQLSchema } from 'graphql';
import { createHandler } from 'graphql-sse/lib/use/http';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocket, WebSocketServer } from 'ws';
import type { Logger } from 'pino';
import { isLiveQueryOperationDefinitionNode } from '@n1ru4l/graphql-live-query';
import { createContext } from '../context';
import type { GatewayServices } from '../context';
import { keyId } from '../economy';
import type { OperationReport } from '../observability/operation.plugin';
import type { GatewayTracing } from '../observability/tracing';
import type { Credential } from '../pipeline/credential';
import { hashedKey, readCredential } from '../pipeline/credential';
import type { Prepared, RequestPipeline } from '../pipeline/pipeline';
import { formatClientError } from '../pipeline/result-steps';
import { SUBSCRIPTION_KEYWORD } from '../pipeline/steps';
import type { Refusal } from '../pipeline/steps';
import { isAsyncIterator, livePatchFormat } from './live-queries';
import { OperationsInFlight, overOperationCap } from './operation-cap';
import { OperationWatch } from './operation-watch';
import type { WatchedOperation } from './operation-watch';
import type { LiveQueries, LivePatchFormat, LiveRun } from './live-queries';
import { SubscriptionConnection } from './subscription-service';
import { SseReservations, releaseSseToken } from './sse-reservations';
import { limitCloseHandshake } from './ws-close';
import type { SseReservationLimits } from './sse-reservations';
import type { SubscriptionContext, SubscriptionService } from './subscription-service';

/** What the transports need. */
export interface SubscriptionTransportOptions {
  /** The schema operations execute on. */
  schema: GraphQLSchema;
  /** What a context is built from. */
  services: GatewayServices;
  /** The subscription limits and pollers. */
  subscriptions: SubscriptionService;
  /** The gateway's request pipeline (the same one HTTP runs). */
  pipeline: RequestPipeline;
  /** Runs queries marked `@live` (and every other query and mutation). */
  liveQueries: LiveQueries;
  /** Close a WebSocket that sent no `connection_init` within this time, ms. */
  connectionInitTimeoutMs: number;
  /** Most queries and mutations in flight at once on one WebSocket (`OPERATIONS_MAX_PER_CONNECTION`, see operation-cap.ts). */
  operationsMaxPerConnection: number;
  /** Interval of WebSocket pings (a peer that misses one is dropped) and SSE keep-alive comments, ms. */
  keepAliveMs: number;
  /** Where the transports log. */
  logger?: Logger;
  /** Lifetime and caps of graphql-sse reservations not yet connected (`SSE_RESERVATION_TTL_MS`, …); none: unbounded. */
  sseReservations?: SseReservationLimits;
  /** Traces each operation in a span of its own when tracing is on (src/observability/tracing.ts). */
  tracing?: GatewayTracing;
  /** Counts and logs each operation at its first answer, as over HTTP (`reportOperation` of src/observability/operation.plugin.ts). */
  reportOperation?: (report: OperationReport) => void;
  /** The client address of a request (`TRUSTED_PROXIES`, see src/http/client-address.ts); none: the socket's. */
  clientAddress?: (request: IncomingMessage) => string;
}

/**
 * Refused subscribe messages (any operation the pipeline refused, a subscription over
 * a limit included) one WebSocket may send within {@link REFUSAL_WINDOW_MS}; the next one
 * closes it with {@link TOO_MANY_REFUSALS_CLOSE_CODE}.
 */
export const MAX_REFUSED_SUBSCRIBES = 100;

/** The window {@link MAX_REFUSED_SUBSCRIBES} counts in, ms. */
export const REFUSAL_WINDOW_MS = 10_000;

/** The close code of a WebSocket that sent too many refused subscribe messages: 4429, as graphql-ws closes for too many requests. */
export const TOO_MANY_REFUSALS_CLOSE_CODE = 4429;

/** The answer to a subscribe message on a closing WebSocket (never sent: the socket is closing). */
const CLOSING: readonly GraphQLError[] = [new GraphQLError('The connection is closing.')];

/** Counts one connection's refused subscribe messages in fixed windows of {@link REFUSAL_WINDOW_MS}. */
class RefusalCount {
  private windowStart = 0;
  private count = 0;

  /** Counts one refusal at `now` (ms); true when the connection is now over {@link MAX_REFUSED_SUBSCRIBES}. */
  add(now: number): boolean {
    if (now - this.windowStart >= REFUSAL_WINDOW_MS) {
      this.windowStart = now;
      this.count = 0;
    }
    this.count += 1;
    return this.count > MAX_REFUSED_SUBSCRIBES;
  }
}

/**
 * Stands in for a subscription refused over a limit (see {@link createSubscriptionTransports}):
 * never parsed per message, never executed.
 */
const REFUSED_SUBSCRIPTION = parse('subscription Refused { __typename }');

/** The headers a subscription context reads: none (the key comes as its credential; no secret header, no `Prefer`). */
const NO_HEADERS = new Map<string, string>();

/**
 * The context of an operation the pipeline let through: the key it runs with (the
 * server's in public-site mode), and the subscription scope (connection, limits), whose
 * `refresh` gives each event a fresh session and loaders.
 */
function contextOf(options: SubscriptionTransportOptions, prepared: Extract<Prepared, { kind: 'run' }>, connection: SubscriptionConnection, credential: Credential): SubscriptionContext {
  // The credential as the transport read it, hashed once (hashedKey) however often `refresh` runs.
  const build = (): SubscriptionContext => createContext(options.services, NO_HEADERS, credential, prepared.serverCredentials);
  const contextValue: SubscriptionContext = build();
  contextValue.subscription = {
    service: options.subscriptions,
    connection,
    refresh() {
      const { subscription } = contextValue;
      Object.assign(contextValue, build(), { subscription });
    },
  };
  return contextValue;
}

/** The refusal of each limit error, built once per error (the service builds each error once). */
const limitRefusals = new WeakMap<GraphQLError, Refusal>();

/**
 * Subscriptions admitted on each connection in the current turn of the event loop. `ws`
 * emits every message of a TCP chunk in one turn, and an admitted subscription starts
 * (and counts in `connection.active`) only in the microtasks after it: without this count
 * every subscribe of a burst's first chunk would pass the `subscription-limit` step and be
 * parsed and validated, to be refused only when it starts. Reset after the turn, when the
 * admitted ones have started (the service's own check at the start stays the authority).
 */
const admittedThisTurn = new WeakMap<SubscriptionConnection, number>();

/** Counts one admitted subscription on `connection` until the end of this turn. */
function admitThisTurn(connection: SubscriptionConnection): void {
  const admitted = admittedThisTurn.get(connection) ?? 0;
  if (admitted === 0) setImmediate(() => admittedThisTurn.delete(connection));
  admittedThisTurn.set(connection, admitted + 1);
}

/** Each graphql-ws connection's credential, read from its parameters (or upgrade request) on its first subscribe. */
const connectionCredentials = new WeakMap<SubscriptionConnection, Credential>();

/** Each connection's last server key (public-site mode) and its hash: a burst of subscribes on one connection hashes it once. */
const hashedKeys = new WeakMap<SubscriptionConnection, { apiKey: string; keyId: string }>();

/** The subscription limits of one connection as a pipeline step sees them (`subscription-limit`). */
function admitOn(options: SubscriptionTransportOptions, connection: SubscriptionConnection, credential: Credential): (apiKey: string | null, live: boolean) => Refusal | null {
  const idOf = (apiKey: string): string => {
    // The caller's own key: the hash its context uses too (hashedKey), computed once.
    const own = hashedKey(credential, options.services.config.keyHashSecret);
    if (own?.apiKey === apiKey) return own.keyId;
    let hashed = hashedKeys.get(connection);
    if (hashed?.apiKey !== apiKey) {
      hashed = { apiKey, keyId: keyId(apiKey, options.services.config.keyHashSecret) };
      hashedKeys.set(connection, hashed);
    }
    return hashed.keyId;
  };
  return (apiKey, live) => {
    const admitted = admittedThisTurn.get(connection) ?? 0;
    // Counted with those admitted in this turn, which have not started yet (see admittedThisTurn).
    const counted = admitted === 0 ? connection : { transport: connection.transport, active: connection.active + admitted, address: connection.address };
    // A live query may join an identical one of its key already running: only the
    // connection's and the address's limits are known before it is parsed.
    const error = live ? options.subscriptions.liveLimitRefusal(counted) : options.subscriptions.limitRefusal(apiKey ? idOf(apiKey) : null, counted);
    if (!error) return null;
    options.subscriptions.refuse(error);
    let refusal = limitRefusals.get(error);
    if (!refusal) {
      const { code, ...extensions } = error.extensions;
      refusal = { code, message: error.message, status: 429, extensions };
      limitRefusals.set(error, refusal);
    }
    return refusal;
  };
}

/**
 * Closes a WebSocket that sent too many refused subscribe messages with
 * {@link TOO_MANY_REFUSALS_CLOSE_CODE}, and makes whatever it sends after cost nothing:
 * graphql-ws's message listener goes (the messages of the chunk being read are dropped),
 * and the bytes still coming (the rest of a burst, then the peer's close frame) are read
 * and dropped unparsed, so the socket sees the peer's end of the connection and closes at
 * once. `ws` reads a socket through its `data` events (ws 8); the close frame was written
 * before, so the peer still gets the code.
 */
function closeForRefusals(socket: WebSocket, request: IncomingMessage): void {
  socket.removeAllListeners('message');
  socket.close(TOO_MANY_REFUSALS_CLOSE_CODE, 'Too many refused subscribe messages');
  request.socket.removeAllListeners('data');
  request.socket.on('data', () => undefined);
}

/**
 * A subscribe payload whose text may hold a subscription or a live query (the keyword or
 * `@live`, as the pipeline's `subscription-limit` step tests it): the subscription limits
 * decide on those, the cap on operations in flight on the others.
 */
function mayBeStreaming(payload: unknown): boolean {
  const query = payload && typeof payload === 'object' ? (payload as Record<string, unknown>).query : undefined;
  return typeof query === 'string' && SUBSCRIPTION_KEYWORD.test(query);
}

/** Runs the pipeline on one subscribe request. */
function prepare(options: SubscriptionTransportOptions, transport: 'graphql-ws' | 'graphql-sse', payload: unknown, credential: Credential, connection: SubscriptionConnection): Prepared {
  const body = payload && typeof payload === 'object' ? (payload as Record<string, unknown>) : {};
  const prepared = options.pipeline.prepare(transport, body, credential, admitOn(options, connection, credential));
  if (prepared.kind === 'run' && prepared.operation.operation === 'subscription') admitThisTurn(connection);
  return prepared;
}

/** Errors of an `error` message, formatted as a result's are (the result phase's `format-errors`). */
function formatErrors(errors: readonly GraphQLError[]): GraphQLFormattedError[] {
  return errors.map((error) => formatClientError(error));
}

/** The operation's context, when `value` is one (not the marker of a subscription refused over a limit). */
function operationContext(value: unknown): SubscriptionContext | null {
  return value !== null && typeof value === 'object' && 'itemErrors' in value && 'session' in value ? (value as SubscriptionContext) : null;
}

/** The W3C trace context a WebSocket's connection parameters carry (a browser cannot set the upgrade request's headers). */
function traceCarrier(headers: IncomingMessage['headers'], params: Record<string, unknown> | undefined): IncomingMessage['headers'] {
  const { traceparent, tracestate } = params ?? {};
  if (typeof traceparent !== 'string') return headers;
  return { ...headers, traceparent, ...(typeof tracestate === 'string' ? { tracestate } : {}) };
}

/** The reservation token of a graphql-sse request (header or `token` parameter), or null. */
function streamToken(req: IncomingMessage): string | null {
  const header = req.headers['x-graphql-event-stream-token'];
  if (typeof header === 'string' && header) return header;
  return new URL(req.url ?? '/', 'http://gateway.invalid').searchParams.get('token') || null;
}

/** The attached transports. */
export interface SubscriptionTransports {
  /** Answers a request to `/graphql/stream` (graphql-sse). */
  handleSse(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Takes an HTTP upgrade; false when it is not for `/graphql` (the caller refuses it). */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** Closes every WebSocket and stops the pollers' subscribers. */
  close(): Promise<void>;
}

/**
 * Creates both transports. The caller routes `/graphql/stream` to `handleSse` and the
 * server's `upgrade` events to `handleUpgrade`.
 */
export function createSubscriptionTransports(options: SubscriptionTransportOptions): SubscriptionTransports {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  const addressOf = options.clientAddress ?? ((request: IncomingMessage): string => request.socket.remoteAddress ?? 'unknown');
  const connections = new WeakMap<object, { connection: SubscriptionConnection; refusals: RefusalCount; inFlight: OperationsInFlight }>();
  const connectionOf = (ctx: object, request: IncomingMessage): { connection: SubscriptionConnection; refusals: RefusalCount; inFlight: OperationsInFlight } => {
    let state = connections.get(ctx);
    if (!state) {
      state = { connection: new SubscriptionConnection('ws', addressOf(request)), refusals: new RefusalCount(), inFlight: new OperationsInFlight(options.operationsMaxPerConnection) };
      connections.set(ctx, state);
    }
    return state;
  };
  // Subscriptions refused over a limit: answered like any refused subscription (a
  // result with the error, then complete), without executing anything.
  const refusedOverLimit = new WeakMap<object, readonly GraphQLError[]>();
  // The patch format each live query's client asked for, by its context.
  const patchFormats = new WeakMap<object, LivePatchFormat>();
  // Each operation's span, log line and metrics; a WebSocket's operations also by id
  // (graphql-ws's onComplete and onError name an operation only by its id).
  const watch = new OperationWatch(options.reportOperation, options.tracing);
  const wsWatched = new WeakMap<object, Map<string, WatchedOperation>>();
  const wsWatchedOf = (ctx: object, id: string): WatchedOperation | undefined => {
    const watched = wsWatched.get(ctx)?.get(id);
    if (watched) wsWatched.get(ctx)?.delete(id);
    return watched;
  };
  // graphql-sse operations posted to a reservation (single connection mode): whether the
  // client is gone, asked when the operation's stream is ready (see `unlessAbandoned`).
  const abandonedChecks = new WeakMap<object, () => boolean>();
  // Reservations (their connections) whose event stream closed.
  const closedStreams = new WeakSet<SubscriptionConnection>();
  /**
   * `result`, ended at once when its client left while it started: graphql-sse returns a
   * reservation's operations when its stream closes, but not one whose start (a
   * subscription's first poll) was still under way then, nor one whose POST the client
   * aborted before the 202 (graphql-sse's client then sends no DELETE). Either would run on
   * a closed stream for good, holding its place and poller.
   */
  const unlessAbandoned = <T>(contextValue: unknown, result: T): T => {
    const abandoned = contextValue && typeof contextValue === 'object' ? abandonedChecks.get(contextValue) : undefined;
    if (!abandoned) return result;
    const check = (value: unknown): void => {
      if (isAsyncIterator<unknown>(value) && abandoned()) void value.return?.();
    };
    if (result instanceof Promise) return result.then((value: unknown) => (check(value), value)) as T;
    check(result);
    return result;
  };
  // The contexts of live queries: the result phase's `execution` steps ran at the end of
  // each run, with that run's item errors and session; onNext runs the `delivery` steps.
  const liveContexts = new WeakSet<object>();
  // The result phase on a result about to be sent (a live query's: its `delivery` phase).
  const finish = (transport: 'graphql-ws' | 'graphql-sse', contextValue: unknown, result: ExecutionResult): ExecutionResult => {
    const context = operationContext(contextValue);
    const live = context !== null && liveContexts.has(context);
    return options.pipeline.finishResult(
      { transport, result, execution: context, delivery: context, report: ({ result: sent }) => watch.next(contextValue, sent) },
      live ? ['delivery'] : undefined,
    );
  };
  const execute = (args: ExecutionArgs): ReturnType<LiveQueries['execute']> => {
    const patches = args.contextValue && typeof args.contextValue === 'object' ? (patchFormats.get(args.contextValue) ?? null) : null;
    const context = operationContext(args.contextValue);
    const transport = context?.subscription?.connection.transport === 'sse' ? 'graphql-sse' : 'graphql-ws';
    const finishRun = (result: ExecutionResult, run: LiveRun): ExecutionResult =>
      options.pipeline.finishResult({ transport, result, execution: run, delivery: context }, ['execution']);
    // A live query's first execution starts when the transport first reads its results: in the span too.
    const results = unlessAbandoned(args.contextValue, watch.run(args.contextValue, () => options.liveQueries.execute(args, patches, (work) => watch.run(args.contextValue, work), finishRun)));
    if (context && isAsyncIterator(results)) liveContexts.add(context);
    return results;
  };
  const subscribe = (args: ExecutionArgs): ReturnType<typeof graphqlSubscribe> | ExecutionResult => {
    const refused = args.contextValue && typeof args.contextValue === 'object' ? refusedOverLimit.get(args.contextValue) : undefined;
    if (refused) return { errors: refused };
    return unlessAbandoned(args.contextValue, watch.run(args.contextValue, () => graphqlSubscribe(args)));
  };
  const wsServer = useServer<Record<string, unknown> | undefined>(
    {
      schema: options.schema,
      connectionInitWaitTimeout: options.connectionInitTimeoutMs,
      subscribe,
      execute,
      onSubscribe(ctx, id, payload) {
        // Messages that arrive while the socket closes (e.g. after 4429) cost nothing more.
        if (ctx.extra.socket.readyState !== WebSocket.OPEN) return CLOSING;
        const params = ctx.connectionParams ?? {};
        const fromParams = params.authorization ?? params.Authorization;
        const { connection, refusals, inFlight } = connectionOf(ctx, ctx.extra.request);
        // Read once per connection: its parameters and upgrade request do not change.
        let credential = connectionCredentials.get(connection);
        if (!credential) {
          credential = readCredential(fromParams ?? ctx.extra.request.headers.authorization, ctx.extra.request.headers.origin);
          connectionCredentials.set(connection, credential);
        }
        const watched = watch.begin('graphql-ws', () => traceCarrier(ctx.extra.request.headers, ctx.connectionParams));
        // Queries and mutations over OPERATIONS_MAX_PER_CONNECTION (see operation-cap.ts):
        // refused before the pipeline, unless the text may hold a subscription (whose limits
        // the pipeline checks), and then once parsed.
        const overCap = (): ExecutionArgs => {
          const errors = overOperationCap(inFlight.max);
          watch.finish(watched, errors, 'rejected');
          if (refusals.add(Date.now())) closeForRefusals(ctx.extra.socket, ctx.extra.request);
          const marker = {};
          refusedOverLimit.set(marker, errors);
          return { schema: options.schema, document: REFUSED_SUBSCRIPTION, contextValue: marker };
        };
        if (inFlight.full() && !mayBeStreaming(payload)) return overCap();
        const prepared = prepare(options, 'graphql-ws', payload, credential, connection);
        if (prepared.kind === 'run') {
          const { document, operationName, variables } = prepared;
          if (prepared.operation.operation !== 'subscription' && !isLiveQueryOperationDefinitionNode(prepared.operation, variables)) {
            if (inFlight.full()) return overCap();
            inFlight.hold(id);
          }
          const contextValue = contextOf(options, prepared, connection, credential);
          patchFormats.set(contextValue, livePatchFormat(payload.extensions));
          watch.admitted(watched, prepared, contextValue);
          wsWatched.set(ctx, (wsWatched.get(ctx) ?? new Map<string, WatchedOperation>()).set(id, watched));
          return { schema: options.schema, document, operationName, variableValues: variables, contextValue };
        }
        watch.admitted(watched, prepared, undefined);
        if (refusals.add(Date.now())) closeForRefusals(ctx.extra.socket, ctx.extra.request);
        if (prepared.step === 'subscription-limit') {
          const marker = {};
          refusedOverLimit.set(marker, prepared.errors);
          return { schema: options.schema, document: REFUSED_SUBSCRIPTION, contextValue: marker };
        }
        // GraphQLErrors here are sent as an `error` message; onError formats them for the client.
        return prepared.errors;
      },
      onOperation: (_ctx, _id, _payload, args, result) => watch.answered(args, result),
      onNext: (_ctx, _id, _payload, args, result) => finish('graphql-ws', args.contextValue, result),
      onError: (ctx, id, _payload, errors) => {
        connections.get(ctx)?.inFlight.release(id);
        const formatted = formatErrors(errors);
        const watched = wsWatchedOf(ctx, id);
        if (watched) watch.finish(watched, formatted);
        return formatted as unknown as GraphQLError[];
      },
      onComplete: (ctx, id) => {
        connections.get(ctx)?.inFlight.release(id);
        const watched = wsWatchedOf(ctx, id);
        if (watched) watch.finish(watched, undefined);
      },
    },
    wss,
    options.keepAliveMs,
  );

  // graphql-sse: one connection per request ("distinct connections"), or per reservation token.
  const reservations = new Map<string, SubscriptionConnection>();
  const sseConnectionOf = (token: string | null | undefined, request: IncomingMessage): SubscriptionConnection => {
    if (!token) return new SubscriptionConnection('sse', addressOf(request));
    for (const [held, connection] of reservations) if (connection.active === 0 && held !== token) reservations.delete(held);
    let connection = reservations.get(token);
    if (!connection) {
      connection = new SubscriptionConnection('sse', addressOf(request));
      reservations.set(token, connection);
    }
    return connection;
  };
  // Reservations (PUT) not yet connected expire and are capped (src/subscriptions/sse-reservations.ts).
  const sseReservations: SseReservations | null = options.sseReservations ? new SseReservations({ addressOf, ...options.sseReservations }, (token): Promise<void> => releaseSseToken(sse, token)) : null;
  const sse = createHandler({
    schema: options.schema,
    ...(sseReservations ? { authenticate: sseReservations.authenticate } : {}),
    execute,
    subscribe: (args) => unlessAbandoned(args.contextValue, graphqlSubscribe(args)),
    onSubscribe(req, params) {
      const token = req.headers.get('x-graphql-event-stream-token') ?? new URL(req.url, 'http://gateway.invalid').searchParams.get('token');
      const connection = sseConnectionOf(token, req.raw);
      const watched = watch.begin('graphql-sse', () => req.raw.headers);
      const credential = readCredential(req.headers.get('authorization'), req.headers.get('origin'));
      const prepared = prepare(options, 'graphql-sse', params, credential, connection);
      // graphql-sse takes a result for one only when it has a `data` key; onNext formats it.
      if (prepared.kind === 'refused') {
        watch.admitted(watched, prepared, undefined);
        return { data: null, errors: prepared.errors };
      }
      const { document, operationName, variables } = prepared;
      const contextValue = contextOf(options, prepared, connection, credential);
      patchFormats.set(contextValue, livePatchFormat(params.extensions));
      watch.admitted(watched, prepared, contextValue);
      if (token && req.headers.get('accept') !== 'text/event-stream') {
        // Posted to a reservation: abandoned when this POST ends unanswered or the reservation's stream closes.
        const post = req.context.res;
        abandonedChecks.set(contextValue, () => (post.destroyed && !post.writableFinished) || closedStreams.has(connection));
      }
      return { schema: options.schema, document, operationName, variableValues: variables, contextValue: contextValue as unknown as Record<string, unknown> };
    },
    // graphql-sse's operation context is the context onSubscribe gave the operation.
    onOperation: (_ctx, _req, args, result) => watch.answered(args, result),
    onNext: (ctx, _req, result) => finish('graphql-sse', ctx, result as ExecutionResult),
    onComplete: (ctx) => {
      const watched = watch.of(ctx);
      if (watched) watch.finish(watched, undefined);
    },
  });

  const sockets = new Set<Duplex>();
  // The SSE responses open now: a stop ends them (nothing else would before the grace period).
  const sseResponses = new Set<ServerResponse>();
  let closing: Promise<void> | undefined;
  return {
    async handleSse(req, res) {
      sseResponses.add(res);
      res.once('close', () => sseResponses.delete(res));
      const token = req.headers.accept === 'text/event-stream' ? streamToken(req) : null;
      if (token) {
        const reserved = reservations.get(token);
        if (reserved) closedStreams.delete(reserved);
        res.once('close', () => {
          const connection = reservations.get(token);
          if (connection) closedStreams.add(connection);
        });
      }
      // Keep-alive comments stop proxies from closing an idle stream.
      const keepAlive = setInterval(() => {
        if (res.headersSent && !res.writableEnded) res.write(':\n\n');
      }, options.keepAliveMs);
      res.once('close', () => clearInterval(keepAlive));
      try {
        await (sseReservations ? sseReservations.handle(req, res, () => sse(req, res)) : sse(req, res));
      } finally {
        if (res.writableEnded) clearInterval(keepAlive);
      }
    },
    handleUpgrade(req, socket, head) {
      const path = new URL(req.url ?? '/', 'http://gateway.invalid').pathname;
      if (path !== '/graphql') return false;
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      wss.handleUpgrade(req, socket, head, (ws) => {
        // A peer that never answers the gateway's close frame is dropped after a second, not 30 s.
        limitCloseHandshake(ws);
        wss.emit('connection', ws, req);
      });
      return true;
    },
    close() {
      closing ??= (async () => {
        sseReservations?.close();
        // An SSE stream has no close handshake: its connection ends (a client reconnects, e.g.
        // EventSource, to another replica), and graphql-sse returns its operations.
        for (const res of sseResponses) res.destroy();
        // Every WebSocket gets 1001 (going away); `ws` would wait 30 s for a peer that does not
        // answer it, so one that has not within the keep-alive interval is cut.
        const disposed = wsServer.dispose();
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([disposed, new Promise<void>((resolve) => (timer = setTimeout(resolve, options.keepAliveMs)))]);
        } finally {
          clearTimeout(timer);
        }
        for (const socket of sockets) socket.destroy();
        await disposed;
        await new Promise<void>((resolve) => wss.close(() => resolve()));
      })();
      return closing;
    },
  };
}
