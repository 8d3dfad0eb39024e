/**
 * `/readyz` tells a probe whether the gateway can serve, apart from `/healthz` (the
 * process lives): 200 once the schema is built, the cache file loaded and Redis has
 * answered (when configured); 503 `draining` from the moment a stop begins, while
 * `/healthz` and GraphQL go on answering through `SHUTDOWN_DELAY_MS`.
 */
import { createServer } from 'node:net';
import { describeWithRedis, startStack, startTestRedis, until } from '../support';
import type { HttpStack, TestRedis } from '../support';

let stack: HttpStack | undefined;

afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

async function readyz(
  s: HttpStack,
  method = 'GET',
): Promise<{ status: number; body: unknown; cacheControl: string | null }> {
  const response = await fetch(`${s.origin}/readyz`, { method });
  const text = await response.text();
  return {
    status: response.status,
    body: text === '' ? null : JSON.parse(text),
    cacheControl: response.headers.get('cache-control'),
  };
}

/** A port on 127.0.0.1 where nothing listens. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address ? address.port : 0;
}

it('answers 200 ready once started, to GET and HEAD, never cached', async () => {
  stack = await startStack({ http: true });
  expect(await readyz(stack)).toEqual({ status: 200, body: { status: 'ready' }, cacheControl: 'no-store' });
  expect((await readyz(stack, 'HEAD')).status).toBe(200);
  expect((await fetch(`${stack.origin}/healthz`)).status).toBe(200);
});

it('answers 503 draining as soon as a stop begins, while /healthz and GraphQL still answer during SHUTDOWN_DELAY_MS', async () => {
  stack = await startStack({ http: true, config: { shutdownDelayMs: 1500 } });
  const s = stack;
  let stopped = false;
  const stopping = s.gateway.stop().then(() => (stopped = true));

  expect(await readyz(s)).toEqual({ status: 503, body: { status: 'draining' }, cacheControl: 'no-store' });
  expect((await fetch(`${s.origin}/healthz`)).status).toBe(200);
  const answer = await s.post({ query: '{ buildings { id } }' });
  expect(answer.status).toBe(200);
  expect(answer.body.errors).toBeUndefined();
  expect(stopped).toBe(false);

  await stopping;
  await expect(fetch(`${s.origin}/healthz`)).rejects.toThrow(); // stopped: no process to ask
  stack = undefined;
  await s.simulator.close();
});

it('answers 503 starting, waiting for redis, while the configured Redis has never answered', async () => {
  stack = await startStack({
    http: true,
    config: { redisUrl: `redis://127.0.0.1:${await closedPort()}`, redisTimeoutMs: 50 },
  });
  expect(await readyz(stack)).toEqual({
    status: 503,
    body: { status: 'starting', waitingFor: ['redis'] },
    cacheControl: 'no-store',
  });
  expect((await fetch(`${stack.origin}/healthz`)).status).toBe(200);
}, 15_000);

describeWithRedis('readiness with Redis', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(async () => {
    await redis.stop();
  });

  it('is ready once Redis answers, and stays ready through a later Redis outage (the gateway serves from memory)', async () => {
    stack = await startStack({ http: true, redis });
    const shared = stack.runtime.shared;
    if (!shared) throw new Error('the stack has no Redis');
    expect(await readyz(stack)).toMatchObject({ status: 200, body: { status: 'ready' } });
    if (!redis.owned) return; // a Redis given by REDIS_TEST_URL is not ours to stop
    await redis.stop();
    await until(() => !shared.healthy, 'the gateway to see Redis down', 1_000_000);
    expect(await readyz(stack)).toMatchObject({ status: 200, body: { status: 'ready' } });
    await redis.start();
  }, 30_000);
});
