/**
 * The hostile scenario's half-open SSE attack, run in a network namespace of its own (see
 * bench/scenarios/hostile-half-open.ts, which starts it with `unshare -rn` after making a veth
 * link with the address 10.9.0.1): a simulator and a gateway with its defaults (listening on
 * every address), 20 graphql-sse subscriptions of one key opened to 10.9.0.1, then that
 * address removed: the link is pulled, nothing the gateway sends is acknowledged and no reset
 * comes back (a half-open connection, as when a client's network goes away). Meanwhile
 * `/healthz` is polled on 127.0.0.1 every 50 ms; the figures: how long until the gateway holds
 * no SSE subscription, whether the key may subscribe again then, the worst `/healthz` wait,
 * the event-loop p99 and the RSS growth. Prints one line `half-open result <JSON>`.
 *
 * Usage (inside the namespace): `node dist/bench/half-open.js --root DIR --bound-ms N
 * [--gateway-env NAME=VALUE,...]`.
 */
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { sleep } from './lib/http';
import { freePort, startService, stopAll } from './lib/processes';
import { HealthPoller, recordLoopDelay, scrapeMetrics } from './lib/responsiveness';
import { currentRssMb, RssSampler } from './lib/rss';

const KEY = 'demo-premium-key';
/** The simulator's company of character 1. */
const SHOP = '64f1c2a9e4b0a1d2c3f40001';
/** The address the clients connect to, on the veth link (removed to pull it). */
const LINK_ADDRESS = '10.9.0.1';
const STREAMS = 20;

/** Open graphql-sse subscriptions of the gateway now, or null. */
async function sseActive(origin: string): Promise<number | null> {
  const match = /^statev_subscriptions_active\{transport="sse"\} (\S+)$/m.exec((await scrapeMetrics(origin)).text);
  return match?.[1] === undefined ? null : Number(match[1]);
}

/** One graphql-sse subscription on a raw socket to `host`; resolves once the response has begun. */
function subscription(host: string, port: number): Promise<Socket> {
  const body = JSON.stringify({
    query: 'subscription($id: ID!) { inventoryChanged(factoryId: $id) { factoryId } }',
    variables: { id: SHOP },
  });
  return new Promise((resolve, reject) => {
    const socket = connect(port, host, () => {
      socket.write(
        `POST /graphql/stream HTTP/1.1\r\nHost: ${host}:${port}\r\nAuthorization: Bearer ${KEY}\r\nAccept: text/event-stream\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    });
    socket.once('data', () => resolve(socket));
    socket.once('error', reject);
  });
}

async function until(check: () => Promise<boolean>, boundMs: number): Promise<number | null> {
  const started = performance.now();
  while (performance.now() - started < boundMs) {
    if (await check()) return Math.round(performance.now() - started);
    await sleep(250);
  }
  return null;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { root: { type: 'string' }, 'bound-ms': { type: 'string' }, 'gateway-env': { type: 'string' } },
    strict: true,
  });
  const root = values.root ?? process.cwd();
  const boundMs = Number(values['bound-ms'] ?? '90000');
  const extra = Object.fromEntries(
    (values['gateway-env'] ?? '')
      .split(',')
      .filter(Boolean)
      .map((pair) => pair.split('=', 2) as [string, string]),
  );
  const simPort = await freePort();
  const sim = await startService({
    name: 'simulator',
    args: [
      join(root, 'dist', 'src', 'simulator', 'main.js'),
      '--port',
      String(simPort),
      '--host',
      '127.0.0.1',
      '--rate-limit',
      'off',
    ],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'production' },
    cwd: root,
    port: simPort,
    ready: /^http:\/\/\S+\/req$/m,
  });
  const port = await freePort();
  const gateway = await startService({
    name: 'gateway',
    args: [join(root, 'dist', 'src', 'main.js')],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '0.0.0.0',
      STATEV_BASE_URL: `${sim.origin}/req`,
      UPSTREAM_RATE_LIMIT: 'off',
      CACHE_FILE: 'off',
      LOG_LEVEL: 'warn',
      ...extra,
    },
    cwd: root,
    port,
    ready: /StateV GraphQL gateway on /,
  });
  const sockets = await Promise.all(Array.from({ length: STREAMS }, () => subscription(LINK_ADDRESS, port)));
  for (const socket of sockets) socket.on('error', () => undefined);
  const opened = await sseActive(gateway.origin);
  const rssBefore = currentRssMb(gateway.pid);
  const sampler = new RssSampler(gateway.pid);
  await scrapeMetrics(gateway.origin); // resets the event-loop histogram
  const loopRecord = recordLoopDelay(gateway.origin);
  const poller = await HealthPoller.start(gateway.origin, 50);
  execFileSync('ip', ['addr', 'del', `${LINK_ADDRESS}/32`, 'dev', 'v0']);
  const freedAfterMs = await until(async () => (await sseActive(gateway.origin)) === 0, boundMs);
  const health = await poller.stop();
  await scrapeMetrics(gateway.origin);
  // Over every window: the polls of the gauge above reset the histogram too.
  const loop = loopRecord();
  const peak = sampler.stop();
  // The key may subscribe again (it was refused while the places were held).
  const again = await subscription('127.0.0.1', port).then(
    async (socket) => {
      const active = await until(async () => (await sseActive(gateway.origin)) === 1, 5000);
      socket.destroy();
      return active !== null;
    },
    () => false,
  );
  for (const socket of sockets) socket.destroy();
  await stopAll();
  const result = {
    streams: STREAMS,
    openedSse: opened,
    freedAfterMs,
    boundMs,
    subscribesAgain: again,
    healthzWorstMs: health.worstMs,
    healthzPolls: health.polls,
    healthzFailures: health.failures,
    eventLoopP99Ms: loop.p99Ms,
    eventLoopMaxMs: loop.maxMs,
    rssGrowthMb: rssBefore === null || peak === null ? null : Math.round((peak - rssBefore) * 10) / 10,
  };
  process.stdout.write(`half-open result ${JSON.stringify(result)}\n`);
}

main().catch(async (error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  await stopAll();
  process.exit(1);
});
