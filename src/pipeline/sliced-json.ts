/**
 * JSON text of a large answer written in slices of turns of the event loop (the queue of
 * sliced work, turn-slices.ts, with its time budget per turn), with exactly the text
 * `JSON.stringify` gives. Small parts are written by `JSON.stringify` itself (runs of an
 * array's small items by one call); only arrays and objects with more than
 * {@link SMALL_NODES} values are walked here.
 */
import { nextSlice, overBudget } from '../graph/execution/turn-slices';

/** Characters written between two reads of the clock (a few tens of microseconds of `JSON.stringify`). */
const CHECK_CHARS = 8 * 1024;

/** Values (nested ones included) up to which an array or object is written by `JSON.stringify` at once. */
const SMALL_NODES = 256;

/** Values counted so far by {@link countValues} (a module variable: no closure per call). */
let counted = 0;

/** Adds the values in `value` (itself included) to {@link counted}, stopping once it is past `budget`. */
function countValues(value: unknown, budget: number): void {
  counted += 1;
  if (counted > budget || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length && counted <= budget; index += 1) countValues(value[index], budget);
    return;
  }
  for (const key in value) {
    countValues((value as Record<string, unknown>)[key], budget);
    if (counted > budget) return;
  }
}

/** The values in `value` (itself included), counted up to `budget` and one past it (own enumerable members; a heuristic, not a part of the text). */
function valuesUpTo(value: unknown, budget: number): number {
  counted = 0;
  countValues(value, budget);
  return counted;
}

/** True for an array or object `JSON.stringify` writes as its members alone (no `toJSON`, no boxed primitive). */
function isPlainContainer(value: unknown): value is object {
  if (value === null || typeof value !== 'object') return false;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  if (Array.isArray(value)) return true;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/** True for what `JSON.stringify` writes the same whatever its key: a primitive (not a function) or a plain array or object. */
function isKeyless(value: unknown): boolean {
  return value === null || (typeof value !== 'object' && typeof value !== 'function') || isPlainContainer(value);
}

/** The text of `value` as the member `key` of its holder, as `JSON.stringify` writes it (its `toJSON` called with `key`); undefined when it is left out. */
function memberText(value: unknown, key: string): string | undefined {
  if (isKeyless(value)) return JSON.stringify(value);
  // A holder of this one member: `toJSON` gets the member's own key.
  const holder = JSON.stringify({ [key]: value });
  return holder === '{}' ? undefined : holder.slice(JSON.stringify(key).length + 2, -1);
}

/** Collects the text and waits for a later slice when the turn's budget is spent. */
class SlicedWriter {
  private readonly parts: string[] = [];
  private sinceCheck = 0;
  /** Arrays and objects being walked (a cycle is refused, as `JSON.stringify` refuses it). */
  readonly ancestors = new Set<object>();

  write(text: string): void {
    this.parts.push(text);
    this.sinceCheck += text.length;
  }

  /** A later slice when this turn's budget is spent, else null (nothing to wait for). */
  turn(): Promise<void> | null {
    if (this.sinceCheck < CHECK_CHARS) return null;
    this.sinceCheck = 0;
    if (!overBudget()) return null;
    return nextSlice();
  }

  text(): string {
    return this.parts.join('');
  }
}

/** True for a plain array or object too large to be written at once. */
function isLarge(value: unknown): value is object {
  return isPlainContainer(value) && valuesUpTo(value, SMALL_NODES) > SMALL_NODES;
}

/**
 * Writes a large array: runs of small items by one `JSON.stringify` each (up to
 * {@link SMALL_NODES} values a run), a large item walked, an item with `toJSON` by itself.
 */
async function walkArray(writer: SlicedWriter, array: readonly unknown[]): Promise<void> {
  writer.write('[');
  let from = 0;
  let values = 0;
  const flush = (to: number): void => {
    if (to > from) {
      const run = JSON.stringify(from === 0 && to === array.length ? array : array.slice(from, to));
      writer.write(from === 0 ? run.slice(1, -1) : `,${run.slice(1, -1)}`);
    }
    from = to;
    values = 0;
  };
  for (let index = 0; index < array.length; index += 1) {
    const item = array[index];
    if (isKeyless(item)) {
      const count = isPlainContainer(item) ? valuesUpTo(item, SMALL_NODES) : 1;
      if (count <= SMALL_NODES) {
        values += count;
        if (values < SMALL_NODES) continue;
        flush(index + 1);
      } else {
        flush(index);
        if (index > 0) writer.write(',');
        await walk(writer, item as object);
        from = index + 1;
      }
    } else {
      flush(index);
      writer.write(`${index > 0 ? ',' : ''}${memberText(item, String(index)) ?? 'null'}`);
      from = index + 1;
    }
    const turn = writer.turn();
    if (turn) await turn;
  }
  flush(array.length);
  writer.write(']');
}

/** Writes a large object member by member, a large member walked. */
async function walkObject(writer: SlicedWriter, object: object): Promise<void> {
  writer.write('{');
  let first = true;
  for (const name of Object.keys(object)) {
    const member = (object as Record<string, unknown>)[name];
    const large = isLarge(member);
    const text = large ? null : memberText(member, name);
    if (text === undefined) continue;
    writer.write(first ? `${JSON.stringify(name)}:` : `,${JSON.stringify(name)}:`);
    first = false;
    if (text === null) await walk(writer, member as object);
    else writer.write(text);
    const turn = writer.turn();
    if (turn) await turn;
  }
  writer.write('}');
}

/** Writes a large plain array or object. */
async function walk(writer: SlicedWriter, value: object): Promise<void> {
  if (writer.ancestors.has(value)) throw new TypeError('Converting circular structure to JSON');
  writer.ancestors.add(value);
  if (Array.isArray(value)) await walkArray(writer, value);
  else await walkObject(writer, value);
  writer.ancestors.delete(value);
}

/**
 * `JSON.stringify(value)`, the same text, written in slices of turns of the event loop
 * (each turn within the sliced work's budget, see turn-slices.ts): serializing a large
 * answer (up to `MAX_RESPONSE_BYTES`) does not hold the loop in one turn. A small value is
 * written at once, in this turn. Rejects as `JSON.stringify` throws (a cycle, a BigInt).
 *
 * @param value - what to serialize (a GraphQL result's `data`, typically)
 * @returns the text; undefined where `JSON.stringify` gives undefined
 */
export async function stringifyInSlices(value: unknown): Promise<string | undefined> {
  if (!isLarge(value)) return JSON.stringify(value);
  const writer = new SlicedWriter();
  await walk(writer, value);
  return writer.text();
}
