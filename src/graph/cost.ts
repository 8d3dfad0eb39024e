/**
 * The worst-case upstream cost of an operation, computed before execution.
 *
 * Every field occurrence counts (aliases and repeated fragments count again: no credit
 * for the deduplication that would happen at run time, which is what stops alias
 * amplification). A field that needs an upstream request costs its requests; a list of
 * companies, buildings, bank accounts or rooms multiplies what is below it by the
 * assumed list size. The estimator follows graphql-query-complexity's interface;
 * {@link operationCost} walks the document once.
 */
import {
  getArgumentValues,
  getDirectiveValues,
  getNamedType,
  getOperationAST,
  getVariableValues,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  isAbstractType,
  isCompositeType,
  isInterfaceType,
  isObjectType,
  Kind,
} from 'graphql';
import type { DocumentNode, FragmentDefinitionNode, GraphQLCompositeType, GraphQLSchema, OperationDefinitionNode, SelectionNode, SelectionSetNode } from 'graphql';
import type { ComplexityEstimator } from 'graphql-query-complexity';
import { DEFAULT_CONFIG } from '../config';
import type { CostAssumptions } from '../config';
import { upstreamCostOf } from '../field-rules/cost';
import { fragmentMeasure, operationFragments } from './operation-fragments';

/**
 * A graphql-query-complexity estimator reading {@link UpstreamCost}: own requests + list
 * size × children. `optionSlots` is the configured number of option slots (`OPTION_SLOTS`).
 * `characters` is the number of characters the operation runs over (an access token over
 * several): a field declared `perCharacter` makes that many times its requests (see
 * `FieldCost.perCharacter`), as it does at run time, one request per key.
 */
export function upstreamCostEstimator(assumptions: CostAssumptions, optionSlots = DEFAULT_CONFIG.optionSlots, characters = 1): ComplexityEstimator {
  return ({ field, childComplexity }) => {
    const cost = upstreamCostOf(field);
    if (!cost) return childComplexity;
    const requests = cost.requests === 'optionSlots' ? optionSlots : cost.requests;
    const below = (cost.list ? assumptions[cost.list] : 1) * childComplexity;
    if (characters <= 1 || !cost.perCharacter) return requests + below;
    if (cost.perCharacter === 'each') return characters * (requests + below);
    if (cost.perCharacter === 'find') return characters * requests + below;
    return requests + characters + below;
  };
}

/**
 * The worst-case number of upstream requests of one operation, with the semantics of
 * graphql-query-complexity's `getComplexity` (the estimators are called per field with
 * its child complexity; on an abstract type the most expensive possible type counts;
 * `@skip`/`@include` honoured), but linear in the document's size: each fragment's
 * complexity is computed once per call and reused at every spread of it, where the
 * library expands every spread again (exponential for fragments that spread each
 * other several times).
 *
 * @param variables - the operation's coerced variable values
 */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>>,
  estimators: readonly ComplexityEstimator[],
): number {
  const root = schema.getRootType(operation.operation);
  if (!root) return 0;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const fragment of operationFragments(document, operation)) fragments.set(fragment.name.value, fragment);

  const included = (node: SelectionNode): boolean => {
    for (const directive of node.directives ?? []) {
      const definition = directive.name.value === 'include' ? GraphQLIncludeDirective : directive.name.value === 'skip' ? GraphQLSkipDirective : null;
      if (!definition) continue;
      const condition = getDirectiveValues(definition, node, variables)?.if;
      if (typeof condition === 'boolean' && condition === (definition === GraphQLSkipDirective)) return false;
    }
    return true;
  };
  const typeNames = (type: GraphQLCompositeType): string[] => (isAbstractType(type) ? schema.getPossibleTypes(type).map((t) => t.name) : [type.name]);
  const add = (sums: Map<string, number>, names: readonly string[], value: number): void => {
    for (const name of names) sums.set(name, (sums.get(name) ?? 0) + value);
  };
  // Unknown, cyclic or not composite: 0 (validation reports it).
  const fragmentCost = fragmentMeasure(schema, fragments, (fragment, type) => (isCompositeType(type) ? selectionCost(fragment.selectionSet, type) : 0));
  function selectionCost(selectionSet: SelectionSetNode, type: GraphQLCompositeType): number {
    const fields = isObjectType(type) || isInterfaceType(type) ? type.getFields() : {};
    const own = typeNames(type);
    const sums = new Map<string, number>();
    for (const selection of selectionSet.selections) {
      if (!included(selection)) continue;
      if (selection.kind === Kind.FIELD) {
        const field = fields[selection.name.value];
        if (!field) continue; // introspection or unknown: no upstream cost
        const fieldType = getNamedType(field.type);
        const childComplexity = selection.selectionSet && isCompositeType(fieldType) ? selectionCost(selection.selectionSet, fieldType) : 0;
        let args: Record<string, unknown> = {};
        try {
          args = getArgumentValues(field, selection, variables);
        } catch {
          // a bad argument is the executor's to report
        }
        for (const estimator of estimators) {
          const value = estimator({ type, field, node: selection, args, childComplexity, context: undefined });
          if (typeof value === 'number' && !Number.isNaN(value)) {
            add(sums, own, value);
            break;
          }
        }
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const inner = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : type;
        if (isCompositeType(inner)) add(sums, typeNames(inner), selectionCost(selection.selectionSet, inner));
      } else {
        const fragment = fragments.get(selection.name.value);
        const inner = fragment ? schema.getType(fragment.typeCondition.name.value) : undefined;
        if (isCompositeType(inner)) add(sums, typeNames(inner), fragmentCost(selection.name.value));
      }
    }
    return Math.max(0, ...sums.values());
  }
  return selectionCost(operation.selectionSet, root);
}

/** {@link operationCost} of a document's operation (by name, or its only one) with default estimators; 0 when there is none. */
export function estimateCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
  variables: Record<string, unknown> | undefined,
  assumptions: CostAssumptions,
): number {
  const operation = getOperationAST(document, operationName);
  if (!operation) return 0;
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {});
  return operationCost(schema, document, operation, coerced.coerced ?? {}, [upstreamCostEstimator(assumptions)]);
}
