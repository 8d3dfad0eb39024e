import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { GatewayConfig } from '../config';
import { projectRoot } from '../project-root';
import type { GatewayRuntime } from '../runtime';
import { BodyTooLargeError, sendGraphQLErrors, sendJson } from './apollo-http';
import { createCors } from './cors';
import { handleGraphQLRequest } from './graphql-request';
import { sendPlaygroundAsset, sendPlaygroundPage, wantsPlayground } from './playground';
import type { Readiness } from './readiness';
import { sendStaticFile } from './static-files';

/** A `node:http` request listener. */
export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Where `/graphql/stream` goes: the Server-Sent Events transport of the subscriptions
 * (`GatewaySubscriptions.handleSse` of `src/subscriptions/`, which sits above this layer).
 */
export interface SseHandler {
  /** Answers one `/graphql/stream` request; resolves when the response is handed over. */
  handleSse(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

/** Where `/admin/graphql` and `/console/…` go: the administration graph (`src/admin/`, which sits above this layer). */
export interface AdminHandler {
  /** Answers an administration route and resolves true, or resolves false for any other path. */
  handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean>;
}

/**
 * The gateway's HTTP routes, as one `node:http` request listener:
 *
 * - CORS for `config.corsOrigins` on every route (preflights answered here);
 * - `GET|HEAD /healthz` → `{"status":"ok"}` (the process lives);
 * - `GET|HEAD /readyz` → 200 `{"status":"ready"}` when `readiness` says the gateway can serve, else 503
 *   `{"status":"starting","waitingFor":[…]}` or `{"status":"draining"}` (no `readiness`: always ready);
 * - `GET /metrics` → Prometheus text;
 * - `GET|HEAD /` → 302 to `/graphql`;
 * - `GET|HEAD /favicon.ico` → 204, cacheable for a day (browsers ask for it on every page: no 404 in their consoles);
 * - `GET /playground/*` → the playground's assets; `GET /graphql` from a browser → the playground page;
 * - `GET|POST /graphql` → GraphQL (other methods → 405 with `Allow`); WebSocket upgrades there are the server's (graphql-ws);
 * - `/graphql/stream` → subscriptions over Server-Sent Events (graphql-sse), when `subscriptions` is given;
 * - `/admin/graphql` and `/console/…` → the administration graph and the console's sign-in, when `admin` is given;
 * - `GET /examples/*` with `config.serveExamples`; anything else → 404 JSON.
 *
 * A body over `config.maxBodyBytes` gets 413 and the connection is closed; any other
 * failure before the response started gets a masked 500.
 */
export function createRouter(
  runtime: GatewayRuntime,
  config: GatewayConfig,
  subscriptions?: SseHandler,
  readiness?: Pick<Readiness, 'state'>,
  admin?: AdminHandler,
): RequestListener {
  const { economy, metrics } = runtime;
  const vault = runtime.vault;
  const applyCors = createCors(config.corsOrigins, vault ? (origin) => vault.allowsOrigin(origin) : undefined);
  const examplesRoot = join(projectRoot(), 'examples');

  // `preflight`: what CORS made of the request (a promise while it decides), before anything else.
  const route = async (
    req: IncomingMessage,
    res: ServerResponse,
    preflight: Promise<boolean> | false,
  ): Promise<void> => {
    // The GraphQL endpoint's own address (nearly every request) is not parsed: it is its path, with no query string.
    const url = req.url === '/graphql' ? null : new URL(req.url ?? '/', 'http://gateway.invalid');
    if (preflight !== false && (await preflight)) return; // a CORS preflight, answered
    const path = url === null ? '/graphql' : url.pathname;
    const search = url === null ? '' : url.search;
    if (path === '/healthz' && (req.method === 'GET' || req.method === 'HEAD')) {
      sendJson(res, 200, { status: 'ok' });
      return;
    }
    if (path === '/favicon.ico' && (req.method === 'GET' || req.method === 'HEAD')) {
      res.writeHead(204, { 'cache-control': 'public, max-age=86400' }).end();
      return;
    }
    if (path === '/readyz' && (req.method === 'GET' || req.method === 'HEAD')) {
      const state = readiness?.state() ?? { status: 'ready' };
      res.setHeader('cache-control', 'no-store');
      sendJson(res, state.status === 'ready' ? 200 : 503, state);
      return;
    }
    if (path === '/metrics' && req.method === 'GET') {
      const stats = economy.stats();
      metrics.cacheEntries.set(stats.cacheEntries);
      metrics.cacheBytes.set(stats.cacheBytes);
      metrics.budgetWindowRequests.set(stats.windowRequests);
      metrics.budgetReducedKeys.set(stats.reducedKeys);
      for (const [priority, count] of Object.entries(stats.queued)) metrics.budgetQueued.set({ priority }, count);
      const text = await metrics.text();
      res.writeHead(200, { 'content-type': metrics.registry.contentType });
      res.end(text);
      return;
    }
    if (path === '/' && (req.method === 'GET' || req.method === 'HEAD')) {
      res.writeHead(302, { location: '/graphql' });
      res.end();
      return;
    }
    if (
      path.startsWith('/playground/') &&
      req.method === 'GET' &&
      (await sendPlaygroundAsset(path.slice('/playground/'.length), res))
    )
      return;
    if (path === '/graphql') {
      if (req.method !== 'GET' && req.method !== 'POST') {
        sendGraphQLErrors(
          req,
          res,
          405,
          [
            {
              message: `The method ${req.method ?? ''} is not allowed on /graphql: use GET or POST.`,
              code: 'METHOD_NOT_ALLOWED',
            },
          ],
          { allow: 'GET, POST' },
        );
        return;
      }
      if (wantsPlayground(req.method, req.headers.accept)) {
        sendPlaygroundPage(res, { presetApiKey: config.playgroundApiKey });
        return;
      }
      const handle = (): Promise<void> => handleGraphQLRequest(req, res, search, runtime, config);
      await (runtime.tracing ? runtime.tracing.operation(req.headers, res, handle) : handle());
      return;
    }
    if (admin && (await admin.handle(req, res, path))) return;
    if (path === '/graphql/stream' && subscriptions) {
      await subscriptions.handleSse(req, res);
      return;
    }
    if (
      config.serveExamples &&
      path.startsWith('/examples/') &&
      req.method === 'GET' &&
      (await sendStaticFile(examplesRoot, '/examples/', path, res))
    )
      return;
    sendJson(res, 404, { error: 'Not found. The GraphQL endpoint is /graphql.' });
  };

  const failed = (req: IncomingMessage, res: ServerResponse, error: unknown): void => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (error instanceof BodyTooLargeError) {
      // The rest of the upload is not read: close the connection after answering.
      res.setHeader('connection', 'close');
      sendGraphQLErrors(req, res, 413, [
        { message: `The request body exceeds ${config.maxBodyBytes} bytes.`, code: 'BAD_REQUEST' },
      ]);
      return;
    }
    sendGraphQLErrors(req, res, 500, [{ message: 'Internal server error', code: 'INTERNAL_SERVER_ERROR' }]);
  };

  return (req, res) => {
    const preflight = applyCors(req, res);
    // A POST to the GraphQL endpoint (nearly every request) without CORS to answer or a span:
    // handled at once, without going through `route` (a promise and two turns less).
    if (preflight === false && req.url === '/graphql' && req.method === 'POST' && !runtime.tracing)
      handleGraphQLRequest(req, res, '', runtime, config).catch((error: unknown) => failed(req, res, error));
    else route(req, res, preflight).catch((error: unknown) => failed(req, res, error));
  };
}
