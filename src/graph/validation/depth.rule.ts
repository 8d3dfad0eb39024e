import { Kind } from 'graphql';
import type { ASTVisitor, FragmentDefinitionNode, SelectionSetNode, ValidationContext, ValidationRule } from 'graphql';
import { GatewayError } from '../../errors/gateway-error';
import { spreadNames, STOP_VALIDATION } from '../../field-rules/operation-fragments';

/** Limits of {@link depthLimitRule}. */
export interface DepthLimits {
  /** Deepest operation accepted (`MAX_DEPTH`). */
  maxDepth: number;
  /** The upstream-cost limit, quoted in the error's extensions (`MAX_UPSTREAM_REQUESTS`). */
  maxCost: number;
}

/**
 * A graphql-js validation rule: an operation deeper than `maxDepth` fails validation
 * with `QUERY_TOO_EXPENSIVE` (HTTP 400, extensions `{depth, maxDepth, cost: null,
 * maxCost}`), so Apollo checks each document once (its document store keeps only
 * documents that passed) and no upstream request is made.
 *
 * Depth is the longest chain of nested fields, fragments expanded, introspection fields
 * (`__schema`, `__type`, `__typename`) left out: GraphiQL's and codegen's introspection
 * queries are deep by nature and never reach the upstream. Each fragment's depth is
 * computed once and reused wherever it is spread, so the check is linear in the
 * document's size however often fragments spread each other. A refused document is not
 * validated further (see `STOP_VALIDATION`).
 */
export function depthLimitRule(limits: DepthLimits): ValidationRule {
  return (context: ValidationContext): ASTVisitor => ({
    Document(document) {
      const fragments = new Map<string, FragmentDefinitionNode>();
      for (const definition of document.definitions) {
        if (definition.kind === Kind.FRAGMENT_DEFINITION && !fragments.has(definition.name.value))
          fragments.set(definition.name.value, definition);
      }
      const depths = fragmentDepths(fragments);
      let refused = false;
      for (const definition of document.definitions) {
        if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
        const depth = selectionDepth(definition.selectionSet, depths);
        if (depth > limits.maxDepth) {
          refused = true;
          context.reportError(
            new GatewayError(
              'QUERY_TOO_EXPENSIVE',
              `The operation is ${depth} levels deep; at most ${limits.maxDepth} are allowed.`,
              { depth, maxDepth: limits.maxDepth, cost: null, maxCost: limits.maxCost },
              400,
            ),
          );
        }
      }
      // The whole document is measured here; a refused one is not walked by any rule.
      return refused ? STOP_VALIDATION : false;
    },
  });
}

/**
 * The depth of every fragment, each computed once, in dependency order (an explicit
 * stack, so a long chain of fragments cannot overflow the call stack). A spread of a
 * fragment on the current path (a cycle, which graphql-js reports) counts 0.
 */
function fragmentDepths(fragments: ReadonlyMap<string, FragmentDefinitionNode>): Map<string, number> {
  const depths = new Map<string, number>();
  const entered = new Set<string>();
  for (const start of fragments.keys()) {
    const stack = [start];
    while (stack.length > 0) {
      const name = stack[stack.length - 1] ?? '';
      const fragment = fragments.get(name);
      if (!fragment || depths.has(name)) {
        stack.pop();
        continue;
      }
      if (!entered.has(name)) {
        entered.add(name);
        for (const spread of spreadNames(fragment.selectionSet)) {
          if (!depths.has(spread) && !entered.has(spread)) stack.push(spread);
        }
        continue;
      }
      depths.set(name, selectionDepth(fragment.selectionSet, depths));
      stack.pop();
    }
  }
  return depths;
}

/** The depth of a selection set, with the depths of the fragments it spreads already known (unknown: 0). */
function selectionDepth(
  selectionSet: SelectionSetNode | undefined,
  fragmentDepth: ReadonlyMap<string, number>,
): number {
  let deepest = 0;
  for (const selection of selectionSet?.selections ?? []) {
    if (selection.kind === Kind.FIELD) {
      if (!selection.name.value.startsWith('__'))
        deepest = Math.max(deepest, 1 + selectionDepth(selection.selectionSet, fragmentDepth));
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      deepest = Math.max(deepest, selectionDepth(selection.selectionSet, fragmentDepth));
    } else {
      deepest = Math.max(deepest, fragmentDepth.get(selection.name.value) ?? 0);
    }
  }
  return deepest;
}
