/**
 * A token revoked on one vault ends its open streams on every replica: two gateways share a
 * Redis vault, each holds a live query of the same access token (the first over graphql-ws,
 * the second over graphql-sse), and the
 * token is revoked through the vault (as `statev-gateway tokens revoke` does). Each replica
 * reloads on Redis' change message and ends its stream with a last `UNAUTHENTICATED` event
 * naming `revoked` (src/subscriptions/token-streams.ts). Waits on the events only.
 */
import { randomBytes } from 'node:crypto';
import { createClient as createSseClient } from 'graphql-sse';
import { DEMO_KEYS, FIXTURE_IDS, startSimulator } from '../../src/simulator';
import type { Simulator } from '../../src/simulator';
import { MasterKeys, TOKEN_REFUSALS, Vault } from '../../src/vault';
import { RedisVaultStorage } from '../../src/vault/redis-storage';
import { describeWithRedis, ManualClock, startStack, startTestRedis, UNLIMITED_SIMULATOR } from '../support';
import type { HttpStack, TestRedis } from '../support';
import { collect, subscribeWs, wsClient } from '../subscriptions/clients';

const LIVE = 'query Name($id: ID!) @live { factory(id: $id) { name } }';

describeWithRedis('streams of a revoked token on two replicas sharing a Redis vault', () => {
  let redis: TestRedis;
  let simulator: Simulator;
  const replicas: HttpStack[] = [];

  beforeAll(async () => {
    redis = await startTestRedis();
    simulator = await startSimulator(UNLIMITED_SIMULATOR);
  });
  afterEach(async () => {
    for (const replica of replicas.splice(0)) await replica.close();
  });
  afterAll(async () => {
    await simulator?.close();
    await redis?.stop();
  });

  it('ends the live query on each replica (graphql-ws on one, graphql-sse on the other) with a last error naming the revocation', async () => {
    const prefix = `token-streams-${process.pid}-${Date.now()}:`;
    const masterKey = randomBytes(32).toString('base64');
    const storage = new RedisVaultStorage(redis.url, prefix);
    const vault = new Vault(storage, MasterKeys.parse(masterKey));
    try {
      await vault.addKey('max', DEMO_KEYS.premium.key, null);
      const { id, token } = await vault.createToken({
        characters: ['max'],
        grants: ['read', 'subscribe'],
        expiresInMs: 3_600_000,
      });
      const clock = new ManualClock();
      const config = { redisPrefix: prefix, vaultMasterKey: masterKey, vaultFile: '/nonexistent/never-read.json' };
      for (let i = 0; i < 2; i += 1)
        replicas.push(
          await startStack({ http: true, redis, simulator, config, gateway: { now: clock.now, pollClock: clock } }),
        );
      const [first, second] = replicas as [HttpStack, HttpStack];
      const ws = wsClient(first.endpoint, token);
      const sse = createSseClient({
        url: `${second.gateway.url}/graphql/stream`,
        headers: { authorization: `Bearer ${token}` },
        retryAttempts: 0,
      });
      const streams = [
        subscribeWs(ws, LIVE, { id: FIXTURE_IDS.shop }),
        collect((sink) => sse.subscribe({ query: LIVE, variables: { id: FIXTURE_IDS.shop } }, sink)),
      ];
      for (const stream of streams) expect((await stream.next()).errors).toBeUndefined();

      await vault.revokeToken(id);
      for (const stream of streams) {
        const last = await stream.next();
        expect(last.errors?.[0]).toMatchObject({
          message: TOKEN_REFUSALS.revoked,
          extensions: { code: 'UNAUTHENTICATED', reason: 'revoked' },
        });
        expect(await stream.ended).toBe('complete');
      }
      await ws.dispose();
      sse.dispose();
    } finally {
      await storage.close();
    }
  });
});
