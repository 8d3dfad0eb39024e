/**
 * Heavy slices of sliced work (`heavySlice`, used for the checks and the run of a request
 * with a large body): by default at most one a turn, the queue's next jobs in a later turn,
 * where ordinary slices (`nextSlice`) run several in one turn within the budget; a measured
 * one has its synchronous work done before the queue's next job starts.
 */
import { heavySlice, nextSlice, TURN_BUDGET_MS } from '../../src/graph/execution/turn-slices';

/** A counter of event-loop turns (one a check phase), and a way to stop it. */
function countTurns(): { now: () => number; stop: () => void } {
  let turns = 0;
  let stopped = false;
  const tick = (): void => {
    if (stopped) return;
    turns += 1;
    setImmediate(tick);
  };
  setImmediate(tick);
  return {
    now: () => turns,
    stop: () => {
      stopped = true;
    },
  };
}

describe('heavy slices', () => {
  it('runs one heavy slice a turn, in the order they were asked for', async () => {
    const turns = countTurns();
    const seen: Array<{ slice: number; turn: number }> = [];
    await Promise.all([0, 1, 2, 3].map((slice) => heavySlice().then(() => seen.push({ slice, turn: turns.now() }))));
    turns.stop();
    expect(seen.map(({ slice }) => slice)).toEqual([0, 1, 2, 3]);
    const distinct = new Set(seen.map(({ turn }) => turn));
    expect(distinct.size).toBe(4);
  });

  it('runs the work after a heavy slice before the next job of the queue', async () => {
    const order: string[] = [];
    const heavy = heavySlice().then(async () => {
      order.push('heavy');
      // Its work goes on over several microtasks, as a request's run on Apollo does.
      for (let i = 0; i < 10; i += 1) await Promise.resolve();
      order.push('heavy done');
    });
    const next = nextSlice().then(() => order.push('next'));
    await Promise.all([heavy, next]);
    expect(order).toEqual(['heavy', 'heavy done', 'next']);
  });

  describe('measured', () => {
    // The queue's clock (performance.now) faked, the turns real.
    beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate', 'queueMicrotask', 'nextTick'] }));
    afterEach(() => jest.useRealTimers());

    /** The turn each of three measured slices ran in, each working `ms` of the fake clock. */
    async function turnsOf(ms: number): Promise<number[]> {
      const turns = countTurns();
      const seen: number[] = [];
      await Promise.all(
        [0, 1, 2].map(() =>
          heavySlice(true).then(() => {
            seen.push(turns.now());
            jest.advanceTimersByTime(ms);
          }),
        ),
      );
      turns.stop();
      return seen;
    }

    it('goes on in the same turn while the work after them leaves budget', async () => {
      expect(new Set(await turnsOf(0)).size).toBe(1);
    });

    it('leaves the next one for a later turn once the work after one spent the budget', async () => {
      expect(new Set(await turnsOf(TURN_BUDGET_MS + 1)).size).toBe(3);
    });
  });

  it('leaves ordinary slices several to a turn', async () => {
    const turns = countTurns();
    const seen: number[] = [];
    await Promise.all([0, 1, 2].map(() => nextSlice().then(() => seen.push(turns.now()))));
    turns.stop();
    expect(new Set(seen).size).toBe(1);
  });
});
