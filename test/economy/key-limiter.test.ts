/**
 * Unit tests of the per-key traffic rules (src/economy/budget/key-budget.ts): the 429
 * cooldown, the sliding-window-log budget with its queue timeout, rate learning after a
 * 429, priorities, the queue bound, and the concurrency limit.
 * jest's fake timers drive both the clock (`Date.now`) and the limiter's waits.
 */
import { KeyBudget as KeyLimiter } from '../../src/economy/budget/key-budget';
import type { KeyBudgetOptions as KeyLimiterOptions } from '../../src/economy/budget/key-budget';
import { LimitExceeded } from '../../src/economy/limit-exceeded';
import { QueueTicket } from '../../src/economy/queue/queue-ticket';

const A = 'key-a';
const B = 'key-b';

function limiter(options: Partial<KeyLimiterOptions> = {}): KeyLimiter {
  return new KeyLimiter({
    limit: null,
    concurrency: 6,
    patienceMs: 2000,
    edgeMarginMs: 0,
    now: () => Date.now(),
    ...options,
  });
}

/** Lets pending promise callbacks run (fake timers leave microtasks real). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await Promise.resolve();
}

/** The LimitExceeded a promise rejects with (fails when it resolves or rejects otherwise). */
async function limitError(promise: Promise<unknown>): Promise<LimitExceeded> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof LimitExceeded) return error;
    throw error;
  }
  throw new Error('expected LimitExceeded, but the promise resolved');
}

/** Tracks whether a promise has settled, without awaiting it. */
function track<T>(promise: Promise<T>): { settled: () => boolean; value: Promise<T> } {
  let settled = false;
  const value = promise.finally(() => {
    settled = true;
  });
  return { settled: () => settled, value };
}

describe('KeyLimiter', () => {
  beforeEach(() => {
    jest.useFakeTimers({ now: Date.UTC(2025, 0, 1) });
  });

  afterEach(() => {
    jest.useRealTimers();
  });

  describe('429 cooldown', () => {
    it('refuses the key until Retry-After has passed, counting the seconds down, then lets it through', async () => {
      const keys = limiter();
      keys.coolDown(A, 30);

      const first = await limitError(keys.acquire(A));
      expect(first.reason).toBe('cooldown');
      expect(first.retryAfterSeconds).toBe(30);
      expect(keys.cooldownSeconds(A)).toBe(30);

      jest.advanceTimersByTime(10_000);
      expect((await limitError(keys.acquire(A))).retryAfterSeconds).toBe(20);

      jest.advanceTimersByTime(19_999);
      expect((await limitError(keys.acquire(A))).retryAfterSeconds).toBe(1);

      jest.advanceTimersByTime(1);
      expect(keys.cooldownSeconds(A)).toBe(0);
      const release = await keys.acquire(A);
      release();
    });

    it('never shortens a running cooldown and leaves other keys alone', async () => {
      const keys = limiter();
      keys.coolDown(A, 60);
      keys.coolDown(A, 5);
      expect(keys.cooldownSeconds(A)).toBe(60);
      const release = await keys.acquire(B);
      release();
      expect(keys.cooldownSeconds(B)).toBe(0);
    });
  });

  describe('sliding-window-log budget', () => {
    const MINUTE = 60_000;

    it('10 per 60 s: ten go at once, the eleventh waits until the first has left the window (a bucket would send it after 6 s)', async () => {
      const keys = limiter({ limit: { requests: 10, windowMs: MINUTE }, patienceMs: 2 * MINUTE });
      for (let i = 0; i < 10; i += 1) (await keys.acquire(A))();
      const eleventh = track(keys.acquire(A));
      await settle();
      jest.advanceTimersByTime(6_000);
      await settle();
      expect(eleventh.settled()).toBe(false);
      jest.advanceTimersByTime(MINUTE - 6_000 - 1);
      await settle();
      expect(eleventh.settled()).toBe(false);
      jest.advanceTimersByTime(1);
      (await eleventh.value)();
    });

    it("starts a request's window when its answer arrived, plus the edge margin, not when it was sent (the upstream counts arrivals)", async () => {
      const keys = limiter({ limit: { requests: 1, windowMs: MINUTE }, patienceMs: 3 * MINUTE, edgeMarginMs: 250 });
      const release = await keys.acquire(A);
      // The answer takes 5 s (a new connection, a slow upstream): the upstream counted it somewhere in there.
      jest.advanceTimersByTime(5_000);
      release();
      const next = track(keys.acquire(A));
      await settle();
      jest.advanceTimersByTime(MINUTE + 250 - 1);
      await settle();
      expect(next.settled()).toBe(false); // a send-time log would have sent it 5 s ago, inside the upstream's window
      jest.advanceTimersByTime(1);
      await settle();
      expect(next.settled()).toBe(true);
      (await next.value)();
    });

    it('lets a caller raise a queued request to its priority (a view joining a flight of background fill)', async () => {
      const keys = limiter({ limit: { requests: 1, windowMs: 10_000 }, patienceMs: MINUTE });
      (await keys.acquire(A))();
      const early = track(keys.acquire(A, { priority: 'background' }));
      await settle();
      const ticket = new QueueTicket('background');
      const raised = track(keys.acquire(A, { ticket }));
      await settle();
      expect(ticket.state).toBe('queued');
      expect(ticket.expectedAt).toBe(Date.now() + 10_000); // when the window has room
      ticket.raise('operation');
      await settle();
      expect(keys.budgetStats().queued).toEqual({ write: 0, operation: 1, missed: 0, stale: 0, background: 1 });
      jest.advanceTimersByTime(10_000);
      await settle();
      expect(raised.settled()).toBe(true);
      expect(ticket.state).toBe('sent');
      expect(early.settled()).toBe(false);
      (await raised.value)();
      jest.advanceTimersByTime(10_000);
      (await early.value)();
    });

    it('paces a steady stream: never more than N requests in any window', async () => {
      const keys = limiter({ limit: { requests: 3, windowMs: 10_000 }, patienceMs: MINUTE });
      const sent: number[] = [];
      const start = Date.now();
      for (let i = 0; i < 10; i += 1) {
        const pending = track(keys.acquire(A));
        while (!pending.settled()) {
          await settle();
          if (!pending.settled()) jest.advanceTimersByTime(100);
        }
        (await pending.value)();
        sent.push(Date.now() - start);
      }
      for (const at of sent)
        expect(sent.filter((other) => other > at - 10_000 && other <= at).length).toBeLessThanOrEqual(3);
      expect(sent.slice(0, 3)).toEqual([0, 0, 0]);
      expect(sent[3]).toBe(10_000);
    });

    it('fails at once with LimitExceeded (the seconds until the window has room) when the wait would exceed the queue timeout', async () => {
      const keys = limiter({ limit: { requests: 1, windowMs: 30_000 }, patienceMs: 999 });
      (await keys.acquire(A))();
      jest.advanceTimersByTime(10_000);
      const refused = await limitError(keys.acquire(A));
      expect(refused.reason).toBe('budget');
      expect(refused.retryAfterSeconds).toBe(20);
      // The refused request took nothing: when the first has left the window there is room.
      jest.advanceTimersByTime(20_000);
      (await keys.acquire(A))();
    });

    it('keeps one budget per key', async () => {
      const keys = limiter({ limit: { requests: 1, windowMs: MINUTE }, patienceMs: 0 });
      (await keys.acquire(A))();
      await limitError(keys.acquire(A));
      (await keys.acquire(B))();
    });

    it('learns from a 429: the allowance halves, then grows back by one request per window', async () => {
      const keys = limiter({ limit: { requests: 10, windowMs: MINUTE }, patienceMs: 0 });
      expect(keys.allowance(A)).toBe(10);
      keys.coolDown(A, 5);
      expect(keys.allowance(A)).toBe(5);
      keys.coolDown(A, 5);
      expect(keys.allowance(A)).toBe(2);
      jest.advanceTimersByTime(5_000);
      (await keys.acquire(A))();
      (await keys.acquire(A))();
      await limitError(keys.acquire(A)); // only 2 in this window now
      expect(keys.budgetStats().reducedKeys).toBe(1);
      jest.advanceTimersByTime(MINUTE);
      expect(keys.allowance(A)).toBe(3);
      jest.advanceTimersByTime(7 * MINUTE);
      expect(keys.allowance(A)).toBe(10);
      expect(keys.budgetStats().reducedKeys).toBe(0);
    });

    it('serves operations before background work while the budget is short', async () => {
      const keys = limiter({ limit: { requests: 1, windowMs: 10_000 }, patienceMs: MINUTE });
      (await keys.acquire(A))();
      const background = track(keys.acquire(A, { priority: 'background' }));
      await settle();
      const operation = track(keys.acquire(A));
      await settle();
      expect(keys.budgetStats().queued).toEqual({ write: 0, operation: 1, missed: 0, stale: 0, background: 1 });
      jest.advanceTimersByTime(10_000);
      await settle();
      expect(operation.settled()).toBe(true);
      expect(background.settled()).toBe(false);
      (await operation.value)();
      jest.advanceTimersByTime(10_000);
      await settle();
      (await background.value)();
    });

    it('keeps background work behind missed requests that wait in background fill (not yet in its queue)', async () => {
      let missedInFill = 1;
      const keys = limiter({
        limit: { requests: 1, windowMs: 10_000 },
        patienceMs: MINUTE,
        missedElsewhere: () => missedInFill,
      });
      (await keys.acquire(A))();
      const background = track(keys.acquire(A, { priority: 'background' }));
      await settle();
      jest.advanceTimersByTime(10_000);
      await settle();
      // The window has room, but the fill planned the missed request on it: the refresh waits.
      expect(background.settled()).toBe(false);
      missedInFill = 0;
      (await keys.acquire(A, { priority: 'missed' }))();
      jest.advanceTimersByTime(10_000);
      await settle();
      expect(background.settled()).toBe(true);
      (await background.value)();
    });

    it('bounds the queue over all keys and counts what it refuses', async () => {
      const dropped: string[] = [];
      const keys = limiter({
        limit: { requests: 1, windowMs: 10_000 },
        patienceMs: MINUTE,
        maxQueuedTotal: 2,
        onDropped: (priority) => dropped.push(priority),
      });
      (await keys.acquire(A))();
      (await keys.acquire(B))();
      const waiting = [
        track(keys.acquire(A, { priority: 'background' })),
        track(keys.acquire(B, { priority: 'missed' })),
      ];
      await settle();
      const refused = await limitError(
        keys.acquire('key-c', { priority: 'background' }).then(() => keys.acquire('key-c', { priority: 'background' })),
      );
      expect(refused.reason).toBe('budget');
      expect(dropped).toEqual(['background']);
      jest.advanceTimersByTime(10_000);
      for (const one of waiting) (await one.value)();
    });

    it('bounds the queue per key and counts what it refuses', async () => {
      const dropped: string[] = [];
      const keys = limiter({
        limit: { requests: 1, windowMs: 10_000 },
        patienceMs: MINUTE,
        maxQueuedPerKey: 1,
        onDropped: (priority) => dropped.push(priority),
      });
      (await keys.acquire(A))();
      const waiting = track(keys.acquire(A, { priority: 'background' }));
      await settle();
      const refused = await limitError(keys.acquire(A, { priority: 'background' }));
      expect(refused.reason).toBe('budget');
      expect(dropped).toEqual(['background']);
      jest.advanceTimersByTime(10_000);
      (await waiting.value)();
    });
  });

  describe('concurrency per key', () => {
    it('admits at most N requests of a key at once; the next one starts when one finishes', async () => {
      const keys = limiter({ concurrency: 2 });
      const first = await keys.acquire(A);
      const second = await keys.acquire(A);
      const third = track(keys.acquire(A));
      const otherKey = track(keys.acquire(B));
      await settle();
      expect(third.settled()).toBe(false);
      expect(otherKey.settled()).toBe(true);

      first();
      first(); // releasing twice frees one slot only
      const releaseThird = await third.value;
      const fourth = track(keys.acquire(A));
      await settle();
      expect(fourth.settled()).toBe(false);

      second();
      (await fourth.value)();
      releaseThird();
      (await otherKey.value)();
    });

    it('fails a request that waits for a slot longer than the queue timeout', async () => {
      const keys = limiter({ concurrency: 1, patienceMs: 500 });
      const held = await keys.acquire(A);
      const waiting = limitError(keys.acquire(A));
      jest.advanceTimersByTime(500);
      const refused = await waiting;
      expect(refused.reason).toBe('budget');
      held();
      // The timed-out waiter left the queue: the slot goes to the next request.
      (await keys.acquire(A))();
    });
  });
});
