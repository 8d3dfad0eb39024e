/**
 * Many validation rules as one. graphql-js's `validate` merges its rules' visitors with
 * `visitInParallel`, which asks every visitor for every kind of node (about forty kinds
 * times thirty rules: 1,200 look-ups and 80 arrays per document) before it walks a node.
 * Over a stream of distinct small documents (thousands of operations, each with its own
 * name) that merge was the busiest code of the validation (8 % of the gateway's time) and a
 * quarter of what it allocated. {@link mergedRule} hands `validate` one rule whose visitor
 * holds, per kind, only the visitors that watch it; the walk is the same: each visitor's
 * handlers run in order, a visitor whose `enter` returns `false` skips that node's subtree
 * (and only its own), `BREAK` stops that visitor, and any other value ends the node's
 * handlers with that value, as `visitInParallel` does.
 */
import { BREAK, Kind, visitInParallel } from 'graphql';
import type { ASTNode, ASTVisitor, ValidationContext, ValidationRule } from 'graphql';

/** The kinds of AST node, which a visitor's keys name. */
const KINDS: ReadonlySet<string> = new Set<string>(Object.values(Kind));

/** One handler as `visit` calls it: the node first, `this` its visitor. */
type Handler = (this: ASTVisitor, ...args: unknown[]) => unknown;

/** The handlers of one kind: each visitor that watches it (by its index), with its `enter` and `leave`. */
interface KindHandlers {
  readonly visitors: number[];
  readonly enter: Array<Handler | undefined>;
  readonly leave: Array<Handler | undefined>;
}

/** A visitor's handler of `kind` as graphql-js reads it, or `undefined`; null when the visitor is not a plain map of kinds. */
function handlersOf(value: unknown): { enter?: Handler; leave?: Handler } | null {
  if (value === undefined) return {};
  if (typeof value === 'function') return { enter: value as Handler };
  if (typeof value === 'object' && value !== null) {
    const { enter, leave } = value as { enter?: unknown; leave?: unknown };
    return {
      ...(typeof enter === 'function' ? { enter: enter as Handler } : {}),
      ...(typeof leave === 'function' ? { leave: leave as Handler } : {}),
    };
  }
  return null;
}

/**
 * The handlers of `visitors` by kind, or null when one of them is not a plain object
 * (inherited handlers): those go to graphql-js's own merge. A visitor's own `enter` and
 * `leave` watch every kind it names no handler for (graphql-js's `UniqueDirectivesPerLocationRule`).
 */
function byKind(visitors: readonly ASTVisitor[]): Map<string, KindHandlers> | null {
  const kinds = new Map<string, KindHandlers>();
  const add = (kind: string, index: number, handlers: { enter?: Handler; leave?: Handler }): void => {
    if (handlers.enter === undefined && handlers.leave === undefined) return;
    let entry = kinds.get(kind);
    if (!entry) {
      entry = { visitors: [], enter: [], leave: [] };
      kinds.set(kind, entry);
    }
    entry.visitors.push(index);
    entry.enter.push(handlers.enter);
    entry.leave.push(handlers.leave);
  };
  for (const [index, visitor] of visitors.entries()) {
    const prototype: unknown = Object.getPrototypeOf(visitor);
    if (prototype !== Object.prototype && prototype !== null) return null;
    const record = visitor as Record<string, unknown>;
    const every = handlersOf({ enter: record['enter'], leave: record['leave'] });
    if (every === null) return null;
    if (every.enter !== undefined || every.leave !== undefined) {
      for (const kind of KINDS) {
        const handlers = record[kind] === undefined ? every : handlersOf(record[kind]);
        if (handlers === null) return null;
        add(kind, index, handlers);
      }
      continue;
    }
    for (const key of Object.keys(record)) {
      if (!KINDS.has(key)) continue;
      const handlers = handlersOf(record[key]);
      if (handlers === null) return null;
      add(key, index, handlers);
    }
  }
  return kinds;
}

/**
 * `visitors` merged into one, walked as `visitInParallel(visitors)` walks them; built in
 * time linear in the visitors' own keys.
 */
export function mergeVisitors(visitors: readonly ASTVisitor[]): ASTVisitor {
  const kinds = byKind(visitors);
  if (kinds === null) return visitInParallel(visitors);
  // Per visitor: null, the node whose subtree it skips, or BREAK.
  const skipping: unknown[] = visitors.map(() => null);
  const merged: Record<string, { enter(...args: unknown[]): unknown; leave(...args: unknown[]): unknown }> =
    Object.create(null) as Record<string, never>;
  for (const [kind, handlers] of kinds) {
    const { visitors: indexes, enter, leave } = handlers;
    merged[kind] = {
      enter(...args: unknown[]): unknown {
        const node = args[0] as ASTNode;
        for (let at = 0; at < indexes.length; at += 1) {
          const index = indexes[at] as number;
          if (skipping[index] !== null) continue;
          const result = enter[at]?.apply(visitors[index] as ASTVisitor, args);
          if (result === false) skipping[index] = node;
          else if (result === BREAK) skipping[index] = BREAK;
          else if (result !== undefined) return result;
        }
        return undefined;
      },
      leave(...args: unknown[]): unknown {
        const node = args[0] as ASTNode;
        for (let at = 0; at < indexes.length; at += 1) {
          const index = indexes[at] as number;
          if (skipping[index] === null) {
            const result = leave[at]?.apply(visitors[index] as ASTVisitor, args);
            if (result === BREAK) skipping[index] = BREAK;
            else if (result !== undefined && result !== false) return result;
          } else if (skipping[index] === node) skipping[index] = null;
        }
        return undefined;
      },
    };
  }
  return merged as ASTVisitor;
}

/**
 * `rules` as one validation rule, for graphql-js's `validate` (whose own merge then has one
 * visitor to ask): the same errors, in the same order, as `validate` with `rules`.
 */
export function mergedRule(rules: readonly ValidationRule[]): ValidationRule {
  return (context: ValidationContext) => mergeVisitors(rules.map((rule) => rule(context)));
}
