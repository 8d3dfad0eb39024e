/**
 * Bursts of subscribe messages cost little: a subscription over the connection's or the
 * key's limit is refused by the pipeline's `subscription-limit` step, before it is
 * parsed, validated or given a context (asserted by the steps the pipeline ran, never
 * by timings), and a WebSocket that keeps sending refused subscribes is closed with 4429.
 * Queries and mutations are capped the same way by the operations in flight on the
 * connection (`OPERATIONS_MAX_PER_CONNECTION`), against an upstream that holds every
 * request until the test lets it answer.
 * Raw graphql-transport-ws messages over a `ws` socket, so every message is ours.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import type { StepName } from '../../src/pipeline/steps';
import { MAX_REFUSED_SUBSCRIBES, TOO_MANY_REFUSALS_CLOSE_CODE } from '../../src/subscriptions/admission';
import { ManualClock, metricValue, startStack, until } from '../support';
import type { HttpStack } from '../support';

const COUNTER = 'subscription($id: ID!) { counterChanged(factoryId: $id) { factoryId } }';

interface Message {
  id?: string;
  type: string;
  payload?: unknown;
}

/** A graphql-transport-ws connection, acknowledged, that records every message it receives. */
async function connect(
  stack: HttpStack,
  key: string,
): Promise<{ socket: WebSocket; received: Message[]; subscribe(id: string, query?: string): void }> {
  const socket = new WebSocket(stack.endpoint.replace(/^http/, 'ws'), 'graphql-transport-ws');
  const received: Message[] = [];
  socket.on('message', (data) => received.push(JSON.parse(String(data)) as Message));
  await once(socket, 'open');
  socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${key}` } }));
  await until(() => received.some((message) => message.type === 'connection_ack'), 'connection_ack');
  return {
    socket,
    received,
    subscribe(id, query = COUNTER) {
      socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query, variables: { id: FIXTURE_IDS.shop } } }));
    },
  };
}

describe('a burst of subscribes over the limits', () => {
  let stack: HttpStack;
  let steps: StepName[];

  beforeEach(async () => {
    const clock = new ManualClock();
    stack = await startStack({
      http: true,
      config: { subscriptionsMaxPerConnection: 1, subscriptionsMaxPerKey: 2 },
      gateway: { now: clock.now, pollClock: clock },
    });
    steps = [];
    stack.gateway.pipeline.observe((step) => steps.push(step));
  });

  afterEach(async () => {
    await stack.close();
  });

  it('refuses each with RATE_LIMITED before parsing, validating or building a context', async () => {
    const client = await connect(stack, DEMO_KEYS.premium.key);
    const joined = once(stack.gateway.subscriptions.hub.activity, 'joined');
    client.subscribe('open');
    await joined;
    const requestsAfterOpen = stack.simulator.countRequests();
    steps.length = 0;

    const burst = 50;
    for (let i = 0; i < burst; i += 1) client.subscribe(`over-${i}`);
    await until(() => client.received.filter((message) => message.type === 'complete').length >= burst, 'the refusals');

    const refusals = client.received.filter((message) => message.type === 'next');
    expect(refusals).toHaveLength(burst);
    for (const refusal of refusals) {
      expect(refusal.payload).toMatchObject({
        errors: [{ extensions: { code: 'RATE_LIMITED', setting: 'SUBSCRIPTIONS_MAX_PER_CONNECTION', limit: 1 } }],
      });
    }
    // The pipeline stopped at the limit every time: nothing was parsed or validated.
    expect(steps.filter((step) => step === 'subscription-limit')).toHaveLength(burst);
    expect(steps).not.toContain('parse');
    expect(steps).not.toContain('depth');
    expect(steps).not.toContain('cost');
    expect(stack.simulator.countRequests()).toBe(requestsAfterOpen);
    expect(client.socket.readyState).toBe(WebSocket.OPEN);
    client.socket.close();
  });

  it('answers each refusal with one next and one complete, nothing more, and the connection goes on', async () => {
    const client = await connect(stack, DEMO_KEYS.premium.key);
    const joined = once(stack.gateway.subscriptions.hub.activity, 'joined');
    client.subscribe('open');
    await joined;
    const burst = 20;
    for (let i = 0; i < burst; i += 1) client.subscribe(`over-${i}`);
    // A query after the burst: answered after anything the refusals could still send.
    client.subscribe('after', '{ __typename }');
    await until(
      () => client.received.some((message) => message.id === 'after' && message.type === 'complete'),
      'the query after the burst',
    );
    for (let i = 0; i < burst; i += 1) {
      const answers = client.received.filter((message) => message.id === `over-${i}`);
      expect(answers.map((message) => message.type)).toEqual(['next', 'complete']);
      expect(answers[0]?.payload).toEqual({
        errors: [
          {
            message: expect.stringContaining('subscriptions') as unknown,
            extensions: expect.objectContaining({
              code: 'RATE_LIMITED',
              setting: 'SUBSCRIPTIONS_MAX_PER_CONNECTION',
              limit: 1,
            }) as unknown,
          },
        ],
      });
    }
    // An id refused before may be used again: the refused operation is no longer the server's.
    client.subscribe('over-0');
    await until(
      () => client.received.filter((message) => message.id === 'over-0').length === 4,
      'the second refusal of over-0',
    );
    expect(client.socket.readyState).toBe(WebSocket.OPEN);
    client.socket.close();
  });

  it('parses only what the limit admits of a burst sent before any subscription started', async () => {
    // Every message at once: they reach the gateway together, before the first
    // subscription has started; the ones admitted count against the limit at once.
    const client = await connect(stack, DEMO_KEYS.premium.key);
    steps.length = 0;
    const burst = 30;
    const frames = Array.from({ length: burst }, (_, i) =>
      JSON.stringify({
        id: `b-${i}`,
        type: 'subscribe',
        payload: { query: COUNTER, variables: { id: FIXTURE_IDS.shop } },
      }),
    );
    for (const frame of frames) client.socket.send(frame);
    await until(
      () => client.received.filter((message) => message.type === 'complete').length >= burst - 1,
      'the refusals',
    );
    expect(steps.filter((step) => step === 'parse')).toHaveLength(1);
    expect(steps.filter((step) => step === 'subscription-limit')).toHaveLength(burst);
    client.socket.close();
  });

  /** Two connections of the premium key, each holding one of its subscription places (SUBSCRIPTIONS_MAX_PER_KEY is 2 here). */
  async function holdBothPlaces(): Promise<[Awaited<ReturnType<typeof connect>>, Awaited<ReturnType<typeof connect>>]> {
    const held: Awaited<ReturnType<typeof connect>>[] = [];
    for (const id of ['a', 'b']) {
      const client = await connect(stack, DEMO_KEYS.premium.key);
      const joined = once(stack.gateway.subscriptions.hub.activity, 'joined');
      client.subscribe(id);
      await joined;
      held.push(client);
    }
    return [held[0]!, held[1]!];
  }

  it('refuses over the per-key limit the same way, on another connection of the key', async () => {
    const [first, second] = await holdBothPlaces();
    const third = await connect(stack, DEMO_KEYS.premium.key);
    steps.length = 0;
    third.subscribe('c');
    await until(() => third.received.some((message) => message.type === 'complete'), 'the refusal');
    expect(third.received.find((message) => message.type === 'next')?.payload).toMatchObject({
      errors: [{ extensions: { code: 'RATE_LIMITED', setting: 'SUBSCRIPTIONS_MAX_PER_KEY' } }],
    });
    expect(steps).not.toContain('parse');
    for (const client of [first, second, third]) client.socket.close();
  });

  it('tells live queries from subscriptions in a burst that alternates them, and counts every refusal', async () => {
    const [first, second] = await holdBothPlaces();
    const rejected = async (): Promise<number> =>
      metricValue((await stack.get('/metrics')).text, 'statev_subscriptions_rejected_total', {
        code: 'RATE_LIMITED',
      }) ?? 0;
    const rejectedBefore = await rejected();
    // The key is at its limit: a subscription is refused before it is parsed; a live query may
    // join an identical one of its key, so it is parsed first (and refused when it would start).
    const third = await connect(stack, DEMO_KEYS.premium.key);
    steps.length = 0;
    const rounds = 3;
    const ended = (id: string): boolean =>
      third.received.some((message) => message.id === id && (message.type === 'complete' || message.type === 'error'));
    for (let i = 0; i < rounds; i += 1) {
      third.subscribe(`sub-${i}`);
      await until(() => ended(`sub-${i}`), `the answer to sub-${i}`);
      third.subscribe(`live-${i}`, 'query Live @live { factories { id } }');
      await until(() => ended(`live-${i}`), `the answer to live-${i}`);
    }
    expect(steps.filter((step) => step === 'subscription-limit')).toHaveLength(2 * rounds);
    expect(steps.filter((step) => step === 'parse')).toHaveLength(rounds);
    for (let i = 0; i < rounds; i += 1) {
      expect(third.received.find((message) => message.id === `sub-${i}`)?.payload).toMatchObject({
        errors: [{ extensions: { code: 'RATE_LIMITED', setting: 'SUBSCRIPTIONS_MAX_PER_KEY' } }],
      });
    }
    expect((await rejected()) - rejectedBefore).toBe(2 * rounds);
    for (const client of [first, second, third]) client.socket.close();
  });

  it('lets queries through on a connection at its subscription limit', async () => {
    const client = await connect(stack, DEMO_KEYS.premium.key);
    const joined = once(stack.gateway.subscriptions.hub.activity, 'joined');
    client.subscribe('open');
    await joined;
    client.subscribe('query', '{ __typename }');
    await until(
      () => client.received.some((message) => message.id === 'query' && message.type === 'next'),
      'the query',
    );
    expect(client.received.find((message) => message.id === 'query')?.payload).toEqual({
      data: { __typename: 'Query' },
      extensions: { upstream: expect.objectContaining({ requests: 0 }) as unknown },
    });
    client.socket.close();
  });

  it(`closes a connection with ${TOO_MANY_REFUSALS_CLOSE_CODE} once it sent more than ${MAX_REFUSED_SUBSCRIBES} refused subscribes`, async () => {
    const client = await connect(stack, DEMO_KEYS.premium.key);
    const joined = once(stack.gateway.subscriptions.hub.activity, 'joined');
    client.subscribe('open');
    await joined;
    const closed = once(client.socket, 'close') as Promise<[number, Buffer]>;
    for (let i = 0; i <= MAX_REFUSED_SUBSCRIBES; i += 1) client.subscribe(`over-${i}`);
    const [code, reason] = await closed;
    expect(code).toBe(TOO_MANY_REFUSALS_CLOSE_CODE);
    expect(String(reason)).toMatch(/refused subscribe/i);
    // The open subscription ended with the connection.
    await until(() => stack.gateway.subscriptions.hub.size === 0, 'the poller to stop');
  });

  it(`still gives ${TOO_MANY_REFUSALS_CLOSE_CODE} to a connection that goes on sending thousands of subscribes after it`, async () => {
    const client = await connect(stack, DEMO_KEYS.premium.key);
    const joined = once(stack.gateway.subscriptions.hub.activity, 'joined');
    client.subscribe('open');
    await joined;
    const closed = once(client.socket, 'close') as Promise<[number, Buffer]>;
    // Sent at once: most of it is still on its way when the gateway closes the connection.
    for (let i = 0; i < 3000; i += 1) client.subscribe(`flood-${i}`);
    const [code] = await closed;
    expect(code).toBe(TOO_MANY_REFUSALS_CLOSE_CODE);
    // The refusals answered before the close came whole: a next and a complete each.
    const answered = client.received.filter((message) => message.id?.startsWith('flood-'));
    expect(answered.filter((message) => message.type === 'next')).toHaveLength(
      answered.filter((message) => message.type === 'complete').length,
    );
    await until(() => stack.gateway.subscriptions.hub.size === 0, 'the poller to stop');
  });

  it('counts refusals of any kind, not only those over a limit', async () => {
    const client = await connect(stack, DEMO_KEYS.premium.key);
    const closed = once(client.socket, 'close') as Promise<[number, Buffer]>;
    for (let i = 0; i <= MAX_REFUSED_SUBSCRIBES; i += 1) client.subscribe(`bad-${i}`, '{ nope }');
    const [code] = await closed;
    expect(code).toBe(TOO_MANY_REFUSALS_CLOSE_CODE);
    // Those answered before the close are the validation errors.
    for (const message of client.received.filter((received) => received.id !== undefined)) {
      expect(message).toMatchObject({
        type: 'error',
        payload: [{ extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }],
      });
    }
  });
});

/** An upstream that answers nothing until {@link release}, then `[]` to everything (held and later). */
async function heldUpstream(): Promise<{
  baseUrl: string;
  seen: () => number;
  release(): void;
  close(): Promise<void>;
}> {
  const held: http.ServerResponse[] = [];
  let seen = 0;
  let released = false;
  const answer = (res: http.ServerResponse): void => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('[]');
  };
  const server = http.createServer((_req, res) => {
    seen += 1;
    if (released) answer(res);
    else held.push(res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/req`,
    seen: () => seen,
    release() {
      released = true;
      for (const res of held.splice(0)) answer(res);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('queries and mutations over OPERATIONS_MAX_PER_CONNECTION', () => {
  const MAX = 2;
  let stack: HttpStack;
  let upstream: Awaited<ReturnType<typeof heldUpstream>>;
  let steps: StepName[];

  beforeEach(async () => {
    upstream = await heldUpstream();
    stack = await startStack({
      http: true,
      config: { operationsMaxPerConnection: MAX, upstreamBaseUrl: upstream.baseUrl },
    });
    steps = [];
    stack.gateway.pipeline.observe((step) => steps.push(step));
  });

  afterEach(async () => {
    upstream.release();
    await stack.close();
    await upstream.close();
  });

  /** A connection with {@link MAX} queries waiting for the held upstream. */
  async function atTheCap(): Promise<Awaited<ReturnType<typeof connect>>> {
    const client = await connect(stack, DEMO_KEYS.premium.key);
    for (let i = 0; i < MAX; i += 1) client.subscribe(`held-${i}`, `{ h${i}: factories { id } }`);
    await until(() => upstream.seen() >= 1, 'the held upstream request');
    return client;
  }

  it('refuses one more with RATE_LIMITED before parsing it, and admits again once one is answered', async () => {
    const client = await atTheCap();
    steps.length = 0;
    const burst = 20;
    for (let i = 0; i < burst; i += 1) client.subscribe(`over-${i}`, '{ __typename }');
    await until(
      () =>
        client.received.filter((message) => message.id?.startsWith('over-') && message.type === 'complete').length >=
        burst,
      'the refusals',
    );

    const refusals = client.received.filter((message) => message.id?.startsWith('over-') && message.type === 'next');
    expect(refusals).toHaveLength(burst);
    for (const refusal of refusals) {
      expect(refusal.payload).toMatchObject({
        errors: [{ extensions: { code: 'RATE_LIMITED', setting: 'OPERATIONS_MAX_PER_CONNECTION', limit: MAX } }],
      });
    }
    // Refused by the pipeline's `operation-cap` step, before it read the key or anything after.
    expect(steps).toContain('operation-cap');
    expect(steps).not.toContain('key');
    expect(steps).not.toContain('parse');
    expect(client.socket.readyState).toBe(WebSocket.OPEN);

    // The held ones answer; their places are free again.
    upstream.release();
    await until(
      () =>
        client.received.filter((message) => message.id?.startsWith('held-') && message.type === 'complete').length >=
        MAX,
      'the held queries',
    );
    for (let i = 0; i < MAX; i += 1)
      expect(client.received.find((message) => message.id === `held-${i}`)?.payload).toEqual({
        data: { [`h${i}`]: [] },
        extensions: { upstream: expect.any(Object) as unknown },
      });
    client.subscribe('after', '{ __typename }');
    await until(
      () => client.received.some((message) => message.id === 'after' && message.type === 'complete'),
      'the query after',
    );
    expect(client.received.find((message) => message.id === 'after')?.payload).toEqual({
      data: { __typename: 'Query' },
      extensions: { upstream: expect.objectContaining({ requests: 0 }) as unknown },
    });
    client.socket.close();
  });

  it('refuses a query that mentions the word subscription once it is parsed, and counts the refusal', async () => {
    const client = await atTheCap();
    steps.length = 0;
    const closed = once(client.socket, 'close') as Promise<[number, Buffer]>;
    client.subscribe('disguised-0', '{ __typename } # subscription');
    await until(
      () => client.received.some((message) => message.id === 'disguised-0' && message.type === 'complete'),
      'the refusal',
    );
    expect(client.received.find((message) => message.id === 'disguised-0')?.payload).toMatchObject({
      errors: [{ extensions: { code: 'RATE_LIMITED', setting: 'OPERATIONS_MAX_PER_CONNECTION', limit: MAX } }],
    });
    expect(steps).toContain('parse');
    // Such refusals close the connection like any other: it cannot parse its way past the cap.
    for (let i = 1; i <= MAX_REFUSED_SUBSCRIBES; i += 1)
      client.subscribe(`disguised-${i}`, '{ __typename } # subscription');
    const [code] = await closed;
    expect(code).toBe(TOO_MANY_REFUSALS_CLOSE_CODE);
  });

  it('counts an operation admitted in the same turn at once: of a burst only the cap is parsed', async () => {
    const client = await connect(stack, DEMO_KEYS.premium.key);
    steps.length = 0;
    const burst = 30;
    for (let i = 0; i < burst; i += 1) client.subscribe(`b-${i}`, `{ b${i}: factories { id } }`);
    await until(
      () => client.received.filter((message) => message.type === 'complete').length >= burst - MAX,
      'the refusals',
    );
    expect(steps.filter((step) => step === 'parse')).toHaveLength(MAX);
    // The admitted ones share one upstream request, which may reach the held upstream after
    // the refusals were answered.
    await until(() => upstream.seen() >= 1, 'the upstream request of the admitted ones');
    expect(upstream.seen()).toBe(1);
    client.socket.close();
  });

  it('lets subscriptions through on a connection at its cap of queries', async () => {
    const client = await atTheCap();
    const joined = once(stack.gateway.subscriptions.hub.activity, 'joined');
    client.subscribe('counter');
    // The subscription's first poll goes to the held upstream too.
    await until(() => upstream.seen() >= 2, "the subscription's first poll");
    upstream.release();
    await joined;
    expect(client.received.filter((message) => message.id === 'counter' && message.type === 'error')).toEqual([]);
    client.socket.close();
  });

  it(`closes a connection with ${TOO_MANY_REFUSALS_CLOSE_CODE} once more than ${MAX_REFUSED_SUBSCRIBES} were refused`, async () => {
    const client = await atTheCap();
    const closed = once(client.socket, 'close') as Promise<[number, Buffer]>;
    for (let i = 0; i <= MAX_REFUSED_SUBSCRIBES; i += 1) client.subscribe(`over-${i}`, '{ __typename }');
    const [code, reason] = await closed;
    expect(code).toBe(TOO_MANY_REFUSALS_CLOSE_CODE);
    expect(String(reason)).toMatch(/refused subscribe/i);
    // Every answer before the close was the refusal.
    for (const message of client.received.filter(
      (received) => received.id?.startsWith('over-') && received.type === 'next',
    )) {
      expect(message.payload).toMatchObject({
        errors: [{ extensions: { code: 'RATE_LIMITED', setting: 'OPERATIONS_MAX_PER_CONNECTION' } }],
      });
    }
  });
});
