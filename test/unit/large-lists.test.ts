/**
 * Large lists in slices: each list of LARGE_LIST_ITEMS items or more is completed in
 * slices of later turns of the event loop, as many items per turn as the turn's time
 * budget allows (a fake clock here: no timing is measured), a small list in the same
 * turn, with the same answers, under graphql-js and graphql-jit alike.
 */
import { execute, GraphQLInt, GraphQLList, GraphQLObjectType, GraphQLSchema, parse } from 'graphql';
import { jitExecute } from '../../src/graph/execution/jit-executor';
import {
  afterLargeLists,
  answeredLargeList,
  LARGE_LIST_ITEMS,
  yieldForLargeLists,
} from '../../src/graph/execution/large-lists';
import { JOBS_PER_CHECK, MOST_ITEMS_AT_ONCE, TURN_BUDGET_MS } from '../../src/graph/execution/turn-slices';
import { turnAfterLargeBody } from '../../src/upstream/response-body';

/** Running turn counters, stopped after each test whatever it asserted. */
const counters: Array<{ stop: () => void }> = [];
afterEach(() => {
  for (const counter of counters.splice(0)) counter.stop();
  jest.restoreAllMocks();
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

/** A fake `performance.now`: it moves only when `advance` is called (by an item's field here). */
function fakeClock(): { advance: (ms: number) => void } {
  let now = 1_000;
  jest.spyOn(performance, 'now').mockImplementation(() => now);
  return { advance: (ms) => (now += ms) };
}

/** A schema whose items' `turn` field tells the turn it ran in, and costs `itemMs` of the fake clock (its lists not sliced). */
function plainSchema(
  counter: { now: () => number },
  clock: { advance: (ms: number) => void },
  itemMs: number,
): GraphQLSchema {
  const item = new GraphQLObjectType({
    name: 'Item',
    fields: {
      n: { type: GraphQLInt },
      turn: {
        type: GraphQLInt,
        resolve: () => {
          clock.advance(itemMs);
          return counter.now();
        },
      },
    },
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
  return new GraphQLSchema({ query });
}

/** {@link plainSchema} with its large lists sliced. */
function schemaWith(
  counter: { now: () => number },
  clock: { advance: (ms: number) => void },
  itemMs: number,
): GraphQLSchema {
  return yieldForLargeLists(plainSchema(counter, clock, itemMs));
}

type Items = Array<{ n: number; turn: number }>;
type Data = { turn: number; small: Items; a: Items; b: Items; c: Items };
/** The operation, parsed anew for each test: what an item costs is measured by its field's node in the document. */
const source = '{ turn small { n turn } a: big { n turn } b: big { n turn } c: bigLater { n turn } }';

/** Items completed in each turn, by turn. */
function itemsPerTurn(lists: Items[]): Map<number, number> {
  const perTurn = new Map<number, number>();
  for (const item of lists.flat()) perTurn.set(item.turn, (perTurn.get(item.turn) ?? 0) + 1);
  return perTurn;
}

describe.each([
  [
    'graphql-js',
    (schema: GraphQLSchema, contextValue: object, document = parse(source)) =>
      Promise.resolve(execute({ schema, document, contextValue })),
  ],
  [
    'graphql-jit (second run)',
    async (schema: GraphQLSchema, contextValue: object, document = parse(source)) => {
      const run = jitExecute(schema);
      await run({ schema, document, contextValue: {} });
      return run({ schema, document, contextValue });
    },
  ],
])('yieldForLargeLists, %s', (_name, run) => {
  /**
   * Runs the document twice on one clock and turn counter, its items costing `first` ms each on
   * the clock, then `second`: the second run's data (its items measured as the first's were).
   */
  async function secondRun(first: number, second: number): Promise<Data> {
    const clock = fakeClock();
    const counter = turnCounter();
    const document = parse(source);
    await run(schemaWith(counter, clock, first), {}, document);
    const result = await run(schemaWith(counter, clock, second), {}, document);
    counter.stop();
    return result.data as Data;
  }

  it('completes large lists in slices of later turns, as many items a turn as the budget allows, a small one at once', async () => {
    const clock = fakeClock();
    const counter = turnCounter();
    const context = {};
    // Each item costs a millisecond of the fake clock.
    const result = await run(schemaWith(counter, clock, 1), context);
    counter.stop();
    expect(result.errors).toBeUndefined();
    const data = result.data as Data;
    expect(data.small.map((item) => item.turn)).toEqual([data.turn, data.turn, data.turn]);
    const large = [data.a, data.b, data.c];
    for (const list of large) {
      const turns = list.map((item) => item.turn);
      expect(Math.min(...turns)).toBeGreaterThan(data.turn);
      // A list's items in order, over many turns.
      expect(turns).toEqual([...turns].sort((x, y) => x - y));
      expect(new Set(turns).size).toBeGreaterThan(list.length / Math.max(TURN_BUDGET_MS, JOBS_PER_CHECK) - 1);
    }
    // No turn ran more items than its budget allows: a group of jobs (the clock is read
    // after each) and the first items of a list handed over, as many as the budget left.
    for (const count of itemsPerTurn(large).values())
      expect(count).toBeLessThanOrEqual(JOBS_PER_CHECK + 2 * Math.max(TURN_BUDGET_MS, JOBS_PER_CHECK));
    expect(data.a.map((item) => item.n)).toEqual(Array.from({ length: LARGE_LIST_ITEMS }, (_, n) => n));
    expect(data.c.map((item) => item.n)).toEqual(Array.from({ length: LARGE_LIST_ITEMS + 1 }, (_, n) => n));
    expect(answeredLargeList(context)).toBe(true);
  });

  it('completes cheap items in few turns: the slices follow the clock, not a count of items', async () => {
    const clock = fakeClock();
    const counter = turnCounter();
    const document = parse(source);
    // Costly items first (a millisecond each on the clock), then the same document's items at no cost.
    const costly = await run(schemaWith(counter, clock, 1), {}, document);
    const cheap = await run(schemaWith(counter, clock, 0), {}, document);
    counter.stop();
    const turnsOf = (data: Data): number => itemsPerTurn([data.a, data.b, data.c]).size;
    expect(turnsOf(costly.data as Data)).toBeGreaterThan(100);
    // However many items: a turn for each list handed over (its first items), one for the rest.
    expect(turnsOf(cheap.data as Data)).toBeLessThanOrEqual(4);
  });

  it('hands each large list to the engine in a turn of its own, even lists resolved together', async () => {
    // The items measured at no cost first: the clock never says the budget is spent, so only
    // the hand-overs' own turns keep the lists' first items apart.
    const data = await secondRun(0, 0);
    const firstTurns = [data.a, data.b, data.c].map((list) => list[0]?.turn);
    expect(new Set(firstTurns).size).toBe(3);
    // Each hand-over's turn completes that list's first items at once, and none of another list.
    for (const [index, list] of [data.a, data.b, data.c].entries()) {
      const others = [data.a, data.b, data.c].filter((_, other) => other !== index).flat();
      expect(others.some((item) => item.turn === list[0]?.turn)).toBe(false);
      expect(list.filter((item) => item.turn === list[0]?.turn).length).toBe(MOST_ITEMS_AT_ONCE);
    }
  });

  it('completes at most MOST_ITEMS_AT_ONCE items at once in a turn, however cheap they were measured', async () => {
    // The same document's items at no cost (measured so), then costly ones: those completed at
    // once are not measured, so a cheap measure must not let a whole list go in one turn.
    const data = await secondRun(0, 1);
    expect(data.a).toHaveLength(LARGE_LIST_ITEMS);
    for (const count of itemsPerTurn([data.a, data.b, data.c]).values())
      expect(count).toBeLessThanOrEqual(MOST_ITEMS_AT_ONCE + JOBS_PER_CHECK);
  });

  it('answers large lists as it answers them without slices', async () => {
    const clock = fakeClock();
    const counter = { now: () => 0 };
    const sliced = await run(schemaWith(counter, clock, 1), {});
    const unsliced = await execute({
      schema: plainSchema(counter, clock, 1),
      document: parse(source),
      contextValue: {},
    });
    expect(JSON.stringify(sliced)).toBe(JSON.stringify(unsliced));
  });
});

describe('afterLargeLists and turnAfterLargeBody', () => {
  it("hands on a large operation's result in a later turn, any other at once", async () => {
    const counter = turnCounter();
    const schema = schemaWith(counter, { advance: () => undefined }, 0);
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
