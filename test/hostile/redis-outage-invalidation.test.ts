/**
 * A write made while Redis is down is invalidated on every replica once Redis is back, and
 * until then the other replica serves the old slot flagged stale, never as fresh. Two
 * gateway replicas, the simulator, and a redis-server of the test's own that it stops and
 * starts again around the write (see test/support/redis.ts): without redis-server on PATH
 * the test is skipped (REQUIRE_REDIS makes it fail).
 */
import { print } from 'graphql';
import { loadConfig } from '../../src/config';
import { startGateway } from '../../src/server';
import type { Gateway } from '../../src/server';
import { DEMO_KEYS, FIXTURE_IDS, startSimulator } from '../../src/simulator';
import type { Simulator } from '../../src/simulator';
import { FactoryOptionsDocument, UpdateFactoryOptionMessageOnlyDocument } from '../generated/graphql';
import { describeWithRedis, startTestRedis, TEST_REDIS_TIMEOUT_MS } from '../support';
import type { Result, TestRedis } from '../support';

let redis: TestRedis | undefined;
let simulator: Simulator | undefined;
const gateways: Gateway[] = [];

async function replica(prefix: string): Promise<Gateway> {
  if (!simulator || !redis) throw new Error('no simulator or Redis');
  const gateway = await startGateway(
    loadConfig(
      {},
      {
        port: 0,
        host: '127.0.0.1',
        upstreamBaseUrl: simulator.baseUrl,
        redisUrl: redis.url,
        redisPrefix: prefix,
        redisTimeoutMs: TEST_REDIS_TIMEOUT_MS,
        responseCacheEnabled: false,
        upstreamRateLimit: null, // the simulator has no limit either
        logLevel: 'silent',
      },
    ),
  );
  gateways.push(gateway);
  return gateway;
}

async function post(
  gateway: Gateway,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Result<Record<string, unknown>>> {
  const response = await fetch(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${DEMO_KEYS.premium.key}`, ...headers },
    body: JSON.stringify(body),
  });
  return (await response.json()) as Result<Record<string, unknown>>;
}

const read = { query: print(FactoryOptionsDocument), variables: { id: FIXTURE_IDS.shop, slot: 1 } };
const titleOf = (result: Result<Record<string, unknown>>): unknown =>
  (result.data?.factory as { option: { title: string } | null }).option?.title;

describeWithRedis(
  'a Redis outage',
  () => {
    beforeAll(async () => {
      redis = await startTestRedis({ own: true });
      // Not a test of the rate limit: the simulator answers every request.
      simulator = await startSimulator({ rateLimit: 'off' });
    });
    afterAll(async () => {
      for (const gateway of gateways) await gateway.stop();
      await simulator?.close();
      await redis?.stop();
    });

    it('a write during a Redis outage reaches the other replica when Redis is back; meanwhile it serves the old slot flagged stale', async () => {
      if (!redis) throw new Error('no Redis');
      const prefix = `statev-outage-${process.pid}:`;
      const a = await replica(prefix);
      const b = await replica(prefix);
      const sharedA = a.shared;
      const sharedB = b.shared;
      if (!sharedA || !sharedB) throw new Error('replicas without Redis');
      await Promise.all([sharedA.whenInSync(), sharedB.whenInSync()]);

      // B caches slot 1 as it is now.
      const before = await post(b, read);
      expect(before.errors).toBeUndefined();
      const oldTitle = titleOf(before);
      expect(typeof oldTitle).toBe('string');

      await redis.stop();
      await sharedB.whenOutOfSync();

      // A writes while Redis is down: the upstream takes it, A forgets its own copy at once.
      const write = await post(
        a,
        {
          query: print(UpdateFactoryOptionMessageOnlyDocument),
          variables: { input: { factoryId: FIXTURE_IDS.shop, slot: 1, title: 'Neu im Ausfall', data: 'x' } },
        },
        { 'x-api-secret': DEMO_KEYS.premium.secret },
      );
      expect(write.errors).toBeUndefined();
      expect(titleOf(await post(a, read))).toBe('Neu im Ausfall');

      // B cannot know yet: it serves its copy, flagged stale, never as fresh.
      const meanwhile = await post(b, read);
      expect(titleOf(meanwhile)).toBe(oldTitle);
      expect(meanwhile.extensions?.stale).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ path: ['factory', 'option'], reason: 'INVALIDATION_PENDING' }),
          expect.objectContaining({ path: ['factory', 'options'], reason: 'INVALIDATION_PENDING' }),
        ]),
      );

      // Redis is back (empty: no snapshot): A re-sends its write, B drops its copy.
      const invalidatedOnB = new Promise<void>((resolve) => {
        const off = b.economy.onInvalidated((_keyId, scope) => {
          // The write's scope: the one slot it wrote, `<factoryId>/<slot>`.
          if (scope !== `${FIXTURE_IDS.shop}/1`) return;
          off();
          resolve();
        });
      });
      await redis.start();
      await Promise.all([sharedA.whenInSync(), sharedB.whenInSync(), invalidatedOnB]);

      const after = await post(b, read);
      expect(titleOf(after)).toBe('Neu im Ausfall');
      expect(after.extensions?.stale).toBeUndefined();
    }, 30_000);
  },
  { own: true },
);
