/**
 * Properties of the in-memory sliding-window log (the budget's log when there is no
 * Redis; the Redis log passes the same table of cases, see test/redis/window-log-table),
 * over random request streams: it never admits more than the allowance in any window, and
 * the wait it names is exact (one ms earlier is still refused, at the named time it fits).
 */
import fc from 'fast-check';
import { SlidingWindowLog } from '../../src/economy/budget/sliding-window-log';

const WINDOW_MS = 10_000;

/** A stream of requests: the gaps between them (ms) and the allowance of each. */
const streams = fc.array(
  fc.record({ gapMs: fc.integer({ min: 0, max: 4000 }), allowance: fc.integer({ min: 1, max: 5 }) }),
  { minLength: 1, maxLength: 60 },
);

describe('SlidingWindowLog (property)', () => {
  it('never admits more requests than the allowance in any window', () => {
    fc.assert(
      fc.property(streams, fc.integer({ min: 1, max: 5 }), (steps, allowance) => {
        const log = new SlidingWindowLog(WINDOW_MS);
        const admitted: number[] = [];
        let now = 0;
        for (const { gapMs } of steps) {
          now += gapMs;
          if (log.take('k', allowance, now) === 0) admitted.push(now);
        }
        for (const at of admitted) {
          expect(admitted.filter((other) => other > at - WINDOW_MS && other <= at).length).toBeLessThanOrEqual(
            allowance,
          );
        }
      }),
    );
  });

  it('names the exact wait: one ms before it the request is still refused, at it the request fits', () => {
    fc.assert(
      fc.property(streams, (steps) => {
        const log = new SlidingWindowLog(WINDOW_MS);
        let now = 0;
        for (const { gapMs, allowance } of steps) {
          now += gapMs;
          const waitMs = log.take('k', allowance, now);
          if (waitMs === 0) continue;
          expect(waitMs).toBeGreaterThanOrEqual(1);
          if (waitMs > 1) expect(log.take('k', allowance, now + waitMs - 1)).toBeGreaterThan(0);
          expect(log.take('k', allowance, now + waitMs)).toBe(0);
          now += waitMs;
        }
      }),
    );
  });
});
