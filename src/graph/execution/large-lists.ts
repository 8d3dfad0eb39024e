import type { GraphQLFieldResolver, GraphQLSchema } from 'graphql';
import { getNullableType, isListType, isObjectType } from 'graphql';

/** From this many items on, a list field's items are completed in a turn of the event loop of their own. */
export const LARGE_LIST_ITEMS = 1000;

/** Lists waiting for their turn, first come first served. */
const waiting: Array<() => void> = [];
let releasing = false;

/**
 * Lets the first waiting list go on, and schedules the next one: a `setImmediate` queued
 * from an immediate's callback runs in the next turn of the event loop, after its I/O.
 */
function releaseOne(): void {
  waiting.shift()?.();
  if (waiting.length > 0) setImmediate(releaseOne);
  else releasing = false;
}

/**
 * `value`, in a later turn of the event loop: one such value per turn, so that whatever
 * is done with each (completing a large list) runs between the turns' I/O, not all in one.
 */
function inOwnTurn<T>(value: T): Promise<T> {
  return new Promise<T>((resolve) => {
    waiting.push(() => resolve(value));
    if (releasing) return;
    releasing = true;
    setImmediate(releaseOne);
  });
}

/** The contexts of operations that answered a large list (see {@link afterLargeLists}). */
const withLargeLists = new WeakSet<object>();

/** A large list in a turn of its own (its operation's context noted); anything else as it is. */
function largeInOwnTurn(value: unknown, context: unknown): unknown {
  if (!Array.isArray(value) || value.length < LARGE_LIST_ITEMS) return value;
  if (context !== null && typeof context === 'object') withLargeLists.add(context);
  return inOwnTurn(value);
}

/** True when the operation of this context answered a large list (its result is large too). */
export function answeredLargeList(context: unknown): boolean {
  return context !== null && typeof context === 'object' && withLargeLists.has(context);
}

/**
 * An operation's result, in a turn of its own when the operation answered a large list:
 * serializing such a result (and storing it in the response cache) is as long as
 * completing a list, so it does not follow the last list in the same turn. Awaited with
 * any value, it waits for that turn (the response cache's write waits for one more).
 *
 * @param context - the operation's context
 * @param result - what executing it gave
 */
export function afterLargeLists<T>(context: unknown, result: T): T | Promise<T> {
  return answeredLargeList(context) ? inOwnTurn(result) : result;
}

/**
 * Completes each large list of an operation in a turn of the event loop of its own.
 *
 * Completing a list (executing its items' fields, building their results) is synchronous
 * once its value is there: a company list of 3,700 entries asked for under five aliases
 * held the event loop for 150 ms and more in one turn, and every other request (another
 * key's, `/healthz`) waited for it. A list field whose resolver answers
 * {@link LARGE_LIST_ITEMS} items or more now answers them in a later turn, one list per
 * turn, so other requests' I/O runs between them. Smaller lists, the common case, are
 * answered as before, in the same turn (a cached dashboard never waits).
 *
 * When to use: once, on the executable schema. Only fields with a resolver are wrapped
 * (a list read from its parent's property stays graphql-jit's direct read).
 *
 * @returns the same schema, its list fields' resolvers wrapped
 */
export function yieldForLargeLists(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const resolve: GraphQLFieldResolver<unknown, unknown> | undefined = field.resolve;
      if (!resolve || !isListType(getNullableType(field.type))) continue;
      field.resolve = (source, args, context, info) => {
        const value = resolve(source, args, context, info);
        return value instanceof Promise
          ? value.then((settled: unknown) => largeInOwnTurn(settled, context))
          : largeInOwnTurn(value, context);
      };
    }
  }
  return schema;
}
