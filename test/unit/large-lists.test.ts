/**
 * Large lists in turns of their own: each list of LARGE_LIST_ITEMS items or more is
 * completed in a later turn of the event loop than the one before it (so other requests'
 * I/O runs between them), a small list in the same turn, with the same answers, under
 * graphql-js and graphql-jit alike.
 */
import { execute, GraphQLInt, GraphQLList, GraphQLObjectType, GraphQLSchema, parse } from 'graphql';
import { jitExecute } from '../../src/graph/execution/jit-executor';
import {
  afterLargeLists,
  answeredLargeList,
  LARGE_LIST_ITEMS,
  yieldForLargeLists,
} from '../../src/graph/execution/large-lists';
import { turnAfterLargeBody } from '../../src/upstream/response-body';

/** Running turn counters, stopped after each test whatever it asserted. */
const counters: Array<{ stop: () => void }> = [];
afterEach(() => {
  for (const counter of counters.splice(0)) counter.stop();
});

/** Counts turns of the event loop while it runs: a `setImmediate` queued from an immediate runs in the next turn. */
function turnCounter(): { now: () => number; stop: () => void } {
  let turns = 0;
  let running = true;
  counters.push({ stop: () => (running = false) });
  const tick = (): void => {
    turns += 1;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return { now: () => turns, stop: () => (running = false) };
}

function schemaWith(counter: { now: () => number }): GraphQLSchema {
  const item = new GraphQLObjectType({
    name: 'Item',
    fields: { n: { type: GraphQLInt }, turn: { type: GraphQLInt, resolve: () => counter.now() } },
  });
  const list = (length: number): Array<{ n: number }> => Array.from({ length }, (_, n) => ({ n }));
  const query = new GraphQLObjectType({
    name: 'Query',
    fields: {
      big: { type: new GraphQLList(item), resolve: () => list(LARGE_LIST_ITEMS) },
      bigLater: { type: new GraphQLList(item), resolve: async () => list(LARGE_LIST_ITEMS + 1) },
      small: { type: new GraphQLList(item), resolve: () => list(3) },
      turn: { type: GraphQLInt, resolve: () => counter.now() },
    },
  });
  return yieldForLargeLists(new GraphQLSchema({ query }));
}

type Items = Array<{ n: number; turn: number }>;
const document = parse('{ turn small { n turn } a: big { n turn } b: big { n turn } c: bigLater { n turn } }');

describe.each([
  [
    'graphql-js',
    (schema: GraphQLSchema, contextValue: object) => Promise.resolve(execute({ schema, document, contextValue })),
  ],
  [
    'graphql-jit (second run)',
    async (schema: GraphQLSchema, contextValue: object) => {
      const run = jitExecute(schema);
      await run({ schema, document, contextValue: {} });
      return run({ schema, document, contextValue });
    },
  ],
])('yieldForLargeLists, %s', (_name, run) => {
  it('completes each large list in a turn of its own, a small one at once, with the same items', async () => {
    const counter = turnCounter();
    const context = {};
    const result = await run(schemaWith(counter), context);
    counter.stop();
    expect(result.errors).toBeUndefined();
    const data = result.data as { turn: number; small: Items; a: Items; b: Items; c: Items };
    expect(data.small.map((item) => item.turn)).toEqual([data.turn, data.turn, data.turn]);
    const turnsOf = (items: Items): number[] => [...new Set(items.map((item) => item.turn))];
    const [a, b, c] = [turnsOf(data.a), turnsOf(data.b), turnsOf(data.c)];
    // Each list in one turn, each later than the one before.
    expect([a.length, b.length, c.length]).toEqual([1, 1, 1]);
    expect(a[0]).toBeGreaterThan(data.turn);
    expect(new Set([a[0], b[0], c[0]]).size).toBe(3);
    expect(data.a.map((item) => item.n)).toEqual(Array.from({ length: LARGE_LIST_ITEMS }, (_, n) => n));
    expect(data.c).toHaveLength(LARGE_LIST_ITEMS + 1);
    expect(answeredLargeList(context)).toBe(true);
  });
});

describe('afterLargeLists and turnAfterLargeBody', () => {
  it("hands on a large operation's result in a later turn, any other at once", async () => {
    const counter = turnCounter();
    const schema = schemaWith(counter);
    const small = {};
    await execute({ schema, document: parse('{ small { n } }'), contextValue: small });
    expect(answeredLargeList(small)).toBe(false);
    const result = { data: {} };
    expect(afterLargeLists(small, result)).toBe(result);
    const large = {};
    await execute({ schema, document: parse('{ big { n } }'), contextValue: large });
    const before = counter.now();
    await expect(afterLargeLists(large, result)).resolves.toBe(result);
    expect(counter.now()).toBeGreaterThan(before);
    counter.stop();
  });

  it('waits for a turn after a body of 256 KiB or more, not after a smaller one', async () => {
    expect(turnAfterLargeBody(256 * 1024 - 1)).toBeNull();
    const counter = turnCounter();
    const before = counter.now();
    await turnAfterLargeBody(256 * 1024);
    expect(counter.now()).toBeGreaterThan(before);
    counter.stop();
  });
});
