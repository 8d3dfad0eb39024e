/**
 * A large answer's JSON in slices: `stringifyInSlices` gives exactly `JSON.stringify`'s
 * text for any value (random JSON, `toJSON` members, left-out members, holes), writes a
 * large value over as many turns of the event loop as the clock says (a fake one here: no
 * timing is measured) and a small one in this turn, and refuses what `JSON.stringify` refuses.
 */
import fc from 'fast-check';
import { stringifyInSlices } from '../../src/pipeline/sliced-json';

afterEach(() => jest.restoreAllMocks());

/** A fake `performance.now` that moves `step` ms each time it is read. */
function fakeClock(step: number): void {
  let now = 1_000;
  jest.spyOn(performance, 'now').mockImplementation(() => (now += step));
}

/** Counts turns of the event loop while it runs: a `setImmediate` queued from an immediate runs in the next turn. */
function turnCounter(): { now: () => number; stop: () => void } {
  let turns = 0;
  let running = true;
  const tick = (): void => {
    turns += 1;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return { now: () => turns, stop: () => (running = false) };
}

/** Random values `JSON.stringify` writes, with what it treats specially: `toJSON`, undefined, functions, non-finite numbers, Dates, holes. */
const oddLeaf = fc.oneof(
  fc.constant(undefined),
  fc.constant(() => 1),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -0),
  fc.date({ noInvalidDate: true }),
  fc.string().map((text) => ({ toJSON: (key: string) => `${key}:${text}` })),
  fc.constant({ toJSON: () => undefined }),
);
const { value } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 1 }), oddLeaf, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 400 }),
  object: fc.dictionary(fc.string(), tie('value'), { maxKeys: 300 }),
}));

describe('stringifyInSlices', () => {
  it("gives JSON.stringify's text, byte for byte, for any value", async () => {
    await fc.assert(
      fc.asyncProperty(value, async (random) => {
        expect(await stringifyInSlices(random)).toBe(JSON.stringify(random));
      }),
      { numRuns: 150 },
    );
  });

  it("gives JSON.stringify's text for large random results (many members walked one by one)", async () => {
    const item = fc.record({
      id: fc.string(),
      name: fc.oneof(fc.string(), fc.constant(null)),
      n: fc.double(),
      tags: fc.array(fc.string(), { maxLength: 5 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(item, { minLength: 300, maxLength: 2000 }),
        fc.array(fc.string(), { minLength: 1, maxLength: 5 }),
        async (items, aliases) => {
          const data = Object.fromEntries(aliases.map((alias) => [alias, items]));
          expect(await stringifyInSlices(data)).toBe(JSON.stringify(data));
        },
      ),
      { numRuns: 20 },
    );
  });

  it("calls toJSON with its member's key and leaves out what JSON.stringify leaves out, in a walked value", async () => {
    const keyed = { toJSON: (key: string) => `key ${key}` };
    const list: unknown[] = [keyed, undefined, () => 1, Symbol('s')];
    // A hole at index 4.
    list.length = 5;
    list.push(Number.NaN, new Date(0), { toJSON: () => undefined }, ...Array.from({ length: 600 }, (_, n) => n));
    const data = { list, keyed, gone: undefined, fn: () => 1, nested: { keyed, list }, last: keyed };
    const text = await stringifyInSlices(data);
    expect(text).toBe(JSON.stringify(data));
    expect(text).toContain('"keyed":"key keyed"');
  });

  it('writes a large value over as many turns as the clock says, a small one in this turn', async () => {
    const items = Array.from({ length: 20_000 }, (_, n) => ({ id: `company-${n}`, name: `Company ${n}`, n }));
    const data = { a: items, b: items };
    const expected = JSON.stringify(data);
    /** Turns `stringifyInSlices(value)` took with a clock moving `step` ms a read, and its text. */
    const write = async (value: unknown, step: number): Promise<{ turns: number; text: string | undefined }> => {
      fakeClock(step);
      const counter = turnCounter();
      const text = await stringifyInSlices(value);
      counter.stop();
      jest.restoreAllMocks();
      return { turns: counter.now(), text };
    };
    // A clock past the budget at every read: a turn every few kilobytes.
    const slow = await write(data, 1_000);
    expect(slow.text).toBe(expected);
    expect(slow.turns).toBeGreaterThan(expected.length / (64 * 1024));
    // A clock that stands still: the first turn of sliced work holds it all.
    const still = await write(data, 0);
    expect(still.text).toBe(expected);
    expect(still.turns).toBeLessThanOrEqual(3);

    const small = await write({ a: items.slice(0, 50) }, 1_000);
    expect(small.text).toBe(JSON.stringify({ a: items.slice(0, 50) }));
    expect(small.turns).toBe(0);
  });

  it('refuses a cycle and a BigInt, as JSON.stringify does', async () => {
    const cyclic: Record<string, unknown> = { items: Array.from({ length: 500 }, (_, n) => n) };
    (cyclic.items as unknown[]).push(cyclic);
    await expect(stringifyInSlices(cyclic)).rejects.toThrow(TypeError);
    await expect(stringifyInSlices({ items: Array.from({ length: 500 }, () => 1n) })).rejects.toThrow(TypeError);
  });
});
