/**
 * Patience: how long an operation waits for the key's upstream budget
 * (`UPSTREAM_PATIENCE_MS`, or the request's RFC 7240 `Prefer: wait=N` up to
 * `UPSTREAM_PATIENCE_MAX_MS`) before it answers with what it has. Fake timers drive the
 * budget's window; sockets stay real (see waits.test.ts).
 */
import { DEFAULT_CONFIG, ConfigError, loadConfig } from '../../src/config';
import { FIXTURE_IDS } from '../../src/simulator';
import { patienceFromPrefer, preferredWaitSeconds } from '../../src/http/prefer-wait';
import { EconomyCounterDocument } from '../generated/graphql';
import { errorAt, startStack, turn, until, useFakeTimersWithRealIo } from '../support';
import type { Stack } from '../support';
import { WINDOW_EDGE_MARGIN_MS } from '../../src/economy/budget/key-budget';

const LIST = 'GET /factory/list/';
const COUNTER = 'GET /factory/counter/{id}';

describe('patience settings', () => {
  it('defaults to 1500 ms with a 10 s cap for Prefer: wait', () => {
    const config = loadConfig({});
    expect(config.upstreamPatienceMs).toBe(1500);
    expect(config.upstreamPatienceMaxMs).toBe(10_000);
    expect(DEFAULT_CONFIG.upstreamPatienceMs).toBe(1500);
    expect(loadConfig({ UPSTREAM_PATIENCE_MS: '0', UPSTREAM_PATIENCE_MAX_MS: '60000' })).toMatchObject({
      upstreamPatienceMs: 0,
      upstreamPatienceMaxMs: 60_000,
    });
  });

  it('refuses the removed UPSTREAM_QUEUE_TIMEOUT_MS at start, naming its replacement', () => {
    expect(() => loadConfig({ UPSTREAM_QUEUE_TIMEOUT_MS: '2000' })).toThrow(ConfigError);
    expect(() => loadConfig({ UPSTREAM_QUEUE_TIMEOUT_MS: '2000' })).toThrow(/UPSTREAM_PATIENCE_MS/);
  });
});

describe('Prefer: wait', () => {
  it.each([
    ['wait=5', 5],
    ['wait="7"', 7],
    ['respond-async, wait=3', 3],
    ['WAIT = 4 ; foo=bar', 4],
    ['handling=lenient,wait=0', 0],
  ])('reads %s as %i seconds', (header, seconds) => {
    expect(preferredWaitSeconds(header)).toBe(seconds);
  });

  it.each([undefined, '', 'respond-async', 'wait=', 'wait=-1', 'wait=soon', 'nowait=5', 'wait=5x'])(
    'ignores %p',
    (header) => {
      expect(preferredWaitSeconds(header)).toBeNull();
    },
  );

  it('caps the wait at UPSTREAM_PATIENCE_MAX_MS', () => {
    expect(patienceFromPrefer('wait=3', 10_000)).toBe(3000);
    expect(patienceFromPrefer('wait=60', 10_000)).toBe(10_000);
    expect(patienceFromPrefer(undefined, 10_000)).toBeNull();
  });
});

describe('patience over GraphQL', () => {
  let stack: Stack | undefined;

  afterEach(async () => {
    jest.useRealTimers();
    await stack?.close();
    stack = undefined;
  });

  // One request per 2 s: the counter must wait 2 s for the window after the company list.
  const budget = { upstreamRateLimit: { requests: 1, windowSeconds: 2 } };

  it('by default an operation waits 1500 ms at most, then answers RATE_LIMITED with retryAfterSeconds from the window', async () => {
    stack = await startStack({ config: { ...budget, upstreamPatienceMs: DEFAULT_CONFIG.upstreamPatienceMs } });
    useFakeTimersWithRealIo();
    const result = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop });
    expect(result.data?.factory?.counter).toBeNull();
    // The window of 2 s ends 2.25 s after the list's answer (the edge margin): 3 whole seconds.
    expect(errorAt(result, ['factory', 'counter'])).toMatchObject({
      code: 'RATE_LIMITED',
      extensions: { retryAfterSeconds: 3 },
    });
    expect(stack.simulator.requests.map((request) => request.route)).toEqual([LIST]);
  });

  it('Prefer: wait=3 lets the same operation wait for the window and answer complete', async () => {
    stack = await startStack({ config: { ...budget, upstreamPatienceMs: DEFAULT_CONFIG.upstreamPatienceMs } });
    const current = stack;
    useFakeTimersWithRealIo();
    const pending = current.execute(
      EconomyCounterDocument,
      { id: FIXTURE_IDS.shop },
      { headers: { prefer: 'wait=3' } },
    );
    await until(() => current.simulator.requests.length === 1, 'the list request');
    for (let i = 0; i < 20; i += 1) await turn();
    jest.advanceTimersByTime(2000 + WINDOW_EDGE_MARGIN_MS);
    const result = await pending;
    expect(result.errors).toBeUndefined();
    expect(result.data?.factory?.counter?.items.length).toBeGreaterThan(0);
    expect(current.simulator.requests.map((request) => request.route)).toEqual([LIST, COUNTER]);
  });

  it('answers Preference-Applied: wait=N over HTTP, capped by UPSTREAM_PATIENCE_MAX_MS, and nothing without Prefer', async () => {
    stack = await startStack({ http: true, config: { upstreamPatienceMaxMs: 5000 } });
    const query = `query { factories { id } }`;
    const asked = await stack.post({ query }, { headers: { prefer: 'wait=3' } });
    expect(asked.status).toBe(200);
    expect(asked.headers.get('preference-applied')).toBe('wait=3');
    const capped = await stack.post({ query }, { headers: { prefer: 'wait=60' } });
    expect(capped.headers.get('preference-applied')).toBe('wait=5');
    const plain = await stack.post({ query });
    expect(plain.headers.get('preference-applied')).toBeNull();
  });
});
