/**
 * The two subscription transports: `graphql-ws` (protocol `graphql-transport-ws`) on the
 * `ws` server at `/graphql`, and `graphql-sse` at `/graphql/stream`. Both prepare an
 * operation the same way ({@link prepareOperation}): credentials, public-site rules,
 * validation, bounds and the cost limit, before anything is executed or polled.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { getOperationAST, GraphQLError, NoSchemaIntrospectionCustomRule, parse, specifiedRules, validate } from 'graphql';
import type { DocumentNode, ExecutionArgs, ExecutionResult, GraphQLFormattedError, GraphQLSchema } from 'graphql';
import { createHandler } from 'graphql-sse/lib/use/http';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import type { Logger } from 'pino';
import { bearerToken, createContext } from '../context';
import type { GatewayServices } from '../context';
import { GatewayError } from '../errors/gateway-error';
import { formatError } from '../errors/format-error';
import { checkOperationBounds } from '../graph/bounds';
import { costError, measureCost } from '../graph/cost.plugin';
import { upstreamCostEstimator } from '../graph/cost';
import { depthLimitRule } from '../graph/depth.rule';
import { MAX_DOCUMENT_TOKENS } from '../graph/document-limits';
import type { CostLimits } from '../graph/cost.plugin';
import type { PublicSite } from '../web/public-site';
import { SubscriptionConnection } from './subscription-service';
import type { SubscriptionContext, SubscriptionService } from './subscription-service';

/** What the transports need. */
export interface SubscriptionTransportOptions {
  schema: GraphQLSchema;
  services: GatewayServices;
  subscriptions: SubscriptionService;
  publicSite: PublicSite;
  costLimits: CostLimits;
  /** Deepest operation accepted (`MAX_DEPTH`). */
  maxDepth: number;
  introspection: boolean;
  /** Close a WebSocket that sent no `connection_init` within this time, ms. */
  connectionInitTimeoutMs: number;
  /** Interval of WebSocket pings (a peer that misses one is dropped) and SSE keep-alive comments, ms. */
  keepAliveMs: number;
  logger?: Logger;
}

/** One subscribe request, whichever transport brought it. */
export interface OperationRequest {
  query: unknown;
  operationName?: unknown;
  variables?: unknown;
  extensions?: unknown;
  documentId?: unknown;
}

/**
 * The credentials of a subscription: a bearer key, none, or something that is not a
 * bearer key (refused with `UNAUTHENTICATED` when the client subscribes).
 */
export type Credential = { kind: 'key'; apiKey: string } | { kind: 'none' } | { kind: 'malformed' };

/** Reads `Bearer <key>` from a header or connection parameter value. */
export function credentialOf(value: unknown): Credential {
  if (value === undefined || value === null || value === '') return { kind: 'none' };
  const token = typeof value === 'string' ? bearerToken(value) : null;
  return token ? { kind: 'key', apiKey: token } : { kind: 'malformed' };
}

/**
 * Turns a subscribe request into execution arguments, or into the errors that refuse
 * it before any upstream request: `UNAUTHENTICATED` for a malformed key, the public-site
 * refusals, syntax and validation errors, `BAD_USER_INPUT` (bounds) and
 * `QUERY_TOO_EXPENSIVE` (the cost of executing the selection once, for each event).
 */
export function prepareOperation(
  options: SubscriptionTransportOptions,
  request: OperationRequest,
  credential: Credential,
  connection: SubscriptionConnection,
): { args: ExecutionArgs } | { errors: GraphQLError[] } {
  if (credential.kind === 'malformed') {
    return { errors: [new GatewayError('UNAUTHENTICATED', 'The authorization value is not "Bearer <API key>": send connectionParams {"authorization": "Bearer <key>"} (WebSocket) or the Authorization header (SSE).')] };
  }
  const decision = options.publicSite.decide({ kind: 'post', body: { ...request } }, credential.kind === 'key');
  if (decision.kind === 'refuse') return { errors: [new GraphQLError(decision.message, { extensions: { code: decision.code } })] };
  // A trusted document named by hash comes back with its text in place of the hash.
  const body = decision.parameters.body as Record<string, unknown>;
  const apiKey = decision.credentials?.apiKey ?? (credential.kind === 'key' ? credential.apiKey : null);

  if (typeof body.query !== 'string' || body.query === '') {
    return { errors: [new GraphQLError('The request has no query (or no known documentId).', { extensions: { code: 'BAD_REQUEST' } })] };
  }
  let document: DocumentNode;
  try {
    document = parse(body.query, { maxTokens: MAX_DOCUMENT_TOKENS });
  } catch (error) {
    return { errors: [error instanceof GraphQLError ? error : new GraphQLError('The query does not parse.')] };
  }
  const rules = [
    ...specifiedRules,
    depthLimitRule({ maxDepth: options.maxDepth, maxCost: options.costLimits.maxUpstreamRequests }),
    ...(options.introspection ? [] : [NoSchemaIntrospectionCustomRule]),
  ];
  const invalid = validate(options.schema, document, rules);
  if (invalid.length > 0) return { errors: [...invalid] };
  const operationName = typeof body.operationName === 'string' ? body.operationName : undefined;
  const variables = body.variables && typeof body.variables === 'object' ? (body.variables as Record<string, unknown>) : undefined;
  const operation = getOperationAST(document, operationName);
  if (!operation) return { errors: [new GraphQLError('Name the operation to run (operationName).', { extensions: { code: 'BAD_REQUEST' } })] };
  const outOfBounds = checkOperationBounds(options.schema, document, operation, variables);
  if (outOfBounds) return { errors: [outOfBounds] };
  const tooExpensive = costError(measureCost(options.schema, document, operation, variables, [upstreamCostEstimator(options.costLimits.assumptions, options.costLimits.optionSlots)]), options.costLimits);
  if (tooExpensive) return { errors: [tooExpensive] };

  const headers = new Map<string, string>(apiKey ? [['authorization', `Bearer ${apiKey}`]] : []);
  const credentials = decision.credentials;
  const build = (): SubscriptionContext => createContext(options.services, headers, credentials);
  const contextValue: SubscriptionContext = build();
  contextValue.subscription = {
    service: options.subscriptions,
    connection,
    refresh() {
      const { subscription } = contextValue;
      Object.assign(contextValue, build(), { subscription });
    },
  };
  return { args: { schema: options.schema, document, operationName, variableValues: variables, contextValue } };
}

/** Every error of a result through the gateway's `formatError` (unexpected errors masked). */
function formatResult<R extends ExecutionResult>(result: R): R {
  if (!result.errors) return result;
  const errors = result.errors.map((error) => formatError(error.toJSON(), error));
  return { ...result, errors: errors as unknown as GraphQLError[] };
}

function formatErrors(errors: readonly GraphQLError[]): GraphQLFormattedError[] {
  return errors.map((error) => formatError(error.toJSON(), error));
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
  const connections = new WeakMap<object, SubscriptionConnection>();
  const connectionOf = (ctx: object): SubscriptionConnection => {
    let connection = connections.get(ctx);
    if (!connection) {
      connection = new SubscriptionConnection('ws');
      connections.set(ctx, connection);
    }
    return connection;
  };
  const wsServer = useServer<Record<string, unknown> | undefined>(
    {
      schema: options.schema,
      connectionInitWaitTimeout: options.connectionInitTimeoutMs,
      onSubscribe(ctx, _id, payload) {
        const params = ctx.connectionParams ?? {};
        const fromParams = params.authorization ?? params.Authorization;
        const credential = credentialOf(fromParams ?? ctx.extra.request.headers.authorization);
        const prepared = prepareOperation(options, payload, credential, connectionOf(ctx));
        // GraphQLErrors here (graphql-ws checks); onError formats them for the client.
        return 'errors' in prepared ? prepared.errors : prepared.args;
      },
      onNext: (_ctx, _id, _payload, _args, result) => formatResult(result),
      onError: (_ctx, _id, _payload, errors) => formatErrors(errors) as unknown as GraphQLError[],
    },
    wss,
    options.keepAliveMs,
  );

  // graphql-sse: one connection per request ("distinct connections"), or per reservation token.
  const reservations = new Map<string, SubscriptionConnection>();
  const sseConnectionOf = (token: string | null | undefined): SubscriptionConnection => {
    if (!token) return new SubscriptionConnection('sse');
    for (const [held, connection] of reservations) if (connection.active === 0 && held !== token) reservations.delete(held);
    let connection = reservations.get(token);
    if (!connection) {
      connection = new SubscriptionConnection('sse');
      reservations.set(token, connection);
    }
    return connection;
  };
  const sse = createHandler({
    schema: options.schema,
    onSubscribe(req, params) {
      const token = req.headers.get('x-graphql-event-stream-token') ?? new URL(req.url, 'http://gateway.invalid').searchParams.get('token');
      const prepared = prepareOperation(options, params, credentialOf(req.headers.get('authorization')), sseConnectionOf(token));
      // graphql-sse takes a result for one only when it has a `data` key; onNext formats it.
      if ('errors' in prepared) return { data: null, errors: prepared.errors };
      return { ...prepared.args, contextValue: prepared.args.contextValue as Record<string, unknown> };
    },
    onNext: (_ctx, _req, result) => formatResult(result as ExecutionResult),
  });

  const sockets = new Set<Duplex>();
  return {
    async handleSse(req, res) {
      // Keep-alive comments stop proxies from closing an idle stream.
      const keepAlive = setInterval(() => {
        if (res.headersSent && !res.writableEnded) res.write(':\n\n');
      }, options.keepAliveMs);
      res.once('close', () => clearInterval(keepAlive));
      try {
        await sse(req, res);
      } finally {
        if (res.writableEnded) clearInterval(keepAlive);
      }
    },
    handleUpgrade(req, socket, head) {
      const path = new URL(req.url ?? '/', 'http://gateway.invalid').pathname;
      if (path !== '/graphql') return false;
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
      return true;
    },
    async close() {
      await wsServer.dispose();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
