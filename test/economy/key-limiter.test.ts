/**
 * Unit tests of the per-key traffic rules (src/economy/rate-limit/key-limiter.ts): the 429
 * cooldown, the token-bucket budget with its queue timeout, and the concurrency limit.
 * jest's fake timers drive both the clock (`Date.now`) and the limiter's waits.
 */
import { KeyLimiter, LimitExceeded } from '../../src/economy/rate-limit/key-limiter';
import type { KeyLimiterOptions } from '../../src/economy/rate-limit/key-limiter';

const A = 'key-a';
const B = 'key-b';

function limiter(options: Partial<KeyLimiterOptions> = {}): KeyLimiter {
  return new KeyLimiter({ ratePerMinute: 0, burst: 1, concurrency: 6, queueTimeoutMs: 2000, now: () => Date.now(), ...options });
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

  describe('token-bucket budget', () => {
    it('lets a burst through at once, then makes the next request wait for a token', async () => {
      const keys = limiter({ ratePerMinute: 60, burst: 2 }); // one token per second
      (await keys.acquire(A))();
      (await keys.acquire(A))();

      const third = track(keys.acquire(A));
      await settle();
      jest.advanceTimersByTime(999);
      await settle();
      expect(third.settled()).toBe(false);

      jest.advanceTimersByTime(1);
      (await third.value)();
      expect(third.settled()).toBe(true);
    });

    it('queues waiting requests behind each other, one token interval apart', async () => {
      const keys = limiter({ ratePerMinute: 60, burst: 1, queueTimeoutMs: 5000 });
      (await keys.acquire(A))();
      const second = track(keys.acquire(A));
      const third = track(keys.acquire(A));
      await settle();

      jest.advanceTimersByTime(1000);
      (await second.value)();
      await settle();
      expect(third.settled()).toBe(false);

      jest.advanceTimersByTime(1000);
      (await third.value)();
    });

    it('fails at once with RATE_LIMITED-style LimitExceeded when the wait would exceed the queue timeout', async () => {
      const keys = limiter({ ratePerMinute: 60, burst: 1, queueTimeoutMs: 999 });
      (await keys.acquire(A))();
      const refused = await limitError(keys.acquire(A));
      expect(refused.reason).toBe('budget');
      expect(refused.retryAfterSeconds).toBe(1);

      // The refused request gave its reservation back: after one second there is a token.
      jest.advanceTimersByTime(1000);
      (await keys.acquire(A))();
    });

    it('keeps one budget per key', async () => {
      const keys = limiter({ ratePerMinute: 1, burst: 1, queueTimeoutMs: 0 });
      (await keys.acquire(A))();
      await limitError(keys.acquire(A));
      (await keys.acquire(B))();
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
      const keys = limiter({ concurrency: 1, queueTimeoutMs: 500 });
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
