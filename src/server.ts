/**
 * The gateway's standalone HTTP entry: wires the runtime (src/runtime.ts) to a
 * `node:http` server with the gateway's routes (src/web/router.ts), and stops it again
 * with a drain, as Apollo's `startStandaloneServer` does.
 */
import { createServer } from 'node:http';
import type { Server, ServerOptions } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GatewayConfig } from './config';
import { createGatewayRuntime } from './runtime';
import type { GatewayOptions, GatewayRuntime } from './runtime';
import { createGatewaySubscriptions } from './subscriptions';
import type { GatewaySubscriptions } from './subscriptions';
import { buildGatewaySchema } from './graph/schema';
import { reportOperation } from './observability/operation.plugin';
import { Readiness } from './web/readiness';
import { createRouter } from './web/router';
import { adminUnavailable, startAdmin } from './admin';
import { startAlerts } from './alerts';
import type { AlertSink, GatewayAlerts } from './alerts';
import { createAlertOutbox } from './alerts/alert-outbox';
import type { AlertOutbox } from './alerts/alert-outbox';

export type { GatewayOptions } from './runtime';

/** What {@link startGateway} takes beyond the runtime's options. */
export interface GatewayStartOptions extends GatewayOptions {
  /** Where alert events go; default: the delivery outbox (with a vault), else a sink that logs each event. */
  alertSink?: AlertSink;
}

/** A running gateway. */
export interface Gateway extends GatewayRuntime {
  /** `http://host:port` it listens on. */
  readonly url: string;
  /** The HTTP server. */
  readonly httpServer: Server;
  /** Subscriptions: pollers, limits and the WebSocket and SSE transports. */
  readonly subscriptions: GatewaySubscriptions;
  /** What `/readyz` answers: ready once started, draining once a stop began. */
  readonly readiness: Readiness;
  /** The vault's alert rules, watched on the subscriptions' pollers (null without a vault). */
  readonly alerts: GatewayAlerts | null;
  /**
   * Stops the gateway: `/readyz` answers 503 at once; after `config.shutdownDelayMs` of
   * serving as before, stops accepting connections, lets requests in flight finish for up
   * to `config.shutdownGracePeriodMs` (then closes their connections), stops Apollo, writes
   * the cache file (`CACHE_FILE`), and closes the upstream connections and Redis.
   */
  stop(): Promise<void>;
}

/**
 * How long a client may take to send a request (`HTTP_HEADERS_TIMEOUT_MS`,
 * `HTTP_REQUEST_TIMEOUT_MS`): a connection still sending its headers, or its body, after
 * that gets 408 and is closed, so half-sent requests cannot hold connections and memory
 * (Node's own defaults are 60 s and 300 s). Node checks the connections every
 * `connectionsCheckingInterval` (its default is 30 s, which would add up to 30 s to each
 * limit): here a quarter of the headers timeout, at most 1 s, so a half-sent header block
 * is closed within the headers timeout plus 1 s (11 s by default). Only receiving the
 * request counts: a long answer (an SSE stream, a WebSocket) is not limited by these.
 */
function slowClientLimits(config: Pick<GatewayConfig, 'httpHeadersTimeoutMs' | 'httpRequestTimeoutMs'>): ServerOptions {
  // Node refuses a headers timeout longer than the request timeout.
  const headersTimeout = Math.min(config.httpHeadersTimeoutMs, config.httpRequestTimeoutMs);
  return {
    headersTimeout,
    requestTimeout: config.httpRequestTimeoutMs,
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(headersTimeout / 4))),
  };
}

/**
 * Starts the gateway on `config.host:config.port` with the routes of `createRouter`
 * (`/graphql`, `/healthz`, `/readyz`, `/metrics`, the playground, `/examples/`). With Redis,
 * waits up to 2 s for it to answer first (`/readyz` answers 503 until it has answered once).
 * Resolves once the server accepts requests.
 *
 * @throws Error when the trusted-documents manifest cannot be loaded, or the port is taken.
 */
export async function startGateway(config: GatewayConfig, options: GatewayStartOptions = {}): Promise<Gateway> {
  const httpServer = createServer(slowClientLimits(config));
  const readiness = new Readiness();
  readiness.waitFor('schema');
  const runtime = await createGatewayRuntime(config, { ...options, httpServer });
  const { apollo, upstream } = runtime;
  const subscriptions = createGatewaySubscriptions(
    config,
    {
      schema: await buildGatewaySchema(),
      economy: runtime.economy,
      services: runtime.services,
      tracing: runtime.tracing,
      reportOperation: (report) => reportOperation(runtime.metrics, runtime.logger, report),
      pipeline: runtime.pipeline,
      registry: runtime.metrics.registry,
      logger: runtime.logger,
      onRedisError: () => runtime.metrics.redisErrors.inc(),
      vault: runtime.vault?.vault,
    },
    options.pollClock,
  );
  // The administration graph and the console's sign-in (/admin/graphql, /console/), with a vault only.
  let admin: Awaited<ReturnType<typeof startAdmin>> = null;
  let alerts: GatewayAlerts | null = null;
  let outbox: AlertOutbox | null = null;
  const stop = async (): Promise<void> => {
    readiness.drain();
    if (config.shutdownDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, config.shutdownDelayMs));
    await alerts?.close(); // the rules' watches, before their pollers stop
    await outbox?.close(); // deliveries under way end; what waits stays in the outbox for the next start
    await subscriptions.close(); // WebSockets and SSE streams would otherwise hold the drain
    await apollo.stop(); // drains httpServer first (see createGatewayRuntime's httpServer option)
    runtime.economy.close(); // no more refresh-ahead
    await runtime.persistence?.close(); // the last snapshot, with everything the drained requests fetched
    await upstream.close();
    await runtime.shared?.close();
    await admin?.close(); // the administration graph, its vault watch and console store
    await runtime.vault?.close(); // stops watching the vault (and its Redis connections)
    await runtime.payments.close(); // stops matching and expiring; the last write of the payments file
    await runtime.tracing?.shutdown(); // the spans still buffered
  };
  await apollo.start();
  readiness.met('schema');
  try {
    if (runtime.shared) {
      // Not ready until Redis has answered once. A later outage does not make the replica
      // unready: it serves from process memory meanwhile, and every replica failing its
      // probe at once would turn a Redis outage into a full one.
      readiness.waitFor('redis');
      void runtime.shared.whenUp().then(() => readiness.met('redis'));
      // Take requests only once Redis answers (else a new replica would fetch what the others
      // already have); a Redis that is down at start delays the start by at most 2 s.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        runtime.shared.whenUp(),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, 2000))),
      ]);
      clearTimeout(timer);
    }
    readiness.waitFor('cache file');
    await runtime.persistence?.load(); // before the first request: what was fresh at the last stop is served without upstream requests
    readiness.met('cache file');
    runtime.persistence?.start();
    // Alert rules ride the subscriptions' pollers (one poll per key and resource, whatever the number of rules).
    const vault = runtime.vault?.vault;
    if (vault) {
      const hub = subscriptions.hub;
      // Their deliveries wait in a restart-proof outbox (file beside the vault, or Redis).
      outbox = options.alertSink
        ? null
        : await createAlertOutbox(config, {
            onError: (error) => runtime.logger.warn({ error: error.message }, 'alert delivery'),
          });
      const sink = options.alertSink ?? outbox ?? undefined;
      alerts = await startAlerts(config, {
        vault,
        polling: { watch: (caller, feed, observer) => hub.watch(caller, feed, observer) },
        logger: runtime.logger,
        sink,
        now: options.now,
      });
    }
    admin = await startAdmin(config, {
      economy: runtime.economy,
      payments: runtime.payments.store,
      logger: runtime.logger,
      alerts,
      outbox,
      cacheOutcomes: () => runtime.metrics.cacheOutcomes(),
      publicVault: vault,
    });
    httpServer.on('request', createRouter(runtime, config, subscriptions, readiness, admin ?? adminUnavailable()));
    // WebSocket subscriptions (graphql-transport-ws) upgrade on /graphql; any other upgrade is refused.
    httpServer.on('upgrade', (req, socket, head) => {
      if (!subscriptions.handleUpgrade(req, socket, head)) socket.destroy();
    });
    await new Promise<void>((resolve, reject) => {
      httpServer.once('error', reject);
      httpServer.listen(config.port, config.host, () => {
        httpServer.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await stop().catch(() => undefined); // the start's own error is the one to report
    throw error;
  }
  const address = httpServer.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    ...runtime,
    url: `http://${host}:${address.port}`,
    httpServer,
    subscriptions,
    readiness,
    alerts,
    stop,
  };
}
