/**
 * graphql-sse reservations (`PUT /graphql/stream`, single-connection mode) are bounded: one
 * not connected within its lifetime is freed (in graphql-sse too: its token then answers
 * `404 Stream not found`), and there are at most so many per client address and in all (over
 * a cap: 429 `RATE_LIMITED` naming the setting). A reservation used in time works, with
 * graphql-sse's own client.
 *
 * The first group runs graphql-sse's Node handler behind `SseReservations` on a server of
 * its own, with faked timers (sockets stay real) and client addresses 127.0.0.x; the second
 * the whole gateway.
 */
import { createServer, request } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import { createClient as createSseClient } from 'graphql-sse';
import { createHandler } from 'graphql-sse/lib/use/http';
import { SseReservations } from '../../src/subscriptions/sse-reservations';
import type { SseReservationLimits } from '../../src/subscriptions/sse-reservations';
import { DEMO_KEYS } from '../../src/simulator';
import { bearer, useFakeTimersWithRealIo, useStack } from '../support';
import { collect } from './clients';

/** One answer: status, content type, Retry-After and body text. */
interface Answer {
  status: number;
  type: string | undefined;
  retryAfter: string | undefined;
  text: string;
}

/** Sends one request from `localAddress` (127.0.0.x) and reads the whole answer. */
function call(
  origin: string,
  method: string,
  headers: Record<string, string>,
  body = '',
  localAddress = '127.0.0.1',
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${origin}/graphql/stream`, { method, headers, localAddress, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          type: res.headers['content-type'],
          retryAfter: res.headers['retry-after'],
          text,
        }),
      );
    });
    req.once('error', reject);
    req.end(body);
  });
}

/** Reserves a stream (keyless PUT, as graphql-sse's client sends it). */
const put = (origin: string, localAddress?: string): Promise<Answer> => call(origin, 'PUT', {}, '', localAddress);

/** Sends an operation on a reserved stream (the token's stream need not be connected). */
const operate = (origin: string, token: string): Promise<Answer> =>
  call(
    origin,
    'POST',
    { 'content-type': 'application/json', 'x-graphql-event-stream-token': token },
    JSON.stringify({ query: '{ hello }', extensions: { operationId: 'one' } }),
  );

describe('SseReservations around graphql-sse', () => {
  let server: Server;
  let origin: string;
  let reservations: SseReservations;
  /** PUTs the reservations sent graphql-sse themselves (to make an entry when a token is first named). */
  let internalPuts: number;
  const TTL = 30_000;

  async function start(limits: Partial<SseReservationLimits> = {}): Promise<void> {
    useFakeTimersWithRealIo();
    const schema = new GraphQLSchema({
      query: new GraphQLObjectType({
        name: 'Query',
        fields: { hello: { type: GraphQLString, resolve: () => 'world' } },
      }),
    });
    internalPuts = 0;
    reservations = new SseReservations({ ttlMs: TTL, maxPerAddress: 100, max: 1000, ...limits }, (req, res) => {
      if (req.method === 'PUT') internalPuts += 1;
      return sse(req, res);
    });
    const sse = createHandler({ schema, authenticate: reservations.authenticate });
    server = createServer((req, res) => void reservations.handle(req, res, () => sse(req, res)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  afterEach(async () => {
    reservations.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    jest.useRealTimers();
  });

  it('frees a reservation not connected within SSE_RESERVATION_TTL_MS, in graphql-sse too', async () => {
    await start();
    const reserved = await put(origin);
    expect(reserved.status).toBe(201);
    const token = reserved.text;
    expect(reservations.size).toBe(1);
    expect(reservations.sizeOf('127.0.0.1')).toBe(1);

    jest.advanceTimersByTime(TTL - 1);
    expect(reservations.size).toBe(1);
    jest.advanceTimersByTime(2);
    expect(reservations.size).toBe(0);
    expect(reservations.sizeOf('127.0.0.1')).toBe(0);
    // graphql-sse no longer knows the token: the way it answers any unknown one.
    const late = await operate(origin, token);
    expect(late.status).toBe(404);
    expect(JSON.parse(late.text)).toEqual({ errors: [{ message: 'Stream not found' }] });
  });

  it("makes graphql-sse's entry only when a token is first named, and frees it there when it expires", async () => {
    await start();
    const tokens = [(await put(origin)).text, (await put(origin)).text, (await put(origin)).text];
    expect(new Set(tokens).size).toBe(3);
    // Three reservations, none in graphql-sse yet (each would hold a stream of its own there).
    expect(internalPuts).toBe(0);
    expect((await operate(origin, tokens[0] ?? '')).status).toBe(202);
    expect((await operate(origin, tokens[0] ?? '')).status).toBe(202);
    expect(internalPuts).toBe(1);
    // A PUT naming a recorded token is refused as graphql-sse refuses one it holds.
    const again = await call(origin, 'PUT', { 'x-graphql-event-stream-token': tokens[1] ?? '' });
    expect(again.status).toBe(409);
    expect(JSON.parse(again.text)).toEqual({ errors: [{ message: 'Stream already registered' }] });

    jest.advanceTimersByTime(TTL + 1);
    expect(reservations.size).toBe(0);
    for (const token of tokens) expect((await operate(origin, token)).status).toBe(404);
    expect(internalPuts).toBe(1);
  });

  it('leaves nothing behind after many reservations expire (freed 500 at a time, I/O served in between)', async () => {
    await start({ maxPerAddress: 300, max: 2000 });
    const addresses = ['127.0.0.1', '127.0.0.2', '127.0.0.3', '127.0.0.4'];
    const answers: Answer[] = [];
    for (const address of addresses)
      answers.push(...(await Promise.all(Array.from({ length: 300 }, () => put(origin, address)))));
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 201));
    expect(reservations.size).toBe(1200);
    jest.advanceTimersByTime(TTL);
    expect(reservations.size).toBe(700);
    jest.advanceTimersByTime(1);
    expect(reservations.size).toBe(200);
    jest.advanceTimersByTime(1);
    expect(reservations.size).toBe(0);
    for (const address of addresses) expect(reservations.sizeOf(address)).toBe(0);
    const late = await Promise.all(
      answers.filter((_, i) => i % 10 === 0).map((answer) => operate(origin, answer.text)),
    );
    expect(late.map((answer) => answer.status)).toEqual(late.map(() => 404));
  });

  it('keeps a reservation whose stream connected in time (graphql-sse frees it when the stream closes)', async () => {
    await start();
    const token = (await put(origin)).text;
    // Connect the event stream, then send an operation on it.
    const events: string[] = [];
    const streamReq = request(`${origin}/graphql/stream`, {
      headers: { accept: 'text/event-stream', 'x-graphql-event-stream-token': token },
      agent: false,
    });
    const streamed = new Promise<void>((resolve, reject) => {
      streamReq.once('error', reject);
      streamReq.once('response', (res) => {
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          events.push(chunk);
          if (events.join('').includes('event: complete')) resolve();
        });
      });
    });
    streamReq.end();
    await new Promise<void>((resolve) => streamReq.once('response', () => resolve()));
    expect(reservations.size).toBe(0);
    jest.advanceTimersByTime(TTL + 1);
    expect((await operate(origin, token)).status).toBe(202);
    await streamed;
    expect(events.join('')).toContain('"hello":"world"');
    streamReq.destroy();
  });

  it('refuses a reservation over SSE_RESERVATIONS_MAX_PER_ADDRESS with 429 RATE_LIMITED, and not other addresses', async () => {
    await start({ maxPerAddress: 2 });
    expect((await put(origin)).status).toBe(201);
    expect((await put(origin)).status).toBe(201);
    const refused = await put(origin);
    expect(refused.status).toBe(429);
    expect(refused.type).toBe('application/json; charset=utf-8');
    expect(refused.retryAfter).toBe('30');
    const body = JSON.parse(refused.text) as {
      errors: Array<{ message: string; extensions: Record<string, unknown> }>;
    };
    expect(body.errors[0]?.extensions).toEqual({
      code: 'RATE_LIMITED',
      limit: 'SSE_RESERVATIONS_MAX_PER_ADDRESS',
      max: 2,
      retryAfterSeconds: 30,
    });
    expect(body.errors[0]?.message).toContain('SSE_RESERVATIONS_MAX_PER_ADDRESS');
    expect(reservations.size).toBe(2);
    expect((await put(origin, '127.0.0.2')).status).toBe(201);
    // Once they expire, the address may reserve again.
    jest.advanceTimersByTime(TTL + 1);
    expect((await put(origin)).status).toBe(201);
  });

  it('refuses a reservation over SSE_RESERVATIONS_MAX with 429 RATE_LIMITED', async () => {
    await start({ max: 3 });
    for (const address of ['127.0.0.1', '127.0.0.2', '127.0.0.3'])
      expect((await put(origin, address)).status).toBe(201);
    const refused = await put(origin, '127.0.0.4');
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.text)).toMatchObject({
      errors: [{ extensions: { code: 'RATE_LIMITED', limit: 'SSE_RESERVATIONS_MAX', max: 3 } }],
    });
    // Concurrent PUTs never pass the cap either.
    jest.advanceTimersByTime(TTL + 1);
    const burst = await Promise.all(Array.from({ length: 10 }, (_, i) => put(origin, `127.0.0.${i + 1}`)));
    expect(burst.filter((answer) => answer.status === 201)).toHaveLength(3);
    expect(reservations.size).toBe(3);
  });

  it('does not record a PUT graphql-sse refuses (a token already registered)', async () => {
    await start();
    const token = (await put(origin)).text;
    const again = await call(origin, 'PUT', { 'x-graphql-event-stream-token': token });
    expect(again.status).toBe(409);
    expect(reservations.size).toBe(1);
    expect(reservations.sizeOf('127.0.0.1')).toBe(1);
  });
});

describe('graphql-sse reservations in the gateway', () => {
  const stack = useStack({ http: true, config: { sseReservationsMaxPerAddress: 3 } });

  it("serves graphql-sse's single-connection client, and refuses a fourth unconnected reservation", async () => {
    const client = createSseClient({
      url: `${stack.origin}/graphql/stream`,
      singleConnection: true,
      headers: bearer(DEMO_KEYS.premium.key),
      retryAttempts: 0,
    });
    const result = collect((sink) => client.subscribe({ query: '{ __typename }' }, sink));
    expect((await result.next()).data).toEqual({ __typename: 'Query' });
    expect(await result.ended).toBe('complete');
    client.dispose();

    const answers = [];
    for (let i = 0; i < 4; i += 1) answers.push(await put(stack.origin));
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201, 429]);
    expect(JSON.parse(answers[3]?.text ?? '')).toMatchObject({
      errors: [{ extensions: { code: 'RATE_LIMITED', limit: 'SSE_RESERVATIONS_MAX_PER_ADDRESS', max: 3 } }],
    });
  });
});

describe('graphql-sse reservations in the gateway, expiring', () => {
  const stack = useStack({ http: true, config: { sseReservationTtlMs: 60_000 } });
  afterEach(() => jest.useRealTimers());

  it('frees in graphql-sse a reservation that was named, once it expires', async () => {
    useFakeTimersWithRealIo();
    const token = (await put(stack.origin)).text;
    expect((await operate(stack.origin, token)).status).toBe(202);
    jest.advanceTimersByTime(60_001);
    const late = await operate(stack.origin, token);
    expect(late.status).toBe(404);
    expect(JSON.parse(late.text)).toEqual({ errors: [{ message: 'Stream not found' }] });
  });
});

describe('graphql-sse reservations behind a trusted proxy', () => {
  const stack = useStack({ http: true, config: { sseReservationsMaxPerAddress: 2, trustedProxies: ['127.0.0.1'] } });

  it('caps each client the proxy names in X-Forwarded-For, not the proxy itself', async () => {
    const from = (client: string): Promise<Answer> => call(stack.origin, 'PUT', { 'x-forwarded-for': client });
    const first = [await from('203.0.113.7'), await from('203.0.113.7'), await from('203.0.113.7')];
    expect(first.map((answer) => answer.status)).toEqual([201, 201, 429]);
    // Another client behind the same proxy still has its own places.
    expect((await from('203.0.113.8')).status).toBe(201);
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    const untrusted = (client: string): Promise<Answer> =>
      call(stack.origin, 'PUT', { 'x-forwarded-for': client }, '', '127.0.0.2');
    const answers = [await untrusted('198.51.100.1'), await untrusted('198.51.100.2'), await untrusted('198.51.100.3')];
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 429]);
  });
});

describe('graphql-sse reservations through one proxy peer rotating X-Forwarded-For', () => {
  const stack = useStack({
    http: true,
    config: {
      sseReservationsMaxPerAddress: 2,
      sseReservationsMaxPerPeer: 5,
      sseReservationsMax: 100,
      trustedProxies: ['127.0.0.1'],
    },
  });

  it('caps the peer too (SSE_RESERVATIONS_MAX_PER_PEER): made-up client addresses do not fill SSE_RESERVATIONS_MAX', async () => {
    const answers: Answer[] = [];
    for (let i = 0; i < 7; i += 1)
      answers.push(await call(stack.origin, 'PUT', { 'x-forwarded-for': `203.0.113.${i + 1}` }));
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201, 201, 201, 429, 429]);
    expect(answers[5]?.text).toContain('SSE_RESERVATIONS_MAX_PER_PEER');
    // Another peer (a client of its own, not through the proxy) still gets its places.
    expect((await call(stack.origin, 'PUT', {}, '', '127.0.0.2')).status).toBe(201);
  });
});
