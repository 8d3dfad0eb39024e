/**
 * A live query's runs execute as plain queries do (`EXECUTION_JIT`, the default): its
 * operation, run again, is compiled by graphql-jit, and each result is the plain query's
 * answer at that moment, word for word. With `EXECUTION_JIT=false` nothing is compiled.
 * The simulator over real HTTP, the gateway on port 0, a real graphql-ws client; no sleeps.
 */
import type { DocumentNode } from 'graphql';
import { getOperationAST } from 'graphql';
import { compileQuery } from 'graphql-jit';
import type { Client as WsClient } from 'graphql-ws';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { startStack } from '../support';
import type { HttpStack } from '../support';
import { collect, wsClient } from './clients';
import type { Received } from './clients';

jest.mock('graphql-jit', () => {
  const actual = jest.requireActual<typeof import('graphql-jit')>('graphql-jit');
  return { ...actual, compileQuery: jest.fn(actual.compileQuery) };
});

const PAGE = `query LivePage($id: ID!) @live {
  factory(id: $id) { name isOpen counter { items { item price amount } } inventory { totalWeight items { item amount } } vehicles { name numberPlate } }
  buildings { label rooms { name rent occupied tenant { tenantName lastPayDate } } }
}`;
const FRESH_COUNTER = 'query($id: ID!) { factory(id: $id) { counter { items { item price } } } }';

/** The live operations (`@live`) graphql-jit compiled, by name (the plain page over HTTP is compiled too). */
function compiledLiveOperations(): Array<string | undefined> {
  return jest
    .mocked(compileQuery)
    .mock.calls.map(([, document, name]) => getOperationAST(document as DocumentNode, name))
    .filter((operation) => operation?.directives?.some((directive) => directive.name.value === 'live'))
    .map((operation) => operation?.name?.value);
}

async function changeAndRead(stack: HttpStack, price: number): Promise<void> {
  stack.simulator.change({ kind: 'counter', factoryId: FIXTURE_IDS.shop, item: 'Wasser', price });
  const fresh = await stack.executeText(
    FRESH_COUNTER,
    { id: FIXTURE_IDS.shop },
    { headers: { 'cache-control': 'no-cache' } },
  );
  expect(fresh.errors).toBeUndefined();
}

function priceOf(result: Received): number | undefined {
  const factory = result.data?.factory as { counter: { items: Array<{ item: string; price: number }> } } | null;
  return factory?.counter.items.find((item) => item.item === 'Wasser')?.price;
}

describe.each([
  ['compiled (EXECUTION_JIT on)', true],
  ['graphql-js (EXECUTION_JIT=false)', false],
])('a live query run %s', (_label, executionJit) => {
  let stack: HttpStack;
  let ws: WsClient;

  beforeEach(async () => {
    jest.mocked(compileQuery).mockClear();
    stack = await startStack({ http: true, config: { liveQueryThrottleMs: 0, executionJit } });
    ws = wsClient(stack.endpoint, DEMO_KEYS.premium.key);
  });

  afterEach(async () => {
    await ws.dispose();
    await stack.close();
  });

  it('sends after each change what the plain query answers then', async () => {
    const plainPage = PAGE.replace(' @live', '');
    const first = await stack.executeText(plainPage, { id: FIXTURE_IDS.shop });
    expect(first.errors).toBeUndefined();
    const live = collect((sink) => ws.subscribe({ query: PAGE, variables: { id: FIXTURE_IDS.shop } }, sink));
    expect((await live.next()).data).toEqual(first.data);
    for (const price of [6.25, 7.5, 8.75]) {
      await changeAndRead(stack, price);
      const result = await live.next();
      expect(priceOf(result)).toBe(price);
      expect(result.errors).toBeUndefined();
      const plain = await stack.executeText(
        plainPage,
        { id: FIXTURE_IDS.shop },
        { headers: { 'cache-control': 'no-cache' } },
      );
      expect(result.data).toEqual(plain.data);
    }
    live.stop();
    // The live operation ran four times: compiled from its second run on, only with EXECUTION_JIT.
    expect(compiledLiveOperations()).toEqual(executionJit ? ['LivePage'] : []);
  });
});
