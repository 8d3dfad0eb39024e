import type { FieldNode, GraphQLFieldResolver, GraphQLSchema } from 'graphql';
import { getNullableType, isListType, isObjectType } from 'graphql';

import { inSlice, inTurnOfItsOwn, itemsThisTurn, newItemCost, SlicedValue } from './turn-slices';
import type { ItemCost } from './turn-slices';

/** From this many items on, a list field's items are completed in slices of turns of the event loop of their own. */
export const LARGE_LIST_ITEMS = 1000;

/** The contexts of operations that answered a large list (see {@link afterLargeLists}). */
const withLargeLists = new WeakSet<object>();

/** What an item of a list field costs, by the field's node in its document (the same selection, the same work per item). */
const costs = new WeakMap<FieldNode, ItemCost>();

function costOf(node: FieldNode | undefined): ItemCost {
  if (!node) return newItemCost();
  let cost = costs.get(node);
  if (!cost) {
    cost = newItemCost();
    costs.set(node, cost);
  }
  return cost;
}

/**
 * The items of `list` as the engine gets them: as many first items as the running turn's
 * budget still allows as they are (completed at once), each other one as a
 * {@link SlicedValue} (completed in a slice of a later turn); the list itself when all fit.
 */
function slicedItems(list: readonly unknown[], cost: ItemCost): readonly unknown[] {
  const now = itemsThisTurn(list.length, cost);
  if (now === list.length) return list;
  const items = new Array<unknown>(list.length);
  for (let index = 0; index < now; index += 1) items[index] = list[index];
  for (let index = now; index < list.length; index += 1) items[index] = new SlicedValue(list[index], cost);
  return items;
}

/**
 * A large list as sliced items (its operation's context noted); anything else as it is.
 * The items are handed to the engine in a turn of sliced work of their own: the engine's
 * pass over them (a callback per item) is as long as a slice, and the lists of one
 * operation (aliases of one list, resolved together) would otherwise all be passed over
 * in one turn.
 */
function largeInSlices(value: unknown, context: unknown, node: FieldNode | undefined): unknown {
  if (!Array.isArray(value) || value.length < LARGE_LIST_ITEMS) return value;
  if (context !== null && typeof context === 'object') withLargeLists.add(context);
  const cost = costOf(node);
  return inTurnOfItsOwn(value).then((list) => slicedItems(list, cost));
}

/** True when the operation of this context answered a large list (its result is large too). */
export function answeredLargeList(context: unknown): boolean {
  return context !== null && typeof context === 'object' && withLargeLists.has(context);
}

/**
 * An operation's result, in a slice of a later turn when the operation answered a large
 * list: what is done with such a result next (serializing it, in slices too, deciding on
 * the response cache) does not follow the last list's slice in the same turn. Awaited with
 * any value, it waits for such a slice (the response cache's write waits for one more).
 *
 * @param context - the operation's context
 * @param result - what executing it gave
 */
export function afterLargeLists<T>(context: unknown, result: T): T | Promise<T> {
  return answeredLargeList(context) ? inSlice(result) : result;
}

/**
 * Completes each large list of an operation in slices of turns of the event loop of their own.
 *
 * Completing a list (executing its items' fields, building their results) is synchronous
 * once its value is there: a company list of 3,700 entries asked for under five aliases
 * held the event loop for 150 ms and more in one turn, and every other request (another
 * key's, `/healthz`) waited for it. A list field whose resolver answers
 * {@link LARGE_LIST_ITEMS} items or more now answers each item as a thenable that
 * graphql-js and graphql-jit complete in its callback, called by the queue of sliced work
 * (turn-slices.ts) in turns of at most `TURN_BUDGET_MS` each, all operations' items in
 * one queue, so other requests' I/O runs between the slices. Smaller lists, the common
 * case, are answered as before, in the same turn (a cached dashboard never waits). The
 * answers are the same, item for item.
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
          ? value.then((settled: unknown) => largeInSlices(settled, context, info.fieldNodes[0]))
          : largeInSlices(value, context, info.fieldNodes[0]);
      };
    }
  }
  return schema;
}
