/**
 * An upstream 429 the gateway's own requests do not explain (another client spends the same
 * key): over real HTTP, a client beside the gateway spends the key at the simulator, and the
 * gateway's next page gets a 429 after one request of its own. The operator learns it from
 * one warning line (by the key's id, never the key) and from
 * `statev_upstream_unexplained_429_total`. The budget itself (a fake clock): one report to
 * log per key and window, every one counted; none without a budget to count against.
 */
import { print } from 'graphql';
import { KeyBudget } from '../../src/economy/budget/key-budget';
import type { Unexplained429 } from '../../src/economy';
import { UpstreamError } from '../../src/errors/gateway-error';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { ENDPOINTS } from '../../src/upstream/endpoints';
import { CompanyPageDocument } from '../generated/graphql';
import { LineCollector, metricValue, startStack } from '../support';
import type { HttpStack } from '../support';

const MINUTE = 60_000;

describe('an upstream 429 that another client of the same key caused', () => {
  let stack: HttpStack;
  const logs = new LineCollector();

  beforeAll(async () => {
    stack = await startStack({
      http: true,
      simulator: { rateLimit: { requests: 10, windowSeconds: 60 } },
      config: { upstreamRateLimit: { requests: 10, windowSeconds: 60 }, logLevel: 'warn' },
      logDestination: logs,
    });
  });

  afterAll(() => stack.close());

  it('is logged once as a warning naming the key id and counted in /metrics', async () => {
    // Another client (a script, a second gateway without shared Redis) spends 9 of the key's 10.
    for (let i = 0; i < 9; i++) {
      const answer = await fetch(`${stack.simulator.baseUrl}/factory/list/`, {
        headers: { authorization: `Bearer ${DEMO_KEYS.premium.key}` },
      });
      expect(answer.status).toBe(200);
      await answer.arrayBuffer();
    }
    const page = await stack.post(
      { query: print(CompanyPageDocument), variables: { id: FIXTURE_IDS.shop } },
      { key: DEMO_KEYS.premium.key },
    );
    expect(page.body.errors?.some((error) => error.extensions?.code === 'RATE_LIMITED')).toBe(true);
    expect(stack.attempts.filter((attempt) => attempt.status === 429).length).toBeGreaterThanOrEqual(1);

    const warnings = logs.records().filter((record) => String(record.msg).startsWith('upstream 429 for key'));
    expect(warnings).toHaveLength(1);
    const [warning] = warnings;
    expect(warning).toMatchObject({ level: 40, limit: 10, windowSeconds: 60 });
    // The page's first requests run side by side: some of them sent, none past the key's 10.
    expect(warning?.sentInWindow).toBeGreaterThanOrEqual(1);
    expect(warning?.sentInWindow).toBeLessThan(10);
    expect(String(warning?.msg)).toContain('another client spends the same key');
    expect(warning?.key).toMatch(/^[0-9a-f]{8}$/);
    expect(String(warning?.msg)).toContain(String(warning?.key));
    expect(logs.lines.join('\n')).not.toContain(DEMO_KEYS.premium.key);

    const metrics = (await stack.get('/metrics')).text;
    // Every such 429 counted (the page's requests side by side got several), one line logged.
    expect(metricValue(metrics, 'statev_upstream_unexplained_429_total')).toBe(
      stack.attempts.filter((attempt) => attempt.status === 429).length,
    );
    expect(metrics).not.toContain(DEMO_KEYS.premium.key);
  });
});

describe('KeyBudget reports of unexplained 429s', () => {
  const tooMany = (): UpstreamError =>
    new UpstreamError(
      'RATE_LIMITED',
      ENDPOINTS.factoryList,
      { status: 429, endpoint: '/factory/list/', message: 'ThrottlerException: Too Many Requests' },
      { retryAfterSeconds: 30 },
    );

  function budget(): { budget: KeyBudget; reports: Unexplained429[]; clock: { now: number } } {
    const clock = { now: 1_000_000 };
    const reports: Unexplained429[] = [];
    const keyBudget = new KeyBudget({
      limit: { requests: 10, windowMs: MINUTE },
      concurrency: 6,
      patienceMs: 0,
      now: () => clock.now,
      onUnexplained429: (report) => reports.push(report),
    });
    return { budget: keyBudget, reports, clock };
  }

  /** Sends one request for the key (its slot held while the answer is observed, as the economy does). */
  async function send(keyBudget: KeyBudget, id: string, answer?: UpstreamError): Promise<void> {
    const release = await keyBudget.acquire(id, { priority: 'background' });
    if (answer) keyBudget.observe(id, answer);
    release();
  }

  it('marks the first of a key in each window to be logged, and reports every one', async () => {
    const { budget: keyBudget, reports, clock } = budget();
    await send(keyBudget, 'key-a', tooMany());
    clock.now += 31_000; // after the cooldown, within the window
    await send(keyBudget, 'key-a', tooMany());
    await send(keyBudget, 'key-b', tooMany()); // another key: its own window
    clock.now += MINUTE;
    await send(keyBudget, 'key-a', tooMany());
    expect(reports.map((report) => [report.keyId, report.firstInWindow])).toEqual([
      ['key-a', true],
      ['key-a', false],
      ['key-b', true],
      ['key-a', true],
    ]);
    expect(reports[0]).toEqual({
      keyId: 'key-a',
      sentInWindow: 0,
      limit: 10,
      windowSeconds: 60,
      retryAfterSeconds: 30,
      firstInWindow: true,
    });
    expect(reports[1]?.sentInWindow).toBe(1);
    expect(reports[3]?.sentInWindow).toBe(1); // the first request has left the window
  });

  it('reports nothing without a budget: there is no count of its own to compare', async () => {
    const reports: Unexplained429[] = [];
    const unbounded = new KeyBudget({
      limit: null,
      concurrency: 6,
      patienceMs: 0,
      onUnexplained429: (report) => reports.push(report),
    });
    await send(unbounded, 'key-a', tooMany());
    expect(unbounded.cooldownSeconds('key-a')).toBe(30);
    expect(reports).toEqual([]);
  });
});
