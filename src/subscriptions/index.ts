/**
 * Subscriptions, put together: the pollers ({@link PollHub}), the limits
 * ({@link SubscriptionService}), the Redis relay when replicas share Redis, and the two
 * transports. The HTTP server hands it `/graphql/stream` and its upgrade requests.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { GatewayConfig } from '../config';
import type { GatewayServices } from '../context';
import { perMinuteShare } from '../economy';
import { clientAddressReader } from '../http/client-address';
import type { UpstreamEconomy } from '../economy';
import type { RequestPipeline } from '../pipeline/pipeline';
import type { OperationReport } from '../observability/operation.plugin';
import type { GatewayTracing } from '../observability/tracing';
import { PollHub } from './poll-hub';
import type { PollClock } from './poll-hub';
import { RedisPollRelay } from './redis-relay';
import { SubscriptionMetrics } from './subscription-metrics';
import { SubscriptionService } from './subscription-service';
import { createSubscriptionTransports } from './transports';
import { LiveQueries } from './live-queries';
import { TokenStreams } from './token-streams';
import type { TokenSource } from './token-streams';
import { jitExecute } from '../graph/execution/jit-executor';

export type { PollClock } from './poll-hub';

/** The subscription side of a running gateway. */
export interface GatewaySubscriptions {
  /** Opens subscriptions and enforces `SUBSCRIPTIONS_MAX_PER_KEY` and `SUBSCRIPTIONS_MAX_PER_CONNECTION`. */
  readonly service: SubscriptionService;
  /** The pollers of this process (one per key and resource); its `activity` events let tests wait without sleeping. */
  readonly hub: PollHub;
  /** The live queries (`query @live`) of the transports. */
  readonly liveQueries: LiveQueries;
  /** Answers `/graphql/stream`. */
  handleSse(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Takes a WebSocket upgrade to `/graphql`; false for any other path. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** Ends every subscription and poller and closes the relay. */
  close(): Promise<void>;
}

/**
 * The requests per minute a key's polls may spend, from a rate limit and an allowance
 * (see `perMinuteShare` in the economy's budget, which the running gateway asks through
 * `UpstreamEconomy.pollShare`). Kept for callers that have the settings at hand.
 */
export function pollBudgetPerMinute(
  config: Pick<GatewayConfig, 'upstreamRateLimit' | 'subscriptionBudgetPercent'>,
  allowance: number,
): number {
  return perMinuteShare(config.upstreamRateLimit, allowance, config.subscriptionBudgetPercent);
}

/** Creates the subscription side from the settings and the gateway's shared parts. */
export function createGatewaySubscriptions(
  config: GatewayConfig,
  parts: {
    schema: GraphQLSchema;
    economy: UpstreamEconomy;
    services: GatewayServices;
    pipeline: RequestPipeline;
    registry: Registry;
    logger: Logger;
    onRedisError?: () => void;
    tracing?: GatewayTracing;
    reportOperation?: (report: OperationReport) => void;
    /** The vault, kept current (`LiveVault`): streams of access tokens end when theirs is revoked or expires. */
    vault?: TokenSource;
  },
  clock?: PollClock,
): GatewaySubscriptions {
  const metrics = new SubscriptionMetrics(parts.registry);
  const relay = config.redisUrl
    ? new RedisPollRelay({
        url: config.redisUrl,
        prefix: config.redisPrefix,
        commandTimeoutMs: config.redisTimeoutMs,
        logger: parts.logger,
        onError: parts.onRedisError,
      })
    : undefined;
  const hub = new PollHub({
    economy: parts.economy,
    // The freshness window: a poll sooner than that would only read the cache again.
    intervalMs: (feed) => Math.max(1000, config.cacheTtlSeconds[feed.endpoint.cacheKind] * 1000),
    errorEventsAfter: config.subscriptionErrorEventsAfter,
    retryBaseMs: config.subscriptionRetryBaseMs,
    // The key's share of its own budget, as the economy's budget knows it now (less after an upstream 429).
    pollBudgetPerMinute: (keyId) => parts.economy.pollShare(keyId, config.subscriptionBudgetPercent),
    clock,
    relay,
    metrics,
    logger: parts.logger,
  });
  // Accounts with open payment requests are polled by the same pollers as transactionAdded.
  parts.services.domains?.payments?.attach({ watch: (caller, feed, observer) => hub.watch(caller, feed, observer) });
  const service = new SubscriptionService(
    hub,
    {
      maxPerKey: config.subscriptionsMaxPerKey,
      maxPerConnection: config.subscriptionsMaxPerConnection,
      maxLiveSubscribersPerAddress: config.liveQuerySubscribersMaxPerAddress,
    },
    metrics,
  );
  // Live queries run as plain queries do: compiled by graphql-jit unless EXECUTION_JIT=false.
  const liveQueries = new LiveQueries({
    economy: parts.economy,
    throttleMs: config.liveQueryThrottleMs,
    ...(config.executionJit ? { executeRun: jitExecute(parts.schema) } : {}),
  });
  liveQueries.prepare(parts.schema);
  const tokenStreams = parts.vault ? new TokenStreams(parts.vault) : undefined;
  const transports = createSubscriptionTransports({
    schema: parts.schema,
    services: parts.services,
    subscriptions: service,
    pipeline: parts.pipeline,
    liveQueries,
    connectionInitTimeoutMs: config.subscriptionConnectionInitTimeoutMs,
    keepAliveMs: config.subscriptionKeepAliveMs,
    operationsMaxPerConnection: config.operationsMaxPerConnection,
    maxBodyBytes: config.maxBodyBytes,
    streamBounds: { maxQueuedBytes: config.streamMaxQueuedBytes, drainTimeoutMs: config.streamDrainTimeoutMs },
    sseDeadPeerTimeoutMs: config.sseDeadPeerTimeoutMs,
    sseReservations: {
      ttlMs: config.sseReservationTtlMs,
      maxPerAddress: config.sseReservationsMaxPerAddress,
      maxPerPeer: config.sseReservationsMaxPerPeer,
      max: config.sseReservationsMax,
    },
    logger: parts.logger,
    tracing: parts.tracing,
    reportOperation: parts.reportOperation,
    clientAddress: clientAddressReader(config.trustedProxies),
    tokenStreams,
  });
  return {
    service,
    hub,
    liveQueries,
    handleSse: (req, res) => transports.handleSse(req, res),
    handleUpgrade: (req, socket, head) => transports.handleUpgrade(req, socket, head),
    async close() {
      await transports.close();
      tokenStreams?.close();
      liveQueries.close();
      hub.close();
      await relay?.close();
    },
  };
}
