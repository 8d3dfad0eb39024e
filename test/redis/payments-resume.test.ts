/**
 * Open payment requests after a restart of two replicas sharing Redis (store, vault and
 * cache): both hold the character's key in the vault, both resume watching the account
 * at start without any call, and the account is polled once (one upstream request for
 * both first polls, then one per interval from the replica that leads the poller).
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { keyId } from '../../src/economy';
import { DEMO_KEYS, FIXTURE_IDS, startSimulator } from '../../src/simulator';
import type { Simulator } from '../../src/simulator';
import { MasterKeys, Vault } from '../../src/vault';
import { RedisVaultStorage } from '../../src/vault/redis-storage';
import { describeWithRedis, ManualClock, startStack, startTestRedis, turn, UNLIMITED_SIMULATOR } from '../support';
import type { HttpStack, TestRedis } from '../support';

const TRANSACTIONS = 'GET /factory/transactions/{bankId}/{limit}/{skip}';
const CREATE = `mutation($i: CreatePaymentRequestInput!) { createPaymentRequest(input: $i) { reference } }`;

describeWithRedis('open payment requests after two replicas restart', () => {
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

  it('resumes on both replicas at start, polls the account once, and the transfer booked meanwhile pays the request', async () => {
    const prefix = `payments-resume-${process.pid}-${Date.now()}:`;
    const masterKey = randomBytes(32).toString('base64');
    const storage = new RedisVaultStorage(redis.url, prefix);
    try {
      await new Vault(storage, MasterKeys.parse(masterKey)).addKey('shop-owner', DEMO_KEYS.premium.key, null);
    } finally {
      await storage.close();
    }
    const clock = new ManualClock();
    const config = { redisPrefix: prefix, vaultMasterKey: masterKey, vaultFile: '/nonexistent/never-read.json' };
    const start = async (): Promise<HttpStack> => {
      const replica = await startStack({
        http: true,
        redis,
        simulator,
        config,
        gateway: { now: clock.now, pollClock: clock },
      });
      replicas.push(replica);
      return replica;
    };

    const first = await start();
    const joined = once(first.gateway.subscriptions.hub.activity, 'joined');
    const created = await first.post({
      query: CREATE,
      variables: { i: { factoryId: FIXTURE_IDS.shop, bankAccountId: FIXTURE_IDS.shopMainAccount, amount: 18 } },
    });
    const reference = (created.body as { data: { createPaymentRequest: { reference: string } } }).data
      .createPaymentRequest.reference;
    await joined;
    // A second request that stays open keeps the account watched after the first is paid.
    await first.post({
      query: CREATE,
      variables: { i: { factoryId: FIXTURE_IDS.shop, bankAccountId: FIXTURE_IDS.shopMainAccount, amount: 1_000_000 } },
    });
    for (const replica of replicas.splice(0)) await replica.close();

    // While no gateway runs: the transfer arrives, and the cached page of the account grows old.
    simulator.change({
      kind: 'transaction',
      bankAccountId: FIXTURE_IDS.shopMainAccount,
      amount: 18,
      reference: `Order ${reference}`,
      otherVban: '4799001',
    });
    clock.advance(120_000);
    simulator.resetRequests();
    const [a, b] = [await start(), await start()];
    if (!a || !b) throw new Error('two replicas');
    const owner = keyId(DEMO_KEYS.premium.key, a.config.keyHashSecret);
    for (let i = 0; i < 20_000 && (await a.gateway.payments.store.get(owner, reference))?.status !== 'PAID'; i += 1)
      await turn();
    expect(await b.gateway.payments.store.get(owner, reference)).toMatchObject({
      status: 'PAID',
      transfers: [{ amount: 18 }],
    });
    // Both still watch the account for the open request (neither was called): resumeHeld
    // returns the watch each started at boot, once its first poll answered; one leads its poller.
    await Promise.all([a.gateway.payments.resumeHeld(), b.gateway.payments.resumeHeld()]);
    expect([a.gateway.subscriptions.hub.size, b.gateway.subscriptions.hub.size]).toEqual([1, 1]);
    expect(simulator.countRequests({ route: TRANSACTIONS })).toBe(1);
    expect(a.gateway.subscriptions.hub.leading() + b.gateway.subscriptions.hub.leading()).toBe(1);
    // The next interval: one poll, by the leader.
    clock.advance(60_000);
    for (let i = 0; i < 20_000 && simulator.countRequests({ route: TRANSACTIONS }) < 2; i += 1) await turn();
    await a.gateway.subscriptions.hub.settled();
    await b.gateway.subscriptions.hub.settled();
    expect(simulator.countRequests({ route: TRANSACTIONS })).toBe(2);
  });
});
