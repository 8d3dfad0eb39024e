/**
 * The per-key sliding-window log has two implementations: this process's
 * (`SlidingWindowLog`) and the replicas' shared one in Redis (a Lua script on a sorted
 * set, `RedisSharedState.takeWindowSlot` / `settleWindowSlot`). One table of cases runs
 * against both: the same steps must give the same decisions (0 = taken, else the ms until
 * one more request fits).
 */
import { SlidingWindowLog } from '../../src/economy/budget/sliding-window-log';
import { RedisSharedState } from '../../src/economy';
import { createLogger } from '../../src/observability/logger';
import { describeWithRedis, startTestRedis } from '../support/redis';
import type { TestRedis } from '../support/redis';

const WINDOW_MS = 60_000;
const T = 1_000_000;

/** One step: take a request (and expect a decision), or settle a taken one at its answer's time. */
type Step =
  | { take: string; key?: string; at: number; allowance: number; expect: number }
  | { settle: string; key?: string; sentAt: number; doneAt: number };

/** Both logs as the table drives them; `member` names a request in the shared log. */
interface WindowUnderTest {
  take(key: string, allowance: number, at: number, member: string): Promise<number | null>;
  settle(key: string, member: string, sentAt: number, doneAt: number): Promise<void>;
}

const takes = (count: number, allowance: number, from = T): Step[] =>
  Array.from({ length: count }, (_, i) => ({ take: `m${i}`, at: from + i, allowance, expect: 0 }));

const CASES: Array<[string, Step[]]> = [
  [
    'ten of 10 per 60 s go at once; the eleventh waits until the first has left the window',
    [
      ...takes(10, 10),
      { take: 'm10', at: T + 10, allowance: 10, expect: WINDOW_MS - 10 },
      { take: 'm11', at: T + WINDOW_MS, allowance: 10, expect: 0 },
    ],
  ],
  [
    'a request leaves the window exactly one window after it (and a wait is at least 1 ms)',
    [
      { take: 'a', at: T, allowance: 1, expect: 0 },
      { take: 'b', at: T + WINDOW_MS - 1, allowance: 1, expect: 1 },
      { take: 'c', at: T + WINDOW_MS, allowance: 1, expect: 0 },
    ],
  ],
  [
    'a refused request takes nothing: the next fits when the first leaves',
    [
      { take: 'a', at: T, allowance: 1, expect: 0 },
      { take: 'b', at: T + 10_000, allowance: 1, expect: 50_000 },
      { take: 'c', at: T + 20_000, allowance: 1, expect: 40_000 },
      { take: 'd', at: T + WINDOW_MS, allowance: 1, expect: 0 },
    ],
  ],
  [
    'a smaller allowance (learned after a 429) waits for the request that keeps the window full',
    [
      ...takes(3, 3),
      { take: 'm3', at: T + 30, allowance: 2, expect: WINDOW_MS - 29 },
      { take: 'm4', at: T + 30, allowance: 1, expect: WINDOW_MS - 28 },
    ],
  ],
  [
    'an allowance is floored, and never below one request',
    [
      { take: 'a', at: T, allowance: 0.5, expect: 0 },
      { take: 'b', at: T + 1, allowance: 0.5, expect: WINDOW_MS - 1 },
      { take: 'c', at: T + 1, allowance: 2.9, expect: 0 },
      { take: 'd', at: T + 2, allowance: 2.9, expect: WINDOW_MS - 2 },
    ],
  ],
  [
    'a settled request counts from its answer, not its send',
    [
      { take: 'a', at: T, allowance: 1, expect: 0 },
      { take: 'b', at: T + 1000, allowance: 1, expect: 59_000 },
      { settle: 'a', sentAt: T, doneAt: T + 5250 },
      { take: 'c', at: T + WINDOW_MS + 1, allowance: 1, expect: 5249 },
      { take: 'd', at: T + WINDOW_MS + 5250, allowance: 1, expect: 0 },
    ],
  ],
  [
    'a request settled after its send left the window is counted again at its answer',
    [
      { take: 'a', at: T, allowance: 1, expect: 0 },
      { settle: 'a', sentAt: T, doneAt: T + 61_000 },
      { take: 'b', at: T + 61_500, allowance: 1, expect: 59_500 },
    ],
  ],
  [
    'keys never share a window',
    [
      { take: 'a', key: 'one', at: T, allowance: 1, expect: 0 },
      { take: 'b', key: 'one', at: T + 1, allowance: 1, expect: WINDOW_MS - 1 },
      { take: 'c', key: 'two', at: T + 1, allowance: 1, expect: 0 },
    ],
  ],
];

/** Runs the steps in order, returning the decision of every take. */
async function run(window: WindowUnderTest, steps: Step[], prefix: string): Promise<number[]> {
  const decisions: number[] = [];
  for (const step of steps) {
    const key = `${prefix}${step.key ?? 'k'}`;
    if ('take' in step) decisions.push((await window.take(key, step.allowance, step.at, step.take)) ?? Number.NaN);
    else await window.settle(key, step.settle, step.sentAt, step.doneAt);
  }
  return decisions;
}

const expected = (steps: Step[]): number[] => steps.flatMap((step) => ('take' in step ? [step.expect] : []));

describe('the sliding-window log in process memory', () => {
  it.each(CASES)('%s', async (_name, steps) => {
    const log = new SlidingWindowLog(WINDOW_MS);
    const window: WindowUnderTest = {
      take: async (key, allowance, at) => log.take(key, allowance, at),
      settle: async (key, _member, sentAt, doneAt) => log.settle(key, sentAt, doneAt),
    };
    expect(await run(window, steps, '')).toEqual(expected(steps));
  });
});

describeWithRedis('the sliding-window log in Redis (shared by replicas)', () => {
  let redis: TestRedis;
  let state: RedisSharedState;

  beforeAll(async () => {
    redis = await startTestRedis();
    state = new RedisSharedState({
      url: redis.url,
      commandTimeoutMs: 1000,
      prefix: `statev-window-table-${process.pid}:`,
      logger: createLogger('silent'),
    });
    await state.whenUp();
  });

  afterAll(async () => {
    await state.close();
    await redis.stop();
  });

  it.each(CASES)('%s', async (name, steps) => {
    const window: WindowUnderTest = {
      take: (key, allowance, at, member) => state.takeWindowSlot(key, allowance, WINDOW_MS, at, member),
      settle: (key, member, _sentAt, doneAt) => state.settleWindowSlot(key, member, doneAt, WINDOW_MS),
    };
    // Each case has its own keys (the Redis keys outlive a case by a window).
    expect(await run(window, steps, `${CASES.findIndex(([other]) => other === name)}-`)).toEqual(expected(steps));
  });
});
