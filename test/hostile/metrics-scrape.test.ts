/**
 * `GET /metrics` as Prometheus scrapes it, on the default per-key budget (10 requests per
 * 60 s), with Redis and without: after two keys have made one operation each, and
 * repeatedly while hundreds of keys send operations. A scrape reads every key's budget
 * state; it must answer and leave the gateway answering (the hang this guards against is
 * synchronous, so each scrape's statistics are first read under a bound, see
 * `terminates`, that fails the test instead of blocking it).
 */
import { DEFAULT_CONFIG } from '../../src/config';
import { DEMO_KEYS } from '../../src/simulator';
import { describeWithRedis, metricValue, startStack, startTestRedis, terminates } from '../support';
import type { HttpStack, TestRedis } from '../support';

const FACTORIES = '{ factories { id } }';

/** The gateway's settings of the per-key budget: the defaults, not the tests' (which turn it off). */
const defaultBudget = { upstreamRateLimit: DEFAULT_CONFIG.upstreamRateLimit };

/** Reads the economy's statistics under the termination bound, then scrapes over HTTP. */
async function scrape(stack: HttpStack): Promise<{ text: string; windowRequests: number }> {
  const stats = terminates(() => stack.runtime.economy.stats());
  const answer = await stack.get('/metrics');
  expect(answer.status).toBe(200);
  expect(metricValue(answer.text, 'statev_upstream_budget_reduced_keys')).toBe(stats.reducedKeys);
  return {
    text: answer.text,
    windowRequests: metricValue(answer.text, 'statev_upstream_budget_window_requests') ?? Number.NaN,
  };
}

async function query(stack: HttpStack, key: string): Promise<void> {
  const answer = await stack.post({ query: FACTORIES }, { key });
  expect(answer.body.errors).toBeUndefined();
}

/** The scenarios, on a stack made by `start`. */
function scrapeScenarios(start: () => Promise<HttpStack>): void {
  let stack: HttpStack;

  beforeEach(async () => {
    stack = await start();
  });

  afterEach(async () => {
    await stack.close();
  });

  it('answers a scrape after two keys made one operation each, and keeps answering', async () => {
    await query(stack, DEMO_KEYS.premium.key);
    await query(stack, DEMO_KEYS.other.key);

    const first = await scrape(stack);
    expect(first.windowRequests).toBe(stack.attempts.length);
    expect(stack.attempts.length).toBeGreaterThanOrEqual(2);
    expect(metricValue(first.text, 'statev_upstream_budget_queued_requests')).toBe(0);
    expect((await stack.get('/healthz')).status).toBe(200);
    expect((await scrape(stack)).windowRequests).toBe(first.windowRequests);
  });

  it('answers every scrape while 240 keys send operations, and counts every request of the window', async () => {
    const keys = Array.from({ length: 240 }, (_, index) => `sim-key-${index + 1}`);
    let done = false;
    const windows: number[] = [];
    const scraper = (async () => {
      while (!done) windows.push((await scrape(stack)).windowRequests);
    })();
    let next = 0;
    const client = async (): Promise<void> => {
      while (next < keys.length) {
        const key = keys[next] ?? '';
        next += 1;
        await query(stack, key);
      }
    };
    try {
      await Promise.all(Array.from({ length: 16 }, () => client()));
    } finally {
      done = true;
      await scraper;
    }

    expect(windows.length).toBeGreaterThan(1);
    // Every request stays in its key's window for the test's duration: the count only grows.
    for (let i = 1; i < windows.length; i += 1) expect(windows[i]).toBeGreaterThanOrEqual(windows[i - 1] ?? 0);
    const last = await scrape(stack);
    expect(last.windowRequests).toBe(stack.attempts.length);
    expect(stack.attempts.length).toBeGreaterThanOrEqual(keys.length);
    expect(metricValue(last.text, 'statev_upstream_budget_queued_requests')).toBe(0);
  });
}

describe('scrapes on the default budget, without Redis', () => {
  scrapeScenarios(() => startStack({ http: true, config: defaultBudget }));
});

describeWithRedis('scrapes on the default budget, with Redis', () => {
  let redis: TestRedis;

  beforeAll(async () => {
    redis = await startTestRedis();
  });

  afterAll(async () => {
    await redis.stop();
  });

  scrapeScenarios(() => startStack({ http: true, redis, config: defaultBudget }));
});
