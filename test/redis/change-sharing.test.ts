/**
 * The shared state's messages of changed resources, on two replicas' shared states over a
 * real Redis: a replica that stores a new answer names it to the others, once the shared
 * cache holds it; an answer equal to the one it saw before is not named; a replica never
 * applies its own message, nor one whose answer it holds already.
 */
import { ChangeSharingRedisState } from '../../src/economy';
import type { ChangedResource } from '../../src/economy/shared-state/shared-state';
import { createLogger } from '../../src/observability/logger';
import { describeWithRedis, startTestRedis } from '../support/redis';
import type { TestRedis } from '../support/redis';

const LIFETIME_MS = 60_000;

/** A cache entry of `body`. */
function entryOf(body: unknown): { kind: 'body'; body: unknown; storedAt: number; bytes: number } {
  return { kind: 'body', body, storedAt: Date.now(), bytes: 100 };
}

/** The messages of changed resources a replica applies, awaitable one by one. */
function changesOf(state: ChangeSharingRedisState): {
  next(): Promise<{ keyId: string; changed: readonly ChangedResource[] }>;
  readonly count: number;
} {
  const queue: Array<{ keyId: string; changed: readonly ChangedResource[] }> = [];
  const waiting: Array<(value: { keyId: string; changed: readonly ChangedResource[] }) => void> = [];
  let count = 0;
  state.onInvalidation((keyId, _factoryId, changed) => {
    if (!changed) return;
    count += 1;
    const waiter = waiting.shift();
    if (waiter) waiter({ keyId, changed });
    else queue.push({ keyId, changed });
  });
  return {
    next: () => {
      const value = queue.shift();
      return value ? Promise.resolve(value) : new Promise((resolve) => waiting.push(resolve));
    },
    get count() {
      return count;
    },
  };
}

describeWithRedis('messages of changed resources between replicas', () => {
  let redis: TestRedis;
  let a: ChangeSharingRedisState;
  let b: ChangeSharingRedisState;
  /** A replica that never reads the resource: it applies every message naming it. */
  let c: ChangeSharingRedisState;

  beforeAll(async () => {
    redis = await startTestRedis();
    const options = {
      url: redis.url,
      commandTimeoutMs: 1000,
      prefix: `statev-change-sharing-${process.pid}:`,
      logger: createLogger('silent'),
    };
    a = new ChangeSharingRedisState(options);
    b = new ChangeSharingRedisState(options);
    c = new ChangeSharingRedisState(options);
    await Promise.all([a.whenUp(), b.whenUp(), c.whenUp()]);
    await Promise.all([a.whenInSync(), b.whenInSync(), c.whenInSync()]);
  });

  afterAll(async () => {
    await a.close();
    await b.close();
    await c.close();
    await redis.stop();
  });

  it('names a new answer to the other replica once stored, and not an unchanged one', async () => {
    const onA = changesOf(a);
    const onB = changesOf(b);
    const onC = changesOf(c);
    const key = 'key-1|/factory/counter/1';
    // B read the answer first (from the shared cache, after A stored it).
    await a.setEntry(key, entryOf({ items: [{ item: 'Wasser', price: 2 }] }), LIFETIME_MS);
    const firstOnB = await onB.next();
    expect(firstOnB).toEqual({ keyId: 'key-1', changed: [{ key, digest: expect.any(String) as string }] });
    expect((await b.getEntry(key))?.kind).toBe('body');

    // The same answer fetched again by A (a no-cache read that found nothing new): no message.
    await a.getEntry(key);
    await a.setEntry(key, entryOf({ items: [{ item: 'Wasser', price: 2 }] }), LIFETIME_MS);
    // The same answer fetched by B: B saw it already, so it names nothing either.
    await b.setEntry(key, entryOf({ items: [{ item: 'Wasser', price: 2 }] }), LIFETIME_MS);
    // A new price: B gets exactly this message next, and the shared cache holds the answer by then.
    await a.setEntry(key, entryOf({ items: [{ item: 'Wasser', price: 3 }] }), LIFETIME_MS);
    const changed = await onB.next();
    expect(changed.changed.map((each) => each.key)).toEqual([key]);
    expect(changed.changed[0]?.digest).not.toBe(firstOnB.changed[0]?.digest);
    expect(await b.getEntry(key)).toMatchObject({ body: { items: [{ item: 'Wasser', price: 3 }] } });
    expect(onB.count).toBe(2);
    // A never applied its own messages; C, which never read the resource, got exactly the two new answers.
    expect(onA.count).toBe(0);
    await onC.next();
    await onC.next();
    expect(onC.count).toBe(2);
  });
});
