/**
 * Every stream ends: each kind of operation (query, mutation, subscription, live query with
 * whole results or JSON patches) over each transport (graphql-ws, graphql-sse with distinct
 * connections and with a reservation token), left in each way (complete, dispose, TCP reset, SIGKILL of the
 * process holding it, a WebSocket peer that stops answering pings, the gateway's stop),
 * releases everything it held: its place in SUBSCRIPTIONS_MAX_PER_KEY and
 * statev_subscriptions_active, its poller, its live-query watch and the live-query
 * store's entry. Afterwards the key opens SUBSCRIPTIONS_MAX_PER_KEY subscriptions again.
 * No sleeps: see streams.ts.
 */
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ManualClock, startStack, until, useStack } from '../support';
import {
  activeGauges,
  admitsTheLimit,
  holdings,
  KINDS,
  MOMENTS,
  open,
  openAndLeave,
  openIdleWs,
  openRaw,
  TRANSPORTS,
  untilReleased,
  WAYS,
} from './streams';
import type { Kind, Moment, StreamStack } from './streams';

jest.setTimeout(60_000);

/** Moments that differ for a kind: a query's or mutation's only result is its first. */
function momentsOf(kind: Kind): readonly Moment[] {
  return kind === 'query' || kind === 'mutation' ? ['before-first', 'after-first'] : MOMENTS;
}

describe('every way of leaving releases every stream', () => {
  let streams: StreamStack;

  beforeAll(async () => {
    const clock = new ManualClock();
    const stack = await startStack({
      http: true,
      config: { liveQueryThrottleMs: 0 },
      gateway: { now: clock.now, pollClock: clock },
    });
    streams = { stack, clock };
  });

  afterAll(async () => {
    await streams.stack.close();
  });

  const cases = TRANSPORTS.flatMap((transport) =>
    KINDS.flatMap((kind) =>
      WAYS.flatMap((way) => momentsOf(kind).map((moment) => [transport, kind, way, moment] as const)),
    ),
  );

  it.each(cases)('%s %s, left by %s %s', async (transport, kind, way, moment) => {
    await openAndLeave(streams, transport, kind, way, moment, cases.length);
    await untilReleased(streams.stack, `${transport} ${kind} ${way} ${moment}`);
  });

  it('opens SUBSCRIPTIONS_MAX_PER_KEY subscriptions of the key afterwards, and refuses one more', async () => {
    await admitsTheLimit(streams.stack);
  });
});

describe('a WebSocket peer that stops answering pings', () => {
  const stack = useStack({ http: true, config: { liveQueryThrottleMs: 0, subscriptionKeepAliveMs: 100 } });

  it.each(KINDS)('is dropped after the keep-alive, and its %s released', async (kind) => {
    const idle = openIdleWs(stack, kind);
    const closed = once(idle.ws, 'close');
    const first = await idle.first;
    expect(first.errors).toBeUndefined();
    await closed;
    await untilReleased(stack, `idle ${kind}`);
  });

  it('answering pings keeps a stream open over several keep-alive intervals', async () => {
    const held = open(stack, 'ws', 'live', 'reset');
    await held.first;
    const silent = openIdleWs(stack, 'query');
    // The silent peer is dropped one interval after its first ping: by then the other one answered a ping.
    await once(silent.ws, 'close');
    expect(holdings(stack).liveOpen).toBe(1);
    await held.leave();
    await untilReleased(stack, 'the live query');
  });
});

describe.each(TRANSPORTS)("the gateway's stop ends every %s stream", (transport) => {
  it('releases a query, a mutation, a subscription and live queries open at once, without waiting out the grace period', async () => {
    // A stop that waited for these streams would take the grace period: longer than the test may run.
    const stack = await startStack({ http: true, config: { liveQueryThrottleMs: 0, shutdownGracePeriodMs: 600_000 } });
    try {
      const held = KINDS.map((kind) => ({ kind, held: openRaw(stack, transport, kind) }));
      for (const { held: one } of held) await one.first;
      // The key counts the subscription and one live execution: both live queries run the
      // same document with the same variables, so they share it.
      expect(holdings(stack).perKey).toBe(2);
      expect(stack.gateway.subscriptions.liveQueries.subscribers).toBe(2);
      await stack.gateway.stop();
      await Promise.all(held.map(({ held: one }) => one.ended));
      await untilReleased(stack, `${transport} streams at stop`);
      expect(await activeGauges(stack)).toEqual({ ws: 0, sse: 0 });
    } finally {
      await stack.close().catch(() => undefined);
    }
  });
});

describe('a client that leaves while its subscription starts (the first poll in flight)', () => {
  let streams: StreamStack;
  /** Server-side: connections closed and DELETE requests answered (a client's leaving, as the gateway sees it). */
  let leavesSeen = 0;

  beforeAll(async () => {
    const clock = new ManualClock();
    const stack = await startStack({
      http: true,
      config: { liveQueryThrottleMs: 0 },
      gateway: { now: clock.now, pollClock: clock },
    });
    stack.gateway.httpServer.on('connection', (socket: Socket) => socket.once('close', () => (leavesSeen += 1)));
    stack.gateway.httpServer.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (req.method === 'DELETE') res.once('finish', () => (leavesSeen += 1));
    });
    streams = { stack, clock };
  });

  afterAll(async () => {
    await streams.stack.close();
  });

  afterEach(() => {
    jest.restoreAllMocks();
  });

  const cases = TRANSPORTS.flatMap((transport) => WAYS.map((way) => [transport, way] as const));

  it.each(cases)('%s, left by %s', async (transport, way) => {
    const hub = streams.stack.gateway.subscriptions.hub;
    const subscribe = hub.subscribe.bind(hub);
    let starting: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (starting = resolve));
    let letGo: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (letGo = resolve));
    jest.spyOn(hub, 'subscribe').mockImplementation(async (...args) => {
      starting();
      await gate;
      return subscribe(...args);
    });
    const before = leavesSeen;
    const held = open(streams.stack, transport, 'subscription', way);
    await started;
    await held.leave();
    await until(() => leavesSeen > before, 'the gateway to see the client leave', 200_000);
    letGo();
    await untilReleased(streams.stack, `${transport} ${way} while starting`);
  });
});
