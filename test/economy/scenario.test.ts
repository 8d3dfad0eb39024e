/**
 * The upstream economy's end-to-end promise, over real HTTP: the upstream allows the key 10
 * requests per minute; 300 views of the company page within one (simulated) minute all
 * get complete data, the upstream sees at most 10 requests, and no 429 reaches a client.
 *
 * The clock is a faked `Date` shared by the gateway and the simulator's rate-limit
 * window (`fakeDate` of test/support/stack.ts), moved 200 ms between views: 300 views span 60 s.
 */
import { print } from 'graphql';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { CompanyPageDocument } from '../generated/graphql';
import { advanceClock, nullPaths, startStack, T0, upstreamOf, useFakeDate } from '../support';
import type { HttpAnswer, Stack } from '../support';

// 300 operations one after another: seconds on a loaded 2-core machine, more than jest's default allows.
jest.setTimeout(120_000);

const VIEWS = 300;
const LIMIT = { requests: 10, windowSeconds: 60 };
const page = { query: print(CompanyPageDocument), variables: { id: FIXTURE_IDS.shop } };

/** Checks one page view: HTTP 200, no errors, every field present and not null. */
function expectComplete(answer: HttpAnswer, view: number): void {
  expect({ view, status: answer.status, errors: answer.body.errors }).toEqual({ view, status: 200, errors: undefined });
  expect({ view, nulls: nullPaths(answer.body.data) }).toEqual({ view, nulls: [] });
  expect(answer.text).not.toContain('RATE_LIMITED');
}

/** Sends requests straight to the simulator with the key until it answers 429; returns how many got through. */
async function remainingInWindow(stack: Stack): Promise<number> {
  for (let sent = 0; sent <= LIMIT.requests; sent += 1) {
    const response = await fetch(`${stack.simulator.baseUrl}/factory/list/`, {
      headers: { authorization: `Bearer ${DEMO_KEYS.premium.key}` },
    });
    await response.arrayBuffer();
    if (response.status === 429) return sent;
  }
  throw new Error('the simulator never answered 429: its rate limit is not active');
}

describe.each([
  ['the upstream economy alone (whole-response cache off)', false],
  ['the default configuration (whole-response cache on)', true],
])(
  '300 company-page views in one minute against an upstream limit of 10 requests per minute, with %s',
  (_name, responseCacheEnabled) => {
    let stack: Stack;

    beforeEach(async () => {
      useFakeDate(T0);
      stack = await startStack({ http: true, config: { responseCacheEnabled } });
      stack.simulator.setRateLimit(LIMIT);
    });

    afterEach(async () => {
      jest.useRealTimers();
      await stack.close();
    });

    it('one view every 200 ms: all complete, at most 10 upstream requests, no 429', async () => {
      const answers: HttpAnswer[] = [];
      for (let view = 0; view < VIEWS; view += 1) {
        if (view > 0) advanceClock(200);
        answers.push(await stack.post(page));
      }
      expect(Date.now() - T0).toBeLessThan(60_000);

      answers.forEach(expectComplete);
      const first = answers[0]?.body.data as {
        factory: {
          counter: { items: unknown[] };
          inventory: { items: unknown[] };
          sellOffers: unknown[];
          option: { title: string };
        };
      };
      expect(first.factory.counter.items.length).toBeGreaterThan(0);
      expect(first.factory.inventory.items.length).toBeGreaterThan(0);
      expect(first.factory.sellOffers.length).toBeGreaterThan(0);
      expect(first.factory.option.title).toBeTruthy();
      for (const answer of answers) expect(answer.body.data).toEqual(answers[0]?.body.data);

      const upstream = stack.simulator.requests;
      expect(upstream.length).toBeLessThanOrEqual(LIMIT.requests);
      expect(upstream.every((request) => request.status === 200)).toBe(true);
      expect(answers.reduce((sum, answer) => sum + upstreamOf(answer.body).requests, 0)).toBe(upstream.length);

      // The limit really was in force: the rest of the window is what the gateway left unused.
      expect(await remainingInWindow(stack)).toBe(LIMIT.requests - upstream.length);
    });

    it('in 10 bursts of 30 concurrent views, 6 s apart: all complete, at most 10 upstream requests, no 429', async () => {
      stack.simulator.setLatency(20);
      const answers: HttpAnswer[] = [];
      for (let burst = 0; burst < 10; burst += 1) {
        if (burst > 0) advanceClock(6_000);
        answers.push(...(await Promise.all(Array.from({ length: VIEWS / 10 }, () => stack.post(page)))));
      }
      expect(answers).toHaveLength(VIEWS);
      answers.forEach(expectComplete);

      const upstream = stack.simulator.requests;
      expect(upstream.length).toBeLessThanOrEqual(LIMIT.requests);
      expect(upstream.every((request) => request.status === 200)).toBe(true);
      if (!responseCacheEnabled)
        expect(answers.reduce((sum, answer) => sum + upstreamOf(answer.body).coalesced, 0)).toBeGreaterThan(0);
    });
  },
);
