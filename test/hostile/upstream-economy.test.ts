/**
 * Hostile upstreams against the economy: a timed-out GET
 * is not retried, `MAX_UPSTREAM_REQUESTS` holds at run time, and a huge `Retry-After`
 * cannot silence a key for years, in memory or in Redis.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config';
import { createContext } from '../../src/context';
import { callerKey } from '../../src/pipeline/key-in-use';
import { RedisSharedState } from '../../src/economy/shared-state/redis-shared-state';
import { createGatewayRuntime } from '../../src/runtime';
import { DEMO_KEYS } from '../../src/simulator';
import {
  advanceClock,
  describeWithRedis,
  startStack,
  startTestRedis,
  T0,
  TEST_REDIS_TIMEOUT_MS,
  until,
  useFakeDate,
  useFakeTimersWithRealIo,
} from '../support';
import type { Stack } from '../support';
import { createLogger } from '../../src/observability/logger';

const FACTORIES = '{ factories { id inventory { totalWeight } } }';

describe('a GET that ran into the deadline is not retried', () => {
  it('a dripping 503 body times out once and is never sent again', async () => {
    let requests = 0;
    const timers = new Set<NodeJS.Timeout>();
    const server = http.createServer((_req, res) => {
      requests += 1;
      // A status the retry rules would retry (503), whose body then drips past the deadline.
      res.writeHead(503, { 'content-type': 'application/json' });
      const drip = setInterval(() => res.write(' '), 20);
      timers.add(drip);
      res.on('close', () => clearInterval(drip));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/req`;
    const runtime = await createGatewayRuntime(
      loadConfig(
        {},
        {
          upstreamBaseUrl: baseUrl,
          upstreamTimeoutMs: 500,
          upstreamRetryDelayMs: 0,
          logLevel: 'silent',
          responseCacheEnabled: false,
        },
      ),
    );
    await runtime.apollo.start();
    // Every timer is faked (sockets stay real): the deadline passes once the server has the
    // request, however loaded the machine; a retry would be a second request (or, its delay
    // faked too, no answer at all).
    useFakeTimersWithRealIo();
    try {
      let settled = false;
      const pending = runtime.apollo
        .executeOperation(
          { query: '{ factories { id } }' },
          {
            contextValue: createContext(
              runtime.services,
              new Map(),
              callerKey({ kind: 'key', apiKey: DEMO_KEYS.premium.key }, runtime.services.config.keyHashSecret),
            ),
          },
        )
        .finally(() => {
          settled = true;
        });
      await until(() => requests === 1, 'the request at the server');
      jest.advanceTimersByTime(500);
      await until(() => settled || requests > 1, 'the answer');
      expect(requests).toBe(1);
      const response = await pending;
      if (response.body.kind !== 'single') throw new Error('expected a single result');
      const errors = response.body.singleResult.errors ?? [];
      expect(errors.map((error) => error.extensions?.code)).toEqual(['UPSTREAM_TIMEOUT']);
      expect(requests).toBe(1);
    } finally {
      jest.useRealTimers();
      for (const timer of timers) clearInterval(timer);
      await runtime.apollo.stop();
      await runtime.upstream.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('MAX_UPSTREAM_REQUESTS is enforced at run time', () => {
  let stack: Stack;
  afterEach(async () => {
    await stack.close();
  });

  it('an operation estimated under the cap stops at it: further fields fail with QUERY_TOO_EXPENSIVE, answered ones stay', async () => {
    // The estimate assumes one company, so the operation (list + inventories) passes it at 2.
    stack = await startStack({
      config: { maxUpstreamRequests: 2, costAssumptions: { factories: 1, buildings: 1, bankAccounts: 1, rooms: 1 } },
    });
    const result = await stack.executeText(FACTORIES);
    const factories = (result.data?.factories ?? []) as Array<{ id: string; inventory: unknown }>;
    expect(factories.length).toBeGreaterThan(2);
    // The list and one inventory: two requests, then nothing more.
    expect(stack.attempts).toHaveLength(2);
    expect(factories.filter((factory) => factory.inventory !== null)).toHaveLength(1);
    const codes = (result.errors ?? []).map((error) => [error.path?.[2], error.extensions?.code]);
    expect(codes).toEqual(Array.from({ length: factories.length - 1 }, () => ['inventory', 'QUERY_TOO_EXPENSIVE']));
    expect((result.extensions?.upstream as { requests: number }).requests).toBe(2);
  });

  it('without a cap problem the same operation is answered whole', async () => {
    stack = await startStack({
      config: { maxUpstreamRequests: 100, costAssumptions: { factories: 1, buildings: 1, bankAccounts: 1, rooms: 1 } },
    });
    const result = await stack.executeText(FACTORIES);
    expect(result.errors).toBeUndefined();
  });
});

describe('Retry-After is clamped', () => {
  let stack: Stack;
  afterEach(async () => {
    jest.useRealTimers();
    stack.mockAgent?.assertNoPendingInterceptors();
    await stack.close();
  });

  it('a Retry-After of 99999999999 s cools the key down for RETRY_AFTER_MAX_SECONDS only (default 3600)', async () => {
    useFakeDate(T0);
    stack = await startStack({ mock: true });
    stack
      .upstream()
      .intercept({ path: '/req/factory/list/', method: 'GET' })
      .reply(
        429,
        { statusCode: 429, message: 'ThrottlerException: Too Many Requests' },
        { headers: { 'content-type': 'application/json', 'retry-after': '99999999999' } },
      );
    const first = await stack.executeText('{ factories { id } }');
    expect(first.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED', retryAfterSeconds: 3600 });
    // Within the hour the key stays cooled down (no request) ...
    advanceClock(3599_000);
    const during = await stack.executeText('{ factories { id } }');
    expect(during.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    expect(stack.attempts).toHaveLength(1);
    // ... and after it, it is asked again.
    advanceClock(2_000);
    const after = await stack.executeText('{ factories { id } }');
    expect(after.errors).toBeUndefined();
    expect(stack.attempts).toHaveLength(2);
  });

  it('a setting changes the maximum', async () => {
    stack = await startStack({ mock: true, config: { retryAfterMaxSeconds: 90 } });
    stack
      .upstream()
      .intercept({ path: '/req/factory/list/', method: 'GET' })
      .reply(
        429,
        { statusCode: 429, message: 'x' },
        { headers: { 'content-type': 'application/json', 'retry-after': '86400' } },
      );
    const result = await stack.executeText('{ factories { id } }');
    expect(result.errors?.[0]?.extensions?.retryAfterSeconds).toBe(90);
    expect(loadConfig({}).retryAfterMaxSeconds).toBe(3600);
  });
});

describeWithRedis('the window log in Redis: a request counts from when its answer arrived', () => {
  it('moves a settled request to its answer time, so the window frees a window after the answer, not after the send', async () => {
    const redis = await startTestRedis();
    const state = new RedisSharedState({
      url: redis.url,
      commandTimeoutMs: TEST_REDIS_TIMEOUT_MS,
      prefix: `statev-settle-${process.pid}:`,
      logger: createLogger('silent'),
    });
    try {
      await state.whenUp();
      const sentAt = 1_000_000;
      expect(await state.takeWindowSlot('k1', 1, 60_000, sentAt, 'm1')).toBe(0);
      // Full: the next fits when the send leaves the window.
      expect(await state.takeWindowSlot('k1', 1, 60_000, sentAt + 1000, 'm2')).toBe(59_000);
      // The answer came 5 s after the send (plus the 250 ms margin): the window now ends 60 s after that.
      await state.settleWindowSlot('k1', 'm1', sentAt + 5250, 60_000);
      expect(await state.takeWindowSlot('k1', 1, 60_000, sentAt + 60_001, 'm3')).toBe(5249);
      expect(await state.takeWindowSlot('k1', 1, 60_000, sentAt + 65_250, 'm4')).toBe(0);
    } finally {
      await state.close();
      await redis.stop();
    }
  });
});

describeWithRedis('Retry-After in Redis: cooldowns stored and read are clamped', () => {
  it('stores at most the maximum, and believes no more than it from what another replica stored', async () => {
    const redis = await startTestRedis();
    const state = new RedisSharedState({
      url: redis.url,
      commandTimeoutMs: TEST_REDIS_TIMEOUT_MS,
      prefix: `statev-clamp-${process.pid}:`,
      maxCooldownMs: 3_600_000,
      logger: createLogger('silent'),
    });
    try {
      await state.whenUp();
      const now = Date.now();
      await state.setCooldown('k1', now + 99_999_999_999_000);
      const stored = (await state.keyLimits('k1')).cooldownUntil;
      expect(stored).toBeGreaterThan(now + 3_500_000);
      expect(stored).toBeLessThanOrEqual(Date.now() + 3_600_000);
      const other = new RedisSharedState({
        url: redis.url,
        commandTimeoutMs: TEST_REDIS_TIMEOUT_MS,
        prefix: `statev-clamp-${process.pid}:`,
        maxCooldownMs: 60_000,
        logger: createLogger('silent'),
      });
      try {
        await other.whenUp();
        expect((await other.keyLimits('k1')).cooldownUntil).toBeLessThanOrEqual(Date.now() + 60_000);
      } finally {
        await other.close();
      }
    } finally {
      await state.close();
      await redis.stop();
    }
  });
});
