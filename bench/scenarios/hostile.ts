/**
 * hostile: the event-loop budget under attack. One gateway with its defaults, whose
 * upstream is a small stub process (bench/upstream-stub.ts: it answers hostile keys with
 * hostile bodies and passes every other request on to the simulator). Each attack runs on its
 * own while `/healthz` is polled every 50 ms; the result per attack is the worst wait for
 * a `/healthz` answer and the gateway's own event-loop delay p99 and max over the attack
 * (`monitorEventLoopDelay` through prom-client's `nodejs_eventloop_lag_*`, reset by a
 * scrape just before it). Target: both under 100 ms for every attack. The attacks: those
 * of the security review (introspection amplification over HTTP and graphql-ws, subscribe
 * bursts on one connection, 200,000 nested arrays from the upstream) and those of the
 * hostile test suites (test/hostile/: fragment fan-outs, documents and fragment chains
 * 5,000 deep, variables over the limit, distinct documents, an upstream body over its
 * limit, half-sent request headers), bursts of queries on one graphql-ws connection and
 * big upstream bodies (see `burstAndBodyAttacks`), and 50,000 graphql-sse reservations never
 * connected (RSS growth target 40 MB); the attacks on an access token's grants check
 * (fragment bombs, 60 KB variables: hostile-documents.ts) and on a revoked or expired token's
 * open streams (hostile-tokens.ts); streams that never read or whose link is pulled
 * (hostile-streams.ts, hostile-half-open.ts); and the payment attacks (hostile-payments.ts).
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import type { Socket } from 'node:net';
import { getIntrospectionQuery } from 'graphql';
import WebSocket from 'ws';
import type { Bench, Scenario } from '../lib/bench';
import { log, PREMIUM_KEY, ROOT, round } from '../lib/bench';
import { Bystander } from '../lib/bystander';
import { graphqlHeaders, sleep } from '../lib/http';
import { summarizeLatencies } from '../lib/load';
import { HOST, startService, stopService } from '../lib/processes';
import type { Service } from '../lib/processes';
import { HealthPoller, mainThreadCpuMs, recordLoopDelay, scrapeMetrics } from '../lib/responsiveness';
import { currentRssMb, RssSampler } from '../lib/rss';
import {
  COMPANIES_AT_LIMIT_KEY,
  COMPANIES_KEY,
  COMPANY_COUNT,
  COMPANY_COUNT_AT_LIMIT,
  DEEP_KEY,
  LARGE_KEY,
  NESTED_KEY,
} from '../upstream-stub';
import { hostileDocuments } from './hostile-documents';
import { halfOpenAttack } from './hostile-half-open';
import { paymentAttacks } from './hostile-payments';
import { fanOut } from './soak';
import { streamAttacks } from './hostile-streams';

/** A key whose requests run beside the upstream attacks (they must not be delayed). */
const BYSTANDER_KEY = 'sim-key-400001';
/** The simulator's company of character 1 (the counter subscriptions watch it). */
const SHOP = '64f1c2a9e4b0a1d2c3f40001';
/** Target of every figure, ms. */
const TARGET_MS = 100;
/** How much longer a bystander key's request may take during an upstream attack than before it, ms. */
const BYSTANDER_TARGET_MS = 50;

/**
 * `count` aliases of a deep `__schema` selection: the introspection amplification (33 KB
 * and 8,100 tokens for 369, under graphql-js's 10,000-token limit; about 9.4 MB of answer
 * without a bound).
 */
function introspectionAliases(count: number): string {
  const selection = '__schema { types { name fields { name type { name kind ofType { name kind } } } } }';
  return `{ ${Array.from({ length: count }, (_, i) => `a${i}: ${selection}`).join(' ')} }`;
}

/** A document nested `depth` levels (a parser that recurses overflows). */
function nestedDocument(depth: number): string {
  return `{${'factories{'.repeat(depth)}id${'}'.repeat(depth + 1)}`;
}

/** A chain of `length` fragments, each spreading the next. */
function fragmentChain(length: number): string {
  const parts = ['query Chain { ...F0 }'];
  for (let i = 0; i < length; i += 1) parts.push(`fragment F${i} on Query { ...F${i + 1} }`);
  parts.push(`fragment F${length} on Query { __typename }`);
  return parts.join('\n');
}

/** Starts the upstream stub (bench/upstream-stub.ts) in its own process, so that sending its bodies does not hold up the bench's /healthz poller. */
async function startStub(bench: Bench): Promise<Service> {
  const port = await bench.allocatePort('upstream-stub');
  return startService({
    name: 'upstream-stub',
    args: [join(ROOT, 'dist', 'bench', 'upstream-stub.js'), '--port', String(port), '--simulator', bench.sim.origin],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'production' },
    cwd: ROOT,
    port,
    ready: /upstream stub on /,
  });
}

/** What one attack reports besides the timings (statuses, bytes, refusals…). */
type Outcome = Record<string, unknown> & { internalErrors: number };

/** POSTs a body `times` times, `concurrency` at a time; statuses counted, INTERNAL_SERVER_ERROR and 5xx counted as internal errors. */
async function repeatPost(
  gateway: Service,
  body: string,
  key: string | null,
  times: number,
  concurrency = 1,
  noCache = false,
): Promise<Outcome> {
  const statuses: Record<string, number> = {};
  let internalErrors = 0;
  let bytes = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < times) {
      next += 1;
      const response = await fetch(`${gateway.origin}/graphql`, {
        method: 'POST',
        headers: graphqlHeaders(key, noCache),
        body,
        signal: AbortSignal.timeout(60_000),
      });
      const text = await response.text();
      bytes += text.length;
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
      if (response.status >= 500 || text.includes('"INTERNAL_SERVER_ERROR"')) internalErrors += 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, () => worker()));
  return { requests: times, statuses, responseBytes: bytes, internalErrors };
}

/** Each connection's TCP socket (of its upgrade response), to cork while a burst is written. */
const tcpSockets = new WeakMap<WebSocket, Socket>();

/** Opens a graphql-transport-ws connection and waits for its `connection_ack`. */
async function wsConnection(gateway: Service, key: string | null): Promise<WebSocket> {
  const socket = new WebSocket(`${gateway.origin.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
  socket.once('upgrade', (response) => tcpSockets.set(socket, response.socket));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () =>
      socket.send(JSON.stringify({ type: 'connection_init', payload: key ? { authorization: `Bearer ${key}` } : {} })),
    );
    socket.on('message', (data: WebSocket.RawData) => {
      if ((JSON.parse(String(data)) as { type?: string }).type === 'connection_ack') resolve();
    });
    socket.once('error', reject);
    socket.once('close', (code) => reject(new Error(`closed with ${code} before connection_ack`)));
  });
  socket.removeAllListeners();
  return socket;
}

/** The same introspection document sent over graphql-ws: bytes streamed back until `complete`, an `error` or the close. */
async function introspectionOverWs(gateway: Service, query: string): Promise<Outcome> {
  const socket = await wsConnection(gateway, null);
  let bytes = 0;
  let ended = 'complete';
  await new Promise<void>((resolve) => {
    socket.on('message', (data: WebSocket.RawData) => {
      const text = String(data);
      bytes += text.length;
      const type = (JSON.parse(text) as { type?: string }).type;
      if (type === 'complete' || type === 'error') {
        ended = type;
        resolve();
      }
    });
    socket.once('close', (code) => {
      ended = `closed ${code}`;
      resolve();
    });
    socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query } }));
  });
  socket.terminate();
  return { responseBytes: bytes, ended, internalErrors: 0 };
}

/** Most subscriptions one connection may open (`SUBSCRIPTIONS_MAX_PER_CONNECTION`'s default). */
const ACCEPTED_PER_CONNECTION = 10;
/** Refused subscribes a connection may send in 10 s before the gateway closes it (src/subscriptions/transports.ts, `MAX_REFUSED_SUBSCRIBES`). */
const MAX_REFUSED_SUBSCRIBES = 100;
/** The close code of a connection over it (`TOO_MANY_REFUSALS_CLOSE_CODE`). */
const TOO_MANY_REFUSALS_CLOSE_CODE = 4429;
/** Target of the event-loop time one refused subscribe costs, ms. */
const REFUSAL_TARGET_MS = 0.05;

/** Bursts per attack: one burst's CPU time swings with a garbage collection falling in it or not, so the median of several is reported. */
const BURST_ROUNDS = 5;
/** Bursts per attack with `--quick` (a smoke run, its figures not judged): still a median. */
const QUICK_BURST_ROUNDS = 3;
/**
 * Untimed bursts before the timed ones, as every scenario warms up before it measures
 * (`--warmup`): the refusal path's first bursts run code V8 has not compiled yet (the first
 * one costs several times a later one), and the median of the timed ones would measure that.
 */
const BURST_WARMUP_ROUNDS = 2;

/**
 * `rounds` bursts of `count` subscribe messages ({@link BURST_ROUNDS}, `--quick`
 * {@link QUICK_BURST_ROUNDS}), one connection after another (see {@link oneSubscribeBurst}),
 * after {@link BURST_WARMUP_ROUNDS} untimed ones: the outcome of the burst with the median
 * time per refusal, with every timed burst's time in `burst.perRefusalMsRounds`.
 */
async function subscribeBurst(gateway: Service, count: number, rounds: number): Promise<Outcome> {
  let internalErrors = 0;
  for (let round = 0; round < BURST_WARMUP_ROUNDS; round += 1)
    internalErrors += (await oneSubscribeBurst(gateway, count)).internalErrors;
  const outcomes: Outcome[] = [];
  for (let round = 0; round < rounds; round += 1) outcomes.push(await oneSubscribeBurst(gateway, count));
  const perRefusal = (outcome: Outcome): number =>
    (outcome.burst as { perRefusalMs: number | null } | undefined)?.perRefusalMs ?? Number.POSITIVE_INFINITY;
  const sorted = [...outcomes].sort((a, b) => perRefusal(a) - perRefusal(b));
  const median = sorted[Math.floor(sorted.length / 2)] as Outcome;
  internalErrors += outcomes.reduce((sum, outcome) => sum + outcome.internalErrors, 0);
  return {
    ...median,
    internalErrors,
    burst: {
      ...(median.burst as object),
      perRefusalMsRounds: outcomes.map((outcome) => (outcome.burst as { perRefusalMs: number | null }).perRefusalMs),
    },
  };
}

/**
 * `count` subscribe messages on one connection. First the ones the connection may open
 * (at most SUBSCRIPTIONS_MAX_PER_CONNECTION, 10) and one more, whose refusal shows that
 * they have started; then the rest at once. Waits until all but the accepted ones have
 * ended (an `error`, or a `complete` after a `next` with the refusal), or the connection
 * closes. The rest leave in one write (the connection's TCP socket corked meanwhile), as
 * an attacker sends them, so the gateway reads them in large chunks whatever this process's
 * pace. The gateway's main-thread CPU time over the burst (see `mainThreadCpuMs`; it
 * starts a second after the probe's refusal, once the accepted ones' first polls are done),
 * divided by the refusals it handled (up to its 4429), is the event-loop time of one refusal
 * (an upper bound: it includes reading the messages no longer handled after the 4429, and
 * the `/healthz` polls).
 */
async function oneSubscribeBurst(gateway: Service, count: number): Promise<Outcome> {
  const socket = await wsConnection(gateway, PREMIUM_KEY);
  const query = 'subscription($id: ID!) { counterChanged(factoryId: $id) { changes { item amountAfter } } }';
  const messages = Array.from({ length: count }, (_, i) =>
    JSON.stringify({ id: `s${i}`, type: 'subscribe', payload: { query, variables: { id: SHOP } } }),
  );
  const ended = new Set<string>();
  let refusals = 0;
  let closedWith: number | null = null;
  let onEnd = (): void => undefined;
  socket.on('message', (data: WebSocket.RawData) => {
    const message = JSON.parse(String(data)) as {
      id?: string;
      type?: string;
      payload?: { errors?: unknown[] } | unknown[];
    };
    if (
      message.type === 'error' ||
      (message.type === 'next' && !Array.isArray(message.payload) && message.payload?.errors)
    )
      refusals += 1;
    if ((message.type === 'error' || message.type === 'complete') && message.id) ended.add(message.id);
    onEnd();
  });
  socket.once('close', (code) => {
    closedWith = code;
    onEnd();
  });
  const until = (done: () => boolean): Promise<void> =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 60_000);
      onEnd = () => {
        if (!done()) return;
        clearTimeout(timer);
        resolve();
      };
      onEnd();
    });
  const opening = ACCEPTED_PER_CONNECTION + 1;
  for (const message of messages.slice(0, opening)) socket.send(message);
  await until(() => ended.size >= 1 || closedWith !== null);
  // The accepted subscriptions' first polls (upstream requests, through the stub) finish
  // meanwhile, so the burst's CPU time is the refusals' own.
  await sleep(1000);
  const refusalsBefore = refusals;
  const cpuBefore = mainThreadCpuMs(gateway.pid);
  // The accepted ones stay silent until a change. The burst leaves in one write, as an
  // attacker sends it: sent message by message, the gateway would read it as fast as this
  // process (on the same loaded machine) writes it, in reads of a message or two, and the
  // figure would measure the bench's pace more than the gateway.
  const tcp = tcpSockets.get(socket);
  tcp?.cork();
  for (const message of messages.slice(opening)) socket.send(message);
  tcp?.uncork();
  await until(() => ended.size >= count - ACCEPTED_PER_CONNECTION || closedWith !== null);
  const cpuAfter = mainThreadCpuMs(gateway.pid);
  socket.terminate();
  const refusedInBurst = refusals - refusalsBefore;
  const burstCpuMs = cpuBefore === null || cpuAfter === null ? null : round(cpuAfter - cpuBefore);
  // The refusals the gateway handled: every message of the burst up to its 4429 (it closes
  // after MAX_REFUSED_SUBSCRIBES, and the refusals it had not sent yet are not sent then, so
  // the answers received undercount them).
  const handled =
    closedWith === TOO_MANY_REFUSALS_CLOSE_CODE
      ? Math.min(count - opening, MAX_REFUSED_SUBSCRIBES + 1 - refusalsBefore)
      : refusedInBurst;
  // The whole burst's CPU time, also reading the messages it no longer handled after its 4429: an upper bound.
  const perRefusalMs =
    burstCpuMs === null || handled <= 0 ? null : Math.round((burstCpuMs / handled) * 10_000) / 10_000;
  return {
    subscribes: count,
    ended: ended.size,
    refusals,
    closedWith,
    burst: {
      refusals: handled,
      refusalsAnswered: refusedInBurst,
      mainThreadCpuMs: burstCpuMs,
      perRefusalMs,
      perRefusalUnder50Us: perRefusalMs === null ? null : perRefusalMs <= REFUSAL_TARGET_MS,
    },
    internalErrors: 0,
  };
}

/**
 * An upstream attack with a bystander key's requests beside it (`no-cache`: they go
 * upstream): how much later they answered than before the attack. The bystander's
 * requests are timed from a worker thread (bench/lib/bystander.ts), as `/healthz` is:
 * reading the attack's answers of a megabyte and more on the bench's own thread delayed
 * them by tens of milliseconds on a loaded machine, which is not the gateway's delay.
 */
async function withBystander(gateway: Service, attack: () => Promise<Outcome>): Promise<Outcome> {
  const bystander = await Bystander.start(
    `${gateway.origin}/graphql`,
    JSON.stringify({ query: '{ factories { id } }' }),
    graphqlHeaders(BYSTANDER_KEY, true),
  );
  let before: number[];
  let during: number[];
  let outcome: Outcome;
  try {
    before = await bystander.times(20);
    bystander.begin();
    try {
      outcome = await attack();
    } finally {
      during = await bystander.stop();
    }
  } finally {
    await bystander.close();
  }
  const baseline = summarizeLatencies(Float64Array.from(before));
  const worst = Math.max(0, ...during);
  const delay = round(Math.max(0, worst - baseline.p50));
  return {
    ...outcome,
    bystander: {
      requestsBefore: before.length,
      p50BeforeMs: baseline.p50,
      requestsDuring: during.length,
      maxDuringMs: round(worst),
      delayMs: delay,
      delayUnder50Ms: delay <= BYSTANDER_TARGET_MS,
    },
  };
}

/** 200 connections that send half their request headers and nothing more, held for a second. */
async function halfSentHeaders(gateway: Service): Promise<Outcome> {
  const { port } = new URL(gateway.origin);
  const sockets: Socket[] = [];
  let closedByGateway = 0;
  for (let i = 0; i < 200; i += 1) {
    const socket = connect(Number(port), HOST);
    socket.on('error', () => undefined);
    socket.once('close', () => (closedByGateway += 1));
    socket.write('GET /healthz HTTP/1.1\r\nHost: gateway\r\nX-Slow: ');
    sockets.push(socket);
  }
  await sleep(1000);
  const early = closedByGateway;
  for (const socket of sockets) socket.destroy();
  return { connections: sockets.length, closedWithinOneSecond: early, internalErrors: 0 };
}

/** Keyless graphql-sse reservations the `sse-reservations-50000` attack sends (`--quick`: {@link QUICK_SSE_RESERVATIONS}). */
const SSE_RESERVATIONS = 50_000;
/** The reservations of a `--quick` run, which gives the hostile gateway {@link QUICK_SSE_RESERVATION_TTL_MS}: a smoke run of the same path. */
const QUICK_SSE_RESERVATIONS = 10_000;
/** Client addresses they come from (127.0.0.2 to 127.0.0.101: the gateway listens on 127.0.0.1), so the per-address cap alone does not refuse them. */
const SSE_RESERVATION_ADDRESSES = 100;
/** Target of the gateway's RSS growth over the attack, MB. */
const SSE_RESERVATION_RSS_TARGET_MB = 40;
/** `SSE_RESERVATION_TTL_MS`'s default: after it, every reservation of the attack has expired and been freed. */
const SSE_RESERVATION_TTL_MS = 30_000;
/** `SSE_RESERVATION_TTL_MS` of the hostile gateway in a `--quick` run (CI's smoke run waits this long, not 30 s). */
const QUICK_SSE_RESERVATION_TTL_MS = 5_000;

/**
 * `count` keyless `PUT /graphql/stream` (graphql-sse reservations that
 * never connect a stream), 64 at a time over keep-alive connections from
 * {@link SSE_RESERVATION_ADDRESSES} local addresses: statuses (201 reserved, 429 over
 * `SSE_RESERVATIONS_MAX_PER_ADDRESS` or `SSE_RESERVATIONS_MAX`) and the gateway's RSS before,
 * at its peak (sampled every 50 ms) and after; then the wait until they have all expired
 * (`ttlMs`, the gateway's `SSE_RESERVATION_TTL_MS`, and 2 s more), with its own `/healthz`
 * poller (they are freed at about the same time) and the RSS after it.
 */
async function sseReservations(gateway: Service, count: number, ttlMs: number): Promise<Outcome> {
  const { port } = new URL(gateway.origin);
  const agent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
  const statuses: Record<string, number> = {};
  const limits: Record<string, number> = {};
  let internalErrors = 0;
  let next = 0;
  const rssBeforeMb = currentRssMb(gateway.pid);
  const sampler = new RssSampler(gateway.pid);
  const put = (index: number): Promise<void> =>
    new Promise((resolve, reject) => {
      const localAddress = `127.0.0.${2 + (index % SSE_RESERVATION_ADDRESSES)}`;
      const req = httpRequest(
        {
          host: HOST,
          port: Number(port),
          path: '/graphql/stream',
          method: 'PUT',
          localAddress,
          agent,
          timeout: 30_000,
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            statuses[status] = (statuses[status] ?? 0) + 1;
            if (status >= 500) internalErrors += 1;
            if (status === 429) {
              const limit =
                (JSON.parse(text) as { errors?: Array<{ extensions?: { limit?: string } }> }).errors?.[0]?.extensions
                  ?.limit ?? 'unknown';
              limits[limit] = (limits[limit] ?? 0) + 1;
            }
            resolve();
          });
        },
      );
      req.once('timeout', () => req.destroy(new Error('PUT /graphql/stream timed out')));
      req.once('error', reject);
      req.end();
    });
  try {
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (next < count) {
          const index = next;
          next += 1;
          await put(index);
        }
      }),
    );
  } finally {
    agent.destroy();
  }
  const rssAfterMb = currentRssMb(gateway.pid);
  const expiryPoller = await HealthPoller.start(gateway.origin, 50);
  await sleep(ttlMs + 2000);
  const expiry = await expiryPoller.stop();
  const rssAfterExpiryMb = currentRssMb(gateway.pid);
  const peakMb = sampler.stop();
  const growthMb = rssBeforeMb === null || peakMb === null ? null : round(peakMb - rssBeforeMb);
  return {
    requests: count,
    addresses: SSE_RESERVATION_ADDRESSES,
    statuses,
    refusedBy: limits,
    expiry: {
      waitedMs: ttlMs + 2000,
      healthzWorstMs: expiry.worstMs,
      healthzPolls: expiry.polls,
      healthzFailures: expiry.failures,
    },
    memory: {
      rssBeforeMb: rssBeforeMb === null ? null : round(rssBeforeMb),
      rssPeakMb: peakMb,
      rssAfterMb: rssAfterMb === null ? null : round(rssAfterMb),
      rssAfterExpiryMb: rssAfterExpiryMb === null ? null : round(rssAfterExpiryMb),
      growthMb,
      targetMb: SSE_RESERVATION_RSS_TARGET_MB,
      growthUnder40Mb: growthMb === null ? null : growthMb <= SSE_RESERVATION_RSS_TARGET_MB,
    },
    internalErrors,
  };
}

/** One attack of the scenario. */
interface Attack {
  name: string;
  description: string;
  run: (gateway: Service) => Promise<Outcome>;
}

/**
 * `count` copies of one query sent at once on one graphql-ws connection: how many were
 * answered with data, refused (`RATE_LIMITED` over `OPERATIONS_MAX_PER_CONNECTION`) or
 * failed otherwise, until every one ended or the gateway closed the connection (4429 after
 * more than 100 refusals in 10 s).
 */
async function wsQueryBurst(gateway: Service, key: string | null, query: string, count: number): Promise<Outcome> {
  const socket = await wsConnection(gateway, key);
  let answered = 0;
  let refused = 0;
  let otherErrors = 0;
  let internalErrors = 0;
  let ended = 0;
  let closedWith: number | null = null;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 60_000);
    const done = (): void => {
      clearTimeout(timer);
      resolve();
    };
    socket.on('message', (data: WebSocket.RawData) => {
      const text = String(data);
      const message = JSON.parse(text) as {
        type?: string;
        payload?: { data?: unknown; errors?: Array<{ extensions?: { code?: string } }> };
      };
      if (text.includes('"INTERNAL_SERVER_ERROR"')) internalErrors += 1;
      if (message.type === 'next') {
        const code = message.payload?.errors?.[0]?.extensions?.code;
        if (code === 'RATE_LIMITED') refused += 1;
        else if (code !== undefined) otherErrors += 1;
        else answered += 1;
      } else if (message.type === 'error') otherErrors += 1;
      if (message.type === 'complete' || message.type === 'error') ended += 1;
      if (ended >= count) done();
    });
    socket.once('close', (code) => {
      closedWith = code;
      done();
    });
    const frame = (i: number): string => JSON.stringify({ id: `q${i}`, type: 'subscribe', payload: { query } });
    for (let i = 0; i < count; i += 1) socket.send(frame(i));
  });
  socket.terminate();
  return { operations: count, answered, refused, otherErrors, ended, closedWith, internalErrors };
}

/**
 * The attacks on per-connection bursts of queries and on big upstream bodies: 3,000
 * queries on one graphql-ws connection (keyless and keyed), an upstream 200 of about
 * 4.9 MB of arrays nested 63 deep (under the nesting bound), and a valid company list of
 * 15,000 entries (about 4.2 MB, over the default body limit) for one alias and for five;
 * and the largest company list under that limit (3,700 entries, about 1 MB), likewise.
 */
function burstAndBodyAttacks(repeat: number): Attack[] {
  const list = (aliases: number): string =>
    JSON.stringify({
      query: `{ ${Array.from({ length: aliases }, (_, i) => `c${i}: factories { id name }`).join(' ')} }`,
    });
  return [
    {
      name: 'ws-queries-3000-keyless',
      description: '3,000 { __typename } queries sent at once on one graphql-ws connection, no key',
      run: (g) => wsQueryBurst(g, null, '{ __typename }', 3000),
    },
    {
      name: 'ws-queries-3000-keyed',
      description: '3,000 { factories { id name } } queries sent at once on one graphql-ws connection (premium key)',
      run: (g) => wsQueryBurst(g, PREMIUM_KEY, '{ factories { id name } }', 3000),
    },
    {
      name: 'upstream-deep-arrays-4.9mb',
      description: `the upstream answers 200 with about 4.9 MB of arrays nested 63 deep (under the bound of 64), ${repeat} operations one after another (no-cache), another key's operations beside them`,
      run: (g) =>
        withBystander(g, () =>
          repeatPost(g, JSON.stringify({ query: '{ factories { id } }' }), DEEP_KEY, repeat, 1, true),
        ),
    },
    {
      name: 'upstream-company-list-15000',
      description: `the upstream answers a valid company list of ${COMPANY_COUNT} entries (about 4.2 MB), one alias, ${repeat} operations one after another (no-cache), another key's operations beside them`,
      run: (g) => withBystander(g, () => repeatPost(g, list(1), COMPANIES_KEY, repeat, 1, true)),
    },
    {
      name: 'upstream-company-list-15000-5-aliases',
      description: `the same list, five aliases of it in one operation, ${repeat} operations one after another (no-cache), another key's operations beside them`,
      run: (g) => withBystander(g, () => repeatPost(g, list(5), COMPANIES_KEY, repeat, 1, true)),
    },
    {
      name: 'upstream-company-list-at-limit',
      description: `the upstream answers a valid company list of ${COMPANY_COUNT_AT_LIMIT} entries (about 1 MB, the most under the default UPSTREAM_MAX_BODY_BYTES), one alias, ${repeat} operations one after another (no-cache), another key's operations beside them`,
      run: (g) => withBystander(g, () => repeatPost(g, list(1), COMPANIES_AT_LIMIT_KEY, repeat, 1, true)),
    },
    {
      name: 'upstream-company-list-at-limit-5-aliases',
      description: `the same list, five aliases of it in one operation, ${repeat} operations one after another (no-cache), another key's operations beside them`,
      run: (g) => withBystander(g, () => repeatPost(g, list(5), COMPANIES_AT_LIMIT_KEY, repeat, 1, true)),
    },
  ];
}

/**
 * Ordinary traffic before the first attack: what a playground sends on load (the standard
 * introspection query), five times. A gateway that has served nothing yet compiles its
 * parser, validation rules and serializer on its first requests; without this, the first
 * attack measured that start-up as well as the attack.
 */
async function warmUp(gateway: Service): Promise<void> {
  const body = JSON.stringify({ query: getIntrospectionQuery() });
  await repeatPost(gateway, body, null, 5);
}

function attacks(quick: boolean): Attack[] {
  const introspection = JSON.stringify({ query: introspectionAliases(369) });
  const repeat = quick ? 5 : 20;
  const burstRounds = quick ? QUICK_BURST_ROUNDS : BURST_ROUNDS;
  const reservations = quick ? QUICK_SSE_RESERVATIONS : SSE_RESERVATIONS;
  const reservationTtlMs = quick ? QUICK_SSE_RESERVATION_TTL_MS : SSE_RESERVATION_TTL_MS;
  return [
    {
      name: 'introspection-369-aliases',
      description: 'a 39 KB POST of 369 aliases of __schema { types { name fields { name type { … } } } }, no key',
      run: (g) => repeatPost(g, introspection, null, 1),
    },
    {
      name: 'introspection-369-aliases-4x',
      description: 'the same, four at once',
      run: (g) => repeatPost(g, introspection, null, 4, 4),
    },
    {
      name: 'introspection-369-aliases-ws',
      description: 'the same document over graphql-ws (no key)',
      run: (g) => introspectionOverWs(g, introspectionAliases(369)),
    },
    {
      name: 'subscribe-burst-1000',
      description: '1,000 subscribe messages on one graphql-ws connection (premium key)',
      run: (g) => subscribeBurst(g, 1000, burstRounds),
    },
    {
      name: 'subscribe-burst-3000',
      description: '3,000 subscribe messages on one graphql-ws connection (premium key)',
      run: (g) => subscribeBurst(g, 3000, burstRounds),
    },
    {
      name: 'upstream-nested-arrays',
      description: `the upstream answers 200 with 200,000 nested arrays (400 KB), ${repeat} operations one after another (no-cache), another key's operations beside them`,
      run: (g) =>
        withBystander(g, () =>
          repeatPost(g, JSON.stringify({ query: '{ factories { id } }' }), NESTED_KEY, repeat, 1, true),
        ),
    },
    {
      name: 'upstream-body-over-limit',
      description:
        "the upstream streams 6 MiB (over UPSTREAM_MAX_BODY_BYTES), 3 operations one after another (no-cache), another key's operations beside them",
      run: (g) =>
        withBystander(g, () => repeatPost(g, JSON.stringify({ query: '{ factories { id } }' }), LARGE_KEY, 3, 1, true)),
    },
    {
      name: 'fragment-fan-out',
      description: `16-level fragment fan-out (4^15 expansions from under 1 KB), no key, ${repeat} times`,
      run: (g) => repeatPost(g, JSON.stringify({ query: fanOut(16) }), null, repeat),
    },
    {
      name: 'nested-document-5000',
      description: `a document nested 5,000 levels, ${repeat} times`,
      run: (g) => repeatPost(g, JSON.stringify({ query: nestedDocument(5000) }), PREMIUM_KEY, repeat),
    },
    {
      name: 'fragment-chain-5000',
      description: `a chain of 5,000 fragments, ${repeat} times`,
      run: (g) => repeatPost(g, JSON.stringify({ query: fragmentChain(5000) }), PREMIUM_KEY, repeat),
    },
    {
      name: 'variables-over-limit',
      description: `70 KB of variables (over MAX_VARIABLES_BYTES), ${repeat} times`,
      run: (g) =>
        repeatPost(
          g,
          JSON.stringify({ query: '{ factories { id } }', variables: { unused: 'x'.repeat(70_000) } }),
          PREMIUM_KEY,
          repeat,
        ),
    },
    {
      name: 'distinct-documents-300',
      description: '300 distinct documents, 8 at a time',
      run: async (g) => {
        let n = 0;
        const outcome: Outcome = { requests: 300, internalErrors: 0 };
        await Promise.all(
          Array.from({ length: 8 }, async () => {
            while (n < 300) {
              const body = JSON.stringify({ query: `query D { d${n}: factories { id name } }` });
              n += 1;
              outcome.internalErrors += (await repeatPost(g, body, PREMIUM_KEY, 1)).internalErrors;
            }
          }),
        );
        return outcome;
      },
    },
    {
      name: 'half-sent-headers-200',
      description: '200 connections that send half their request headers, held for 1 s',
      run: (g) => halfSentHeaders(g),
    },
    {
      name: 'sse-reservations-50000',
      description: `${reservations.toLocaleString('en')} keyless PUT /graphql/stream (graphql-sse reservations never connected) from ${SSE_RESERVATION_ADDRESSES} local addresses, 64 at a time, then ${(reservationTtlMs + 2000) / 1000} s while they expire; RSS growth target ${SSE_RESERVATION_RSS_TARGET_MB} MB`,
      run: (g) => sseReservations(g, reservations, reservationTtlMs),
    },
    ...burstAndBodyAttacks(quick ? 3 : 10),
    ...streamAttacks(quick),
    halfOpenAttack(quick),
    ...paymentAttacks(),
  ];
}

/**
 * hostile: see the module comment. `ok` is false when the gateway stopped answering, an
 * attack failed to run, or an answer was a 5xx or INTERNAL_SERVER_ERROR; the targets
 * (`healthzUnder100Ms`, `eventLoopP99Under100Ms` per attack, and the bystander's delay
 * under 50 ms for the upstream attacks) are reported, not enforced.
 */
export const hostile: Scenario = {
  name: 'hostile',
  async run(bench) {
    const stub = await startStub(bench);
    const documents = await hostileDocuments(bench.args.quick, bench.args.memoRequests); // the grants attacks (a vault and a token)
    const gateway = await bench.startGateway(
      'gateway-hostile',
      {
        STATEV_BASE_URL: `${stub.origin}/req`,
        ...documents.env,
        ...(bench.args.quick ? { SSE_RESERVATION_TTL_MS: String(QUICK_SSE_RESERVATION_TTL_MS) } : {}),
      },
      { pinned: true },
    );
    const results: Array<Record<string, unknown>> = [];
    let failures = 0;
    try {
      await warmUp(gateway);
      const every = [...attacks(bench.args.quick), ...documents.attacks];
      const unknown = (bench.args.attacks ?? []).filter((name) => !every.some((attack) => attack.name === name));
      if (unknown.length > 0)
        throw new Error(
          `Unknown attack(s) in --attacks: ${unknown.join(', ')} (known: ${every.map((attack) => attack.name).join(', ')})`,
        );
      for (const attack of every.filter(
        (one) => bench.args.attacks === null || bench.args.attacks.includes(one.name),
      )) {
        await scrapeMetrics(gateway.origin); // resets the event-loop histogram
        const loopRecord = recordLoopDelay(gateway.origin);
        const poller = await HealthPoller.start(gateway.origin, 50);
        const started = performance.now();
        const startedAt = Date.now();
        const cpuAtStart = mainThreadCpuMs(gateway.pid);
        let outcome: Outcome | null = null;
        let error: string | null = null;
        try {
          outcome = await attack.run(gateway);
        } catch (caught) {
          error = caught instanceof Error ? caught.message : String(caught);
        }
        const attackMs = round(performance.now() - started);
        const cpuAtEnd = mainThreadCpuMs(gateway.pid);
        await sleep(100); // one or two polls after the last answer
        const scenarioHealth = await poller.stop();
        await scrapeMetrics(gateway.origin);
        // Over every window: an attack's own scrapes reset the histogram too.
        const scenarioLoop = loopRecord();
        // An attack run against a gateway of its own (the half-open one) reports that gateway's figures.
        const own = outcome?.ownGateway as
          | {
              healthzWorstMs: number;
              healthzFailures: number;
              eventLoopP99Ms: number | null;
              eventLoopMaxMs: number | null;
            }
          | undefined;
        const health = own
          ? {
              worstMs: own.healthzWorstMs,
              failures: own.healthzFailures,
              polls: scenarioHealth.polls,
              worstPolls: null,
            }
          : scenarioHealth;
        const loop = own ? { p99Ms: own.eventLoopP99Ms, maxMs: own.eventLoopMaxMs } : scenarioLoop;
        if (error !== null || (outcome?.internalErrors ?? 0) > 0 || health.failures > 0) failures += 1;
        const bystander = outcome?.bystander as { delayMs: number } | undefined;
        const burst = outcome?.burst as { perRefusalMs: number | null; refusals: number } | undefined;
        const memory = outcome?.memory as { growthMb: number | null; growthUnder40Mb: boolean | null } | undefined;
        const result = {
          attack: attack.name,
          description: attack.description,
          attackMs,
          healthzWorstMs: health.worstMs,
          healthzPolls: health.polls,
          healthzFailures: health.failures,
          // When the longest polls were sent, ms after the attack began (its outcome may name its own moments).
          healthzWorstPolls:
            health.worstPolls?.map((poll) => ({ atMs: poll.sentAt - startedAt, waitMs: poll.waitMs })) ?? null,
          eventLoopP99Ms: loop.p99Ms,
          eventLoopMaxMs: loop.maxMs,
          // CPU time of the gateway's main thread over the attack: less noisy than waits on a shared machine.
          gatewayMainThreadCpuMs: cpuAtStart === null || cpuAtEnd === null ? null : round(cpuAtEnd - cpuAtStart),
          targets: {
            healthzUnder100Ms: health.worstMs < TARGET_MS,
            eventLoopP99Under100Ms: loop.p99Ms === null ? null : loop.p99Ms < TARGET_MS,
            ...(bystander ? { bystanderDelayUnder50Ms: bystander.delayMs <= BYSTANDER_TARGET_MS } : {}),
            ...(burst
              ? { perRefusalUnder50Us: burst.perRefusalMs === null ? null : burst.perRefusalMs <= REFUSAL_TARGET_MS }
              : {}),
            ...(memory ? { rssGrowthUnder40Mb: memory.growthUnder40Mb } : {}),
          },
          outcome,
          error,
        };
        results.push(result);
        log(
          `hostile ${attack.name}: /healthz worst ${health.worstMs} ms, event loop p99 ${loop.p99Ms ?? '-'} ms (max ${loop.maxMs ?? '-'} ms)${bystander ? `, other key +${bystander.delayMs} ms` : ''}${burst ? `, ${burst.perRefusalMs ?? '-'} ms of main thread per refusal (${burst.refusals} refusals)` : ''}${memory ? `, RSS +${memory.growthMb ?? '-'} MB` : ''}, ${attackMs} ms${error ? `, failed: ${error}` : ''}`,
        );
      }
      const alive = await fetch(`${gateway.origin}/healthz`, { signal: AbortSignal.timeout(10_000) }).then(
        (response) => response.ok,
        () => false,
      );
      const worst = (figure: 'healthzWorstMs' | 'eventLoopP99Ms'): number | null => {
        const values = results
          .map((result) => result[figure])
          .filter((value): value is number => typeof value === 'number');
        return values.length === 0 ? null : Math.max(...values);
      };
      bench.record('hostile', {
        ok: alive && failures === 0,
        description:
          'each attack alone on a gateway with its defaults (upstream: a stub that passes other keys on to the simulator), /healthz polled every 50 ms',
        targetMs: TARGET_MS,
        attacks: results,
        worstHealthzMs: worst('healthzWorstMs'),
        worstEventLoopP99Ms: worst('eventLoopP99Ms'),
        attacksMissingTargets: results
          .filter(
            (result) => !Object.values(result.targets as Record<string, boolean | null>).every((met) => met !== false),
          )
          .map((result) => result.attack),
        aliveAfter: alive,
      });
    } finally {
      await bench.stopServer(gateway);
      await stopService(stub);
    }
  },
};
