import { createServer } from 'node:http';
import { join } from 'node:path';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApolloServer } from '@apollo/server';
import type { ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginCacheControl } from '@apollo/server/plugin/cacheControl';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import ApolloServerPluginResponseCache from '@apollo/server-plugin-response-cache';
import { InMemoryLRUCache } from '@apollo/utils.keyvaluecache';
import type { DestinationStream, Logger } from 'pino';
import { DEFAULT_CONFIG } from './config';
import type { GatewayConfig } from './config';
import { bearerToken, createContext } from './context';
import type { GatewayContext, GatewayServices } from './context';
import { RedisSharedState } from './economy/redis-state';
import { UpstreamEconomy } from './economy/upstream-economy';
import { costPlugin } from './graph/cost.plugin';
import { createLogger } from './observability/logger';
import { projectRoot } from './project-root';
import { GatewayMetrics } from './observability/metrics';
import { operationPlugin } from './observability/operation.plugin';
import { formatError } from './errors/format-error';
import { boundsPlugin } from './graph/bounds.plugin';
import { buildGatewaySchema } from './graph/schema';
import { UpstreamClient } from './upstream/client';
import { createCors } from './web/cors';
import { sendPlaygroundAsset, sendPlaygroundPage, wantsPlayground } from './web/playground';
import { PublicSite } from './web/public-site';
import type { GraphQLRequestInput, ServerCredentials } from './web/public-site';
import { sendStaticFile } from './web/static-files';
import { BodyTooLargeError, executeOnApollo, readGraphQLRequest, sendJson } from './web/apollo-http';
import type { Dispatcher } from 'undici';

/** The gateway's process-wide parts, created once and shared by every operation. */
export interface GatewayRuntime {
  /** The Apollo server (tests call `executeOperation` on it with a context from {@link createContext}). */
  readonly apollo: ApolloServer<GatewayContext>;
  /** The shared upstream client (the only HTTP client to the StateV API). */
  readonly upstream: UpstreamClient;
  /** Cache, coalescing and per-key limits. */
  readonly economy: UpstreamEconomy;
  /** Prometheus metrics. */
  readonly metrics: GatewayMetrics;
  /** Structured logger. */
  readonly logger: Logger;
  /** Redis shared by replicas, when `REDIS_URL` is set. */
  readonly shared: RedisSharedState | undefined;
  /** What {@link createContext} needs. */
  readonly services: GatewayServices;
}

/** A running gateway. */
export interface Gateway extends GatewayRuntime {
  /** `http://host:port` it listens on. */
  readonly url: string;
  /** The HTTP server. */
  readonly httpServer: Server;
  /** Stops accepting requests, drains Apollo and closes upstream connections. */
  stop(): Promise<void>;
}

/** Options for tests and embedding. */
export interface GatewayOptions {
  /** An undici dispatcher for the upstream (tests pass a `MockAgent`). */
  dispatcher?: Dispatcher;
  /** Where log lines go (default stdout). */
  logDestination?: DestinationStream;
  /** Clock for cache ages and limits (default `Date.now`). */
  now?: () => number;
  /** Randomness for retry jitter (default `Math.random`). */
  random?: () => number;
}

/**
 * Creates everything but the HTTP listener: what resolver tests use with
 * `executeOperation`, and what {@link startGateway} serves.
 */
export async function createApollo(config: GatewayConfig, options: GatewayOptions = {}): Promise<GatewayRuntime> {
  const metrics = new GatewayMetrics();
  const logger = createLogger(config.logLevel, options.logDestination);
  const upstream = new UpstreamClient({
    baseUrl: config.upstreamBaseUrl,
    timeoutMs: config.upstreamTimeoutMs,
    connections: config.upstreamConnections,
    dispatcher: options.dispatcher,
  });
  upstream.observe((observation) => metrics.upstream(observation));
  if (config.redisUrl && config.keyHashSecret === DEFAULT_CONFIG.keyHashSecret) {
    logger.warn('KEY_HASH_SECRET is not set: Redis keys use the built-in default. Set your own secret, the same on every replica.');
  }
  const shared = config.redisUrl
    ? new RedisSharedState({
        url: config.redisUrl,
        commandTimeoutMs: config.redisTimeoutMs,
        ratePerMinute: config.upstreamRatePerMinute,
        prefix: config.redisPrefix,
        logger,
        onError: () => metrics.redisErrors.inc(),
        onState: (up) => metrics.redisUp.set(up ? 1 : 0),
      })
    : undefined;
  const economy = new UpstreamEconomy(
    upstream,
    {
      cacheEnabled: config.cacheEnabled,
      cacheMaxBytes: config.cacheMaxBytes,
      ttlSeconds: config.cacheTtlSeconds,
      staleMaxAgeSeconds: config.staleMaxAgeSeconds,
      defaultBackoffSeconds: config.rateLimitBackoffSeconds,
      retryDelayMs: config.upstreamRetryDelayMs,
      ratePerMinute: config.upstreamRatePerMinute,
      burst: Math.max(1, config.upstreamRateBurst),
      concurrencyPerKey: config.upstreamConcurrencyPerKey,
      queueTimeoutMs: config.upstreamQueueTimeoutMs,
      now: options.now,
      random: options.random,
      shared,
      sharedLockMs: config.upstreamTimeoutMs + 1000,
    },
    metrics.economyEvents(),
  );
  const apollo = new ApolloServer<GatewayContext>({
    schema: await buildGatewaySchema(),
    introspection: config.introspection,
    csrfPrevention: true,
    includeStacktraceInErrorResponses: config.nodeEnv === 'development',
    formatError,
    plugins: [
      costPlugin({ maxUpstreamRequests: config.maxUpstreamRequests, maxDepth: config.maxDepth, assumptions: config.costAssumptions }),
      boundsPlugin(),
      // Cache hints only feed the response cache: no Cache-Control headers for browsers.
      ApolloServerPluginCacheControl({ defaultMaxAge: Math.max(...Object.values(config.cacheTtlSeconds)), calculateHttpHeaders: false }),
      // Before the operation plugin, whose willSendResponse reads the `age` this one sets.
      ...(config.cacheEnabled && config.responseCacheEnabled ? [responseCachePlugin(economy, config.responseCacheMaxBytes)] : []),
      operationPlugin(metrics, logger),
      ApolloServerPluginLandingPageDisabled(),
    ],
  });
  return { apollo, upstream, economy, metrics, logger, shared, services: { economy, config } };
}

/**
 * The per-key whole-operation response cache (`@apollo/server-plugin-response-cache`):
 * sessions are hashed keys, entries live no longer than the freshest-expiring upstream
 * answer they were built from, a key's writes invalidate all its entries (its
 * generation is part of the cache key), and `Cache-Control: no-cache` bypasses it.
 */
function responseCachePlugin(economy: UpstreamEconomy, maxBytes: number): ApolloServerPlugin<GatewayContext> {
  return ApolloServerPluginResponseCache<GatewayContext>({
    cache: new InMemoryLRUCache<string>({ maxSize: maxBytes }),
    sessionId: async ({ contextValue }) => contextValue.session.keyId,
    extraCacheKeyData: async ({ contextValue }) => (contextValue.session.keyId ? economy.generation(contextValue.session.keyId) : 0),
    shouldReadFromCache: async ({ contextValue }) => !contextValue.session.noCache,
    shouldWriteToCache: async ({ contextValue }) => contextValue.session.accounting.stale === 0,
  });
}

async function handleGraphQL(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  runtime: GatewayRuntime,
  config: GatewayConfig,
  publicSite: PublicSite,
): Promise<void> {
  const request = await readGraphQLRequest(req, config.maxBodyBytes);
  if (request === 'invalid-json') {
    sendJson(res, 400, { errors: [{ message: 'The request body is not valid JSON.', extensions: { code: 'BAD_REQUEST' } }] });
    return;
  }
  // Public-site mode: resolve trusted documents by hash, and decide whose key runs it.
  const params = new URLSearchParams(url.search);
  const body = request.body;
  const input: GraphQLRequestInput | null =
    req.method === 'POST'
      ? body && typeof body === 'object' && !Array.isArray(body)
        ? { kind: 'post', body: body as Record<string, unknown> }
        : null
      : { kind: 'get', params };
  let credentials: ServerCredentials | null = null;
  if (input) {
    const decision = publicSite.decide(input, bearerToken(request.headers.get('authorization')) !== null);
    if (decision.kind === 'refuse') {
      sendJson(res, 400, { errors: [{ message: decision.message, extensions: { code: decision.code } }] });
      return;
    }
    credentials = decision.credentials;
  }
  await executeOnApollo(runtime.apollo, req, res, {
    headers: request.headers,
    body,
    search: input?.kind === 'get' ? `?${params.toString()}` : url.search,
    context: async () => createContext(runtime.services, req.headers, credentials),
  });
}

/**
 * Starts the gateway on `config.host:config.port`: `POST`/`GET /graphql` (and the
 * playground for browsers), `GET /healthz`, `GET /metrics`, CORS for `CORS_ORIGINS`,
 * public-site mode when configured, and `/examples/` with `SERVE_EXAMPLES`.
 * Resolves once the server accepts requests.
 *
 * @throws Error when the trusted-documents manifest cannot be loaded, or the port is taken.
 */
export async function startGateway(config: GatewayConfig, options: GatewayOptions = {}): Promise<Gateway> {
  const runtime = await createApollo(config, options);
  const { apollo, upstream, economy, metrics } = runtime;
  await apollo.start();
  if (runtime.shared) {
    // Take requests only once Redis answers (else a new replica would fetch what the others
    // already have); a Redis that is down at start delays the start by at most 2 s.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([runtime.shared.whenUp(), new Promise<void>((resolve) => (timer = setTimeout(resolve, 2000)))]);
    clearTimeout(timer);
  }

  const publicSite = PublicSite.fromConfig(config);
  const applyCors = createCors(config.corsOrigins);
  const examplesRoot = join(projectRoot(), 'examples');

  const httpServer = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://gateway.invalid');
    const route = async (): Promise<void> => {
      if (await applyCors(req, res)) return; // a CORS preflight, answered
      const path = url.pathname;
      if (path === '/healthz' && (req.method === 'GET' || req.method === 'HEAD')) {
        sendJson(res, 200, { status: 'ok' });
        return;
      }
      if (path === '/metrics' && req.method === 'GET') {
        metrics.cacheEntries.set(economy.cache.size);
        metrics.cacheBytes.set(economy.cache.bytes);
        const text = await metrics.registry.metrics();
        res.writeHead(200, { 'content-type': metrics.registry.contentType });
        res.end(text);
        return;
      }
      if (path === '/' && (req.method === 'GET' || req.method === 'HEAD')) {
        res.writeHead(302, { location: '/graphql' });
        res.end();
        return;
      }
      if (path.startsWith('/playground/') && req.method === 'GET' && (await sendPlaygroundAsset(path.slice('/playground/'.length), res))) return;
      if (path === '/graphql') {
        if (req.method !== 'GET' && req.method !== 'POST') {
          res.writeHead(405, { allow: 'GET, POST' });
          res.end();
          return;
        }
        if (wantsPlayground(req.method, req.headers.accept)) {
          sendPlaygroundPage(res);
          return;
        }
        await handleGraphQL(req, res, url, runtime, config, publicSite);
        return;
      }
      if (config.serveExamples && path.startsWith('/examples/') && req.method === 'GET' && (await sendStaticFile(examplesRoot, '/examples/', path, res))) return;
      sendJson(res, 404, { error: 'Not found. The GraphQL endpoint is /graphql.' });
    };
    route().catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (error instanceof BodyTooLargeError) {
        // The rest of the upload is not read: close the connection after answering.
        res.setHeader('connection', 'close');
        sendJson(res, 413, { errors: [{ message: `The request body exceeds ${config.maxBodyBytes} bytes.`, extensions: { code: 'BAD_REQUEST' } }] });
        return;
      }
      sendJson(res, 500, { errors: [{ message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] });
    });
  });

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(config.port, config.host, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const address = httpServer.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    ...runtime,
    url: `http://${host}:${address.port}`,
    httpServer,
    async stop() {
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      });
      await apollo.stop();
      await upstream.close();
      await runtime.shared?.close();
    },
  };
}
