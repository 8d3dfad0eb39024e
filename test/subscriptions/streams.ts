/**
 * Streams that end: one operation (query, mutation, subscription, live query) over one
 * transport (graphql-ws, graphql-sse with distinct connections, graphql-sse with a
 * reservation token), left in one way (complete, dispose, TCP reset, process kill, idle
 * peer, gateway stop), and what the gateway must hold afterwards: nothing. Shared by
 * release.test.ts (every combination) and release-property.test.ts (random mixes).
 *
 * Real clients (graphql-ws's and graphql-sse's `createClient`) leave by complete and
 * dispose, as applications do; raw ones (the `ws` package, `node:http`) leave by a TCP
 * reset or by not answering pings, and a child process holds the stream it is killed with.
 * No sleeps: every wait is on an event or a condition polled per event-loop turn.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import type { ClientRequest } from 'node:http';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { createClient as createSseClient } from 'graphql-sse';
import type { Gauge } from 'prom-client';
import WebSocket from 'ws';
import { keyId } from '../../src/economy';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import type { HttpStack, ManualClock } from '../support';
import { turn } from '../support';
import { collect, wsClient } from './clients';
import type { Received } from './clients';

/** The transports: graphql-ws, graphql-sse's distinct connections mode, its single connection mode (a reservation token). */
export const TRANSPORTS = ['ws', 'sse', 'sse-single'] as const;
/** One transport. */
export type Transport = (typeof TRANSPORTS)[number];

/** The kinds of operation: `live-patch` is a live query whose client asked for JSON patches (another chain of iterators). */
export const KINDS = ['query', 'mutation', 'subscription', 'live', 'live-patch'] as const;
/** One kind of operation. */
export type Kind = (typeof KINDS)[number];

/** The ways a client leaves (drain and idle are the server's doing; see {@link leave}). */
export const WAYS = ['complete', 'dispose', 'reset', 'kill'] as const;
/** One way of leaving. */
export type Way = (typeof WAYS)[number];

/** When the client leaves: before the first result, after it, or while the next one is being made. */
export const MOMENTS = ['before-first', 'after-first', 'mid-stream'] as const;
/** One moment. */
export type Moment = (typeof MOMENTS)[number];

const KEY = DEMO_KEYS.premium.key;
const SHOP = FIXTURE_IDS.shop;

/** Stock's polling interval (its freshness window): one advance of the manual clock polls again. */
export const STOCK_INTERVAL_MS = 60_000;

const LIVE = 'query Counter($id: ID!) @live { factory(id: $id) { counter { items { item price } } } }';

const OPERATIONS: Record<
  Kind,
  { query: string; variables: Record<string, unknown>; extensions?: Record<string, unknown> }
> = {
  query: { query: 'query Name($id: ID!) { factory(id: $id) { name } }', variables: { id: SHOP } },
  mutation: {
    query: 'mutation Write($input: UpdateFactoryOptionInput!) { updateFactoryOption(input: $input) { message } }',
    variables: {
      input: { factoryId: SHOP, slot: 9, title: 'Streams', data: 'end', apiSecret: DEMO_KEYS.premium.secret },
    },
  },
  subscription: {
    query: 'subscription Stock($id: ID!) { inventoryChanged(factoryId: $id) { factoryId changes { item delta } } }',
    variables: { id: SHOP },
  },
  live: { query: LIVE, variables: { id: SHOP } },
  'live-patch': { query: LIVE, variables: { id: SHOP }, extensions: { livePatch: 'jsondiffpatch' } },
};

/** The body of one operation of `kind`. */
export function operationOf(kind: Kind): {
  query: string;
  variables: Record<string, unknown>;
  extensions?: Record<string, unknown>;
} {
  return OPERATIONS[kind];
}

/** One stream a client holds. */
export interface Held {
  /** The first result (data or errors); for a subscription, once its first poll answered (it has no result before a change). */
  readonly first: Promise<Received>;
  /** Resolves when the client sees the stream end (complete, error or a closed connection). */
  readonly ended: Promise<void>;
  /** Leaves the way it was opened for (a no-op for a stream the gateway ends itself). */
  leave(): Promise<void>;
}

/** What a case needs of the running stack. */
export interface StreamStack {
  readonly stack: HttpStack;
  readonly clock: ManualClock;
}

function url(stack: HttpStack, path: string): URL {
  return new URL(path, stack.gateway.url);
}

/** A promise and its resolve. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

/** Resolves on the hub's next `joined` event: a subscription's first poll answered. */
function joined(stack: HttpStack): Promise<Received> {
  return once(stack.gateway.subscriptions.hub.activity, 'joined').then(() => ({}));
}

/** Opens `kind` over `transport` with a real client that leaves by `way` ('complete' or 'dispose'). */
function openWithClient(stack: HttpStack, transport: Transport, kind: Kind, way: 'complete' | 'dispose'): Held {
  const operation = operationOf(kind);
  const started = kind === 'subscription' ? joined(stack) : null;
  const client =
    transport === 'ws'
      ? wsClient(stack.endpoint, KEY)
      : createSseClient({
          url: url(stack, '/graphql/stream').href,
          headers: { authorization: `Bearer ${KEY}` },
          retryAttempts: 0,
          singleConnection: transport === 'sse-single',
        });
  const collected = collect((sink) => client.subscribe(operation, sink));
  return {
    first: started ?? collected.next(),
    ended: collected.ended.then(() => undefined),
    async leave() {
      if (way === 'complete') collected.stop();
      // graphql-ws closes its socket either way; graphql-sse's client is disposed only to leave that way.
      if (transport === 'ws' || way === 'dispose') await client.dispose();
    },
  };
}

/** A raw graphql-transport-ws client: its TCP socket at hand, pongs optional. */
function openRawWs(
  stack: HttpStack,
  kind: Kind,
  autoPong: boolean,
): { held: Held; socket: Promise<Socket>; ws: WebSocket } {
  const ws = new WebSocket(url(stack, '/graphql').href.replace(/^http/, 'ws'), 'graphql-transport-ws', { autoPong });
  const socket = deferred<Socket>();
  const first = deferred<Received>();
  const ended = deferred<void>();
  ws.once('upgrade', (response) => socket.resolve(response.socket as Socket));
  ws.once('open', () =>
    ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${KEY}` } })),
  );
  ws.on('message', (data) => {
    const message = JSON.parse(String(data)) as { type: string; payload?: Received };
    if (message.type === 'connection_ack')
      ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: operationOf(kind) }));
    else if (message.type === 'next' && message.payload) first.resolve(message.payload);
    else if (message.type === 'error') {
      first.resolve({ errors: message.payload as unknown as Received['errors'] });
      ended.resolve();
    } else if (message.type === 'complete') ended.resolve();
  });
  ws.on('error', () => undefined);
  ws.once('close', () => {
    first.resolve({ errors: [{ message: 'closed' }] });
    ended.resolve();
  });
  const started = kind === 'subscription' ? joined(stack) : null;
  return {
    held: { first: started ?? first.promise, ended: ended.promise, leave: () => Promise.resolve() },
    socket: socket.promise,
    ws,
  };
}

/** Reads `event: next` payloads out of an SSE response body. */
function readEvents(
  response: NodeJS.ReadableStream,
  onNext: (payload: Received) => void,
  onComplete: () => void,
): void {
  let text = '';
  response.setEncoding('utf8');
  response.on('data', (chunk: string) => {
    text += chunk;
    let end: number;
    while ((end = text.indexOf('\n\n')) >= 0) {
      const block = text.slice(0, end);
      text = text.slice(end + 2);
      const event = /^event: (\w+)/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (event === 'next' && data) {
        const parsed = JSON.parse(data) as Received & { payload?: Received };
        onNext(parsed.payload ?? parsed);
      } else if (event === 'complete') onComplete();
    }
  });
}

/** A raw graphql-sse client over `node:http`: distinct connections, or a reservation token (single connection mode). */
function openRawSse(stack: HttpStack, kind: Kind, single: boolean): { held: Held; socket: Promise<Socket> } {
  const socket = deferred<Socket>();
  const first = deferred<Received>();
  const ended = deferred<void>();
  const origin = url(stack, '/');
  const stream = (token: string | null, body: string | null): ClientRequest => {
    const req = httpRequest({
      host: origin.hostname,
      port: origin.port,
      method: body === null ? 'GET' : 'POST',
      path: '/graphql/stream',
      headers: {
        accept: 'text/event-stream',
        authorization: `Bearer ${KEY}`,
        ...(token ? { 'x-graphql-event-stream-token': token } : {}),
        ...(body === null ? {} : { 'content-type': 'application/json' }),
      },
    });
    req.once('socket', (s) => socket.resolve(s));
    req.on('error', () => {
      first.resolve({ errors: [{ message: 'closed' }] });
      ended.resolve();
    });
    req.once('response', (response) => {
      readEvents(
        response,
        (payload) => first.resolve(payload),
        () => ended.resolve(),
      );
      response.on('error', () => undefined);
      response.once('close', () => {
        first.resolve({ errors: [{ message: 'closed' }] });
        ended.resolve();
      });
    });
    req.end(body ?? undefined);
    return req;
  };
  const started = kind === 'subscription' ? joined(stack) : null;
  if (!single) {
    stream(null, JSON.stringify(operationOf(kind)));
  } else {
    void (async () => {
      const reserved = await fetch(url(stack, '/graphql/stream'), {
        method: 'PUT',
        headers: { authorization: `Bearer ${KEY}` },
      });
      const token = await reserved.text();
      stream(token, null);
      await fetch(url(stack, '/graphql/stream'), {
        method: 'POST',
        headers: {
          authorization: `Bearer ${KEY}`,
          'content-type': 'application/json',
          accept: 'application/json',
          'x-graphql-event-stream-token': token,
        },
        body: JSON.stringify({
          ...operationOf(kind),
          extensions: { ...operationOf(kind).extensions, operationId: '1' },
        }),
      });
    })();
  }
  return {
    held: { first: started ?? first.promise, ended: ended.promise, leave: () => Promise.resolve() },
    socket: socket.promise,
  };
}

/**
 * A child Node process that opens one stream and prints `sent` once it asked, `first` at the
 * first result; killing it with SIGKILL leaves the gateway with whatever the kernel does to
 * its sockets. Plain JavaScript (`node -e`), so it starts in milliseconds.
 */
const CHILD = String.raw`
const [transport, origin, key, body] = process.argv.slice(1);
const http = require('node:http');
const say = (word) => process.stdout.write(word + '\n');
const u = new URL(origin);
const stream = (token, payload) => {
  const req = http.request({ host: u.hostname, port: u.port, method: payload ? 'POST' : 'GET', path: '/graphql/stream',
    headers: Object.assign({ accept: 'text/event-stream', authorization: 'Bearer ' + key }, token ? { 'x-graphql-event-stream-token': token } : {}, payload ? { 'content-type': 'application/json' } : {}) });
  req.on('response', (res) => res.on('data', (chunk) => { if (String(chunk).includes('event: next')) say('first'); }));
  req.on('error', () => undefined);
  req.end(payload || undefined);
};
if (transport === 'ws') {
  const WebSocket = require('ws');
  const ws = new WebSocket(origin.replace(/^http/, 'ws') + '/graphql', 'graphql-transport-ws');
  ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: 'Bearer ' + key } })));
  ws.on('message', (data) => {
    const message = JSON.parse(String(data));
    if (message.type === 'connection_ack') { ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: JSON.parse(body) })); say('sent'); }
    if (message.type === 'next') say('first');
  });
} else if (transport === 'sse') {
  stream(null, body);
  say('sent');
} else {
  fetch(origin + '/graphql/stream', { method: 'PUT', headers: { authorization: 'Bearer ' + key } }).then((r) => r.text()).then(async (token) => {
    stream(token, null);
    const parsed = JSON.parse(body);
    parsed.extensions = Object.assign({}, parsed.extensions, { operationId: '1' });
    fetch(origin + '/graphql/stream', { method: 'POST', headers: { authorization: 'Bearer ' + key, 'content-type': 'application/json', accept: 'application/json', 'x-graphql-event-stream-token': token }, body: JSON.stringify(parsed) }).catch(() => undefined);
    say('sent');
  });
}
`;

/** Opens `kind` over `transport` in a child process; `leave()` kills it with SIGKILL. */
function openInChild(stack: HttpStack, transport: Transport, kind: Kind): Held {
  const child = spawn(
    process.execPath,
    ['-e', CHILD, transport, stack.gateway.url, KEY, JSON.stringify(operationOf(kind))],
    {
      cwd: join(__dirname, '..', '..'),
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const sent = deferred<void>();
  const first = deferred<Received>();
  const exited = deferred<void>();
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    if (chunk.includes('sent')) sent.resolve();
    if (chunk.includes('first')) first.resolve({});
  });
  child.once('exit', () => {
    sent.resolve();
    first.resolve({ errors: [{ message: 'exited' }] });
    exited.resolve();
  });
  const started = kind === 'subscription' ? joined(stack) : null;
  return {
    // "before the first result" for a child: once it has sent the operation.
    first: started ?? first.promise,
    ended: exited.promise,
    async leave() {
      await sent.promise;
      child.kill('SIGKILL');
      await exited.promise;
    },
  };
}

/**
 * Opens `kind` over `transport`, to be left by `way`: complete and dispose with the real
 * clients, a reset with a raw client whose TCP socket is reset (RST), a kill in a child process.
 */
export function open(stack: HttpStack, transport: Transport, kind: Kind, way: Way): Held {
  if (way === 'complete' || way === 'dispose') return openWithClient(stack, transport, kind, way);
  if (way === 'kill') return openInChild(stack, transport, kind);
  const raw = transport === 'ws' ? openRawWs(stack, kind, true) : openRawSse(stack, kind, transport === 'sse-single');
  return {
    ...raw.held,
    async leave() {
      (await raw.socket).resetAndDestroy();
    },
  };
}

/** Opens `kind` over a raw WebSocket that never answers pings (the gateway drops it after the keep-alive). */
export function openIdleWs(stack: HttpStack, kind: Kind): Held & { ws: WebSocket } {
  const raw = openRawWs(stack, kind, false);
  return { ...raw.held, ws: raw.ws };
}

/** Opens `kind` over `transport` with a raw client that stays (for the gateway's stop). */
export function openRaw(stack: HttpStack, transport: Transport, kind: Kind): Held {
  return transport === 'ws'
    ? openRawWs(stack, kind, true).held
    : openRawSse(stack, kind, transport === 'sse-single').held;
}

/**
 * Makes the next result of `kind` be under way: a live query re-runs (the counter changed
 * and a read stored it), a subscription polls again (the stock changed, one interval
 * passed). Queries and mutations have no next result.
 */
export async function startNext({ stack, clock }: StreamStack, kind: Kind, step: number): Promise<void> {
  if (kind === 'live' || kind === 'live-patch') {
    stack.simulator.change({ kind: 'counter', factoryId: SHOP, item: 'Wasser', price: 1 + (step % 50) / 10 });
    await stack.executeText(
      'query($id: ID!) { factory(id: $id) { counter { items { item } } } }',
      { id: SHOP },
      { headers: { 'cache-control': 'no-cache' } },
    );
  } else if (kind === 'subscription') {
    stack.simulator.change({ kind: 'stock', factoryId: SHOP, item: 'Wasser', delta: 1 });
    clock.advance(STOCK_INTERVAL_MS);
  }
}

/** Opens, waits for `moment`, and leaves by `way`. */
export async function openAndLeave(
  streams: StreamStack,
  transport: Transport,
  kind: Kind,
  way: Way,
  moment: Moment,
  step = 0,
): Promise<void> {
  const held = open(streams.stack, transport, kind, way);
  if (moment !== 'before-first') {
    const first = await held.first;
    if (first.errors && !(way === 'kill' && kind !== 'subscription'))
      throw new Error(`${transport} ${kind}: the first result has errors: ${JSON.stringify(first.errors)}`);
    if (moment === 'mid-stream') await startNext(streams, kind, step);
  }
  await held.leave();
}

/** What the gateway holds for streams now. */
export interface Holdings {
  /** `SubscriptionService.openFor` of the premium key. */
  perKey: number;
  /** Live queries open. */
  liveOpen: number;
  /** Resources watched by live queries. */
  watched: number;
  /** Resource identifiers the live-query store tracks (its internal map). */
  storeTracked: number;
  /** Pollers running. */
  pollers: number;
}

/** The live-query store's internal map (no public reader: the library keeps it private). */
interface StoreInternals {
  store: { _resourceTracker: { _trackedResources: Map<string, Set<unknown>> } };
}

/** What the gateway of `stack` holds now. */
export function holdings(stack: HttpStack): Holdings {
  const { service, liveQueries, hub } = stack.gateway.subscriptions;
  return {
    perKey: service.openFor(keyId(KEY, stack.config.keyHashSecret)),
    liveOpen: liveQueries.open,
    watched: liveQueries.watchedCount,
    storeTracked: (liveQueries as unknown as StoreInternals).store._resourceTracker._trackedResources.size,
    pollers: hub.size,
  };
}

const NOTHING: Holdings = { perKey: 0, liveOpen: 0, watched: 0, storeTracked: 0, pollers: 0 };

/** `statev_subscriptions_active` by transport. */
export async function activeGauges(stack: HttpStack): Promise<Record<string, number>> {
  const gauge = stack.gateway.metrics.registry.getSingleMetric('statev_subscriptions_active') as
    Gauge<'transport'> | undefined;
  const values: Record<string, number> = { ws: 0, sse: 0 };
  for (const sample of (await gauge?.get())?.values ?? []) values[String(sample.labels.transport)] = sample.value;
  return values;
}

/**
 * Waits until the gateway holds nothing for streams (see {@link Holdings}), polling once per
 * event-loop turn; fails with what it still holds.
 */
export async function untilReleased(stack: HttpStack, what: string, maxTurns = 200_000): Promise<void> {
  let now = holdings(stack);
  for (let i = 0; i < maxTurns && JSON.stringify(now) !== JSON.stringify(NOTHING); i += 1) {
    await turn();
    now = holdings(stack);
  }
  if (JSON.stringify(now) !== JSON.stringify(NOTHING)) throw new Error(`${what}: still held ${JSON.stringify(now)}`);
  const gauges = await activeGauges(stack);
  if (gauges.ws !== 0 || gauges.sse !== 0)
    throw new Error(`${what}: statev_subscriptions_active ${JSON.stringify(gauges)}`);
}

/**
 * Opens SUBSCRIPTIONS_MAX_PER_KEY (20) subscriptions of the premium key on two WebSockets
 * and checks that each starts, and that one more on a third is refused with
 * SUBSCRIPTIONS_MAX_PER_KEY: the key's count was exactly 0 (a leaked one would refuse the
 * 20th). Closes them again and waits until they are released.
 */
export async function admitsTheLimit(stack: HttpStack, perKey = 20): Promise<void> {
  const clients = [wsClient(stack.endpoint, KEY), wsClient(stack.endpoint, KEY), wsClient(stack.endpoint, KEY)];
  const hub = stack.gateway.subscriptions.hub;
  let joins = 0;
  const count = (): void => void (joins += 1);
  hub.activity.on('joined', count);
  try {
    const opened = Array.from({ length: perKey }, (_, i) => {
      const client = clients[Math.floor(i / 10)];
      if (!client) throw new Error('no client');
      return collect((sink) => client.subscribe(operationOf('subscription'), sink));
    });
    const early = Promise.race(opened.map((collected, i) => collected.ended.then((end) => ({ i, end }))));
    for (let i = 0; joins < perKey && i < 200_000; i += 1) await turn();
    if (joins < perKey)
      throw new Error(
        `${joins} of ${perKey} subscriptions started; one ended: ${JSON.stringify(await Promise.race([early, Promise.resolve(null)]))}`,
      );
    const extra = clients[2];
    if (!extra) throw new Error('no client');
    const over = collect((sink) => extra.subscribe(operationOf('subscription'), sink));
    const refusal = await over.next();
    if (refusal.errors?.[0]?.extensions?.setting !== 'SUBSCRIPTIONS_MAX_PER_KEY')
      throw new Error(`the ${perKey + 1}st was not refused by SUBSCRIPTIONS_MAX_PER_KEY: ${JSON.stringify(refusal)}`);
    for (const collected of opened) collected.stop();
  } finally {
    hub.activity.off('joined', count);
    await Promise.all(clients.map((client) => client.dispose()));
  }
  await untilReleased(stack, 'the subscriptions up to the limit');
}
