/**
 * `--budget-share n` across replicas: with `REDIS_URL` set, a token's share of its key's
 * budget is counted once for every replica (the shared sliding-window log in Redis), so a
 * token spread over two replicas still starts at most n upstream requests per window.
 */
import { randomBytes } from 'node:crypto';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { MasterKeys, Vault } from '../../src/vault';
import { RedisVaultStorage } from '../../src/vault/redis-storage';
import { describeWithRedis, startStack, startTestRedis } from '../support';
import type { HttpStack, TestRedis } from '../support';

interface Answer {
  data?: Record<string, unknown> | null;
  errors?: Array<{ message: string; path?: Array<string | number>; extensions?: Record<string, unknown> }>;
}

describeWithRedis('--budget-share across replicas sharing Redis', () => {
  let redis: TestRedis;
  const prefix = `token-share-${process.pid}:`;
  const masterKey = randomBytes(32).toString('base64');

  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('counts one share for every replica, and leaves the key itself uncapped', async () => {
    const storage = new RedisVaultStorage(redis.url, prefix);
    const vault = new Vault(storage, MasterKeys.parse(masterKey));
    const replicas: HttpStack[] = [];
    try {
      await vault.addKey('shop', DEMO_KEYS.premium.key, null);
      const { token } = await vault.createToken({
        characters: ['shop'],
        grants: ['read'],
        expiresInMs: 3_600_000,
        budgetShare: 2,
      });
      for (let index = 0; index < 2; index += 1) {
        replicas.push(
          await startStack({
            http: true,
            redis,
            config: {
              redisPrefix: prefix,
              vaultMasterKey: masterKey,
              vaultFile: '/nonexistent/never-read.json',
              upstreamRateLimit: null,
            },
          }),
        );
      }
      const [a, b] = replicas as [HttpStack, HttpStack];
      const post = async (stack: HttpStack, query: string): Promise<Answer> =>
        (await stack.post({ query }, { headers: { authorization: `Bearer ${token}` } })).body as Answer;
      const upstream = (): number => a.simulator.countRequests() + b.simulator.countRequests();

      // One request of the share on each replica: both within the share of 2.
      expect((await post(a, '{ factories { id } }')).errors).toBeUndefined();
      expect((await post(b, '{ buildings { id } }')).errors).toBeUndefined();
      expect(upstream()).toBe(2);

      // Answers from each replica's cache cost nothing of the share.
      expect((await post(a, '{ factories { id } }')).errors).toBeUndefined();
      expect((await post(b, '{ buildings { id } }')).errors).toBeUndefined();

      // A third request, on either replica, is over the share counted in Redis (each replica alone has used only 1).
      const capped = [
        await post(a, `{ factory(id: "${FIXTURE_IDS.shop}") { id counter { __typename } } }`),
        await post(b, `{ building(id: "${FIXTURE_IDS.hafen}") { id details { __typename } } }`),
      ];
      expect(capped.map((answer) => answer.errors?.[0]?.path)).toEqual([
        ['factory', 'counter'],
        ['building', 'details'],
      ]);
      for (const answer of capped)
        expect(answer.errors?.[0]?.extensions).toMatchObject({
          code: 'RATE_LIMITED',
          budgetShare: 2,
          retryAfterSeconds: expect.any(Number),
        });
      expect(upstream()).toBe(2);

      // The key's own callers are not capped by its token's share.
      const key = await b.post(
        { query: `{ factory(id: "${FIXTURE_IDS.shop}") { counter { __typename } } }` },
        { key: DEMO_KEYS.premium.key },
      );
      expect(key.body.errors).toBeUndefined();
      expect(upstream()).toBe(3);
    } finally {
      for (const replica of replicas) await replica.close();
      await storage.close();
    }
  });
});
