/**
 * Writes go first across replicas: the shared window log in Redis keeps the slots a full
 * window frees for the writes that wait on any replica. A write that must wait notes
 * itself; every other request of the key sees the allowance less one per waiting write,
 * so background work on another replica cannot take the freed slot first. Driven on the
 * shared state itself, with given times, as a replica's budget calls it.
 */
import { RedisSharedState } from '../../src/economy';
import { createLogger } from '../../src/observability/logger';
import { describeWithRedis, startTestRedis } from '../support/redis';
import type { TestRedis } from '../support/redis';

const WINDOW_MS = 60_000;
const ALLOWANCE = 2;

describeWithRedis('write intents in the shared window log', () => {
  let redis: TestRedis;
  let a: RedisSharedState;
  let b: RedisSharedState;

  beforeAll(async () => {
    redis = await startTestRedis();
    const options = {
      url: redis.url,
      commandTimeoutMs: 1000,
      prefix: `statev-write-intents-${process.pid}:`,
      logger: createLogger('silent'),
    };
    a = new RedisSharedState(options);
    b = new RedisSharedState(options);
    await Promise.all([a.whenUp(), b.whenUp()]);
  });

  afterAll(async () => {
    await a.close();
    await b.close();
    await redis.stop();
  });

  it('keeps the first freed slot for a write waiting on another replica', async () => {
    const key = 'k-first';
    // Replica A's page view fills the window at t = 0.
    expect(await a.takeWindowSlot(key, ALLOWANCE, WINDOW_MS, 0, 'view-1')).toBe(0);
    expect(await a.takeWindowSlot(key, ALLOWANCE, WINDOW_MS, 1, 'view-2')).toBe(0);
    // Replica B's write must wait until the first of them leaves the window.
    expect(await b.takeWindowSlot(key, ALLOWANCE, WINDOW_MS, 10, 'write-try-1', 'write-1')).toBe(WINDOW_MS - 10);
    // Both have left: A's background fill gets one slot, not both.
    const freed = WINDOW_MS + 2;
    expect(await a.takeWindowSlot(key, ALLOWANCE, WINDOW_MS, freed, 'fill-1')).toBe(0);
    expect(await a.takeWindowSlot(key, ALLOWANCE, WINDOW_MS, freed + 1, 'fill-2')).toBeGreaterThan(0);
    // The write, trying again, takes the slot kept for it; then its note is gone.
    expect(await b.takeWindowSlot(key, ALLOWANCE, WINDOW_MS, freed + 5, 'write-try-2', 'write-1')).toBe(0);
    expect(await a.takeWindowSlot(key, ALLOWANCE, WINDOW_MS, 2 * WINDOW_MS + 3, 'fill-3')).toBe(0);
  });

  it("never gives a waiting write's slot away, and lets it go when the write is given up", async () => {
    const key = 'k-given-up';
    expect(await a.takeWindowSlot(key, ALLOWANCE, WINDOW_MS, 0, 'view-1')).toBe(0);
    expect(await a.takeWindowSlot(key, ALLOWANCE, WINDOW_MS, 30_000, 'view-2')).toBe(0);
    expect(await b.takeWindowSlot(key, ALLOWANCE, WINDOW_MS, 10, 'write-try-1', 'write-1')).toBe(WINDOW_MS - 10);
    // The first view has left the window: with the write waiting, nothing else may take its slot.
    expect(await a.takeWindowSlot(key, ALLOWANCE, WINDOW_MS, WINDOW_MS + 1, 'fill-1')).toBeGreaterThan(0);
    // The write never tries again: its note expires (the wait it was told plus 5 s), and the slot is free for others.
    expect(await a.takeWindowSlot(key, ALLOWANCE, WINDOW_MS, WINDOW_MS + 5001, 'fill-2')).toBe(0);
  });

  it('changes nothing for requests of a key with no waiting write', async () => {
    const key = 'k-plain';
    expect(await a.takeWindowSlot(key, ALLOWANCE, WINDOW_MS, 0, 'view-1')).toBe(0);
    expect(await b.takeWindowSlot(key, ALLOWANCE, WINDOW_MS, 0, 'view-2')).toBe(0);
    expect(await a.takeWindowSlot(key, ALLOWANCE, WINDOW_MS, 1000, 'view-3')).toBe(WINDOW_MS - 1000);
  });
});
