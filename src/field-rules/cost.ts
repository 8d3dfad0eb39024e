/**
 * A field's upstream cost, from its declaration to the refusal of an operation that costs too much:
 * - domains declare on each field what resolving it costs ({@link UpstreamCost}, read back by {@link upstreamCostOf});
 * - {@link upstreamCostEstimator} and {@link operationCost} sum the worst case of one operation, before execution;
 * - the cost step of the pipeline measures it with the request's variables ({@link measureCost}) and refuses
 *   what is over `MAX_UPSTREAM_REQUESTS` ({@link costError}).
 * One module, below the domains (which declare with it) and the graph and pipeline (which sum and check with it).
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
import type {
  DocumentNode,
  FragmentDefinitionNode,
  GraphQLCompositeType,
  GraphQLSchema,
  OperationDefinitionNode,
  SelectionNode,
  SelectionSetNode,
} from 'graphql';
import type { ComplexityEstimator } from 'graphql-query-complexity';
import { Extensions } from 'type-graphql';
import { DEFAULT_CONFIG } from '../config';
import type { CostAssumptions } from '../config';
import { GatewayError } from '../errors/gateway-error';
import { fragmentMeasure, operationFragments } from './operation-fragments';

/** What one field costs: its own upstream requests, and the list size its children repeat over. */
export interface FieldCost {
  /** Its own upstream requests: a number, or `'optionSlots'` for one request per option slot (`OPTION_SLOTS`). */
  readonly requests: number | 'optionSlots';
  /** For a list field: the `COST_ASSUMED_*` size (number of items) its children's cost is multiplied by; absent for a single object (×1). */
  readonly list?: keyof CostAssumptions;
  /**
   * What an access token over several characters makes of it (absent: the same as with one
   * key): `each`, the whole field once per character (a root list merged across the
   * characters' keys: `factories`, `buildings`, the auction lists); `find`, its own requests
   * once per character and what is below once (an id looked up in every key's list:
   * `factory(id)`, `building(id)`); `owner`, one more request per character (a write that
   * first finds which key's list holds its company).
   */
  readonly perCharacter?: 'each' | 'find' | 'owner';
}

const UPSTREAM_COST = 'upstreamCost';

/**
 * Declares a field's upstream cost on the field itself (a TypeGraphQL `@Extensions`):
 * the requests resolving it makes, and, for a list of companies, buildings, bank
 * accounts or rooms, the assumed size its children repeat over. A field without it
 * costs nothing of its own (it is read from its parent's answer).
 */
export function UpstreamCost(cost: FieldCost): ReturnType<typeof Extensions> {
  return Extensions({ [UPSTREAM_COST]: cost });
}

/** The upstream cost declared on a field, if any. */
export function upstreamCostOf(field: {
  readonly extensions: Readonly<Record<string, unknown>>;
}): FieldCost | undefined {
  const cost = field.extensions[UPSTREAM_COST];
  return cost && typeof cost === 'object' ? (cost as FieldCost) : undefined;
}

// The worst case of one operation.
// The worst-case upstream cost of an operation, computed before execution.
//
// Every field occurrence counts (aliases and repeated fragments count again: no credit
// for the deduplication that would happen at run time, which is what stops alias
// amplification). A field that needs an upstream request costs its requests; a list of
// companies, buildings, bank accounts or rooms multiplies what is below it by the
// assumed list size. The estimator follows graphql-query-complexity's interface;
// {@link operationCost} walks the document once.
/**
 * A graphql-query-complexity estimator reading {@link UpstreamCost}: own requests + list
 * size × children. `optionSlots` is the configured number of option slots (`OPTION_SLOTS`).
 * `characters` is the number of characters the operation runs over (an access token over
 * several): a field declared `perCharacter` makes that many times its requests (see
 * `FieldCost.perCharacter`), as it does at run time, one request per key.
 */
export function upstreamCostEstimator(
  assumptions: CostAssumptions,
  optionSlots = DEFAULT_CONFIG.optionSlots,
  characters = 1,
): ComplexityEstimator {
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
      const definition =
        directive.name.value === 'include'
          ? GraphQLIncludeDirective
          : directive.name.value === 'skip'
            ? GraphQLSkipDirective
            : null;
      if (!definition) continue;
      const condition = getDirectiveValues(definition, node, variables)?.if;
      if (typeof condition === 'boolean' && condition === (definition === GraphQLSkipDirective)) return false;
    }
    return true;
  };
  const typeNames = (type: GraphQLCompositeType): string[] =>
    isAbstractType(type) ? schema.getPossibleTypes(type).map((t) => t.name) : [type.name];
  const add = (sums: Map<string, number>, names: readonly string[], value: number): void => {
    for (const name of names) sums.set(name, (sums.get(name) ?? 0) + value);
  };
  // Unknown, cyclic or not composite: 0 (validation reports it).
  const fragmentCost = fragmentMeasure(schema, fragments, (fragment, type) =>
    isCompositeType(type) ? selectionCost(fragment.selectionSet, type) : 0,
  );
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
        const childComplexity =
          selection.selectionSet && isCompositeType(fieldType) ? selectionCost(selection.selectionSet, fieldType) : 0;
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

// The cost step's arithmetic.
// The cost step's arithmetic: the worst-case upstream cost of one operation with its
// variables (above), and the error of a cost over `MAX_UPSTREAM_REQUESTS`.
/**
 * The worst-case upstream cost of one operation with its variables, in upstream
 * requests, or null when the variables do not coerce (the pipeline's `variables` step
 * refuses that as `BAD_USER_INPUT`).
 *
 * @param coercedVariables - `variables` coerced to their declared types, when already done (else coerced here)
 */
export function measureCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>> | null | undefined,
  estimators: ComplexityEstimator[],
  coercedVariables?: Record<string, unknown>,
): number | null {
  if (coercedVariables) return operationCost(schema, document, operation, coercedVariables, estimators);
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {});
  return coerced.errors ? null : operationCost(schema, document, operation, coerced.coerced, estimators);
}

/**
 * The estimators of an operation over `characters` characters (an access token over
 * several: a merged root list costs one request per character's key, see
 * `FieldCost.perCharacter`); the gateway's own (`estimators`) for one.
 */
export function estimatorsFor(
  characters: number,
  estimators: ComplexityEstimator[],
  settings: { readonly costAssumptions: CostAssumptions; readonly optionSlots: number },
): ComplexityEstimator[] {
  return characters > 1
    ? [upstreamCostEstimator(settings.costAssumptions, settings.optionSlots, characters)]
    : estimators;
}

/** The query hash a cost is remembered by: per number of characters, since the cost depends on it. */
export function costMemoHash(queryHash: string, characters: number): string {
  return characters > 1 ? `${queryHash}\u0000${characters}` : queryHash;
}

/**
 * The `QUERY_TOO_EXPENSIVE` error (HTTP 400, extensions `{cost, maxCost}`) of a cost
 * over `limits.maxUpstreamRequests`, or null. For a subscription the cost is that of
 * executing its selection once, which happens for each event.
 */
export function costError(cost: number | null, limits: { readonly maxUpstreamRequests: number }): GatewayError | null {
  if (cost === null || cost <= limits.maxUpstreamRequests) return null;
  return new GatewayError(
    'QUERY_TOO_EXPENSIVE',
    `The operation could cause up to ${Number.isFinite(cost) ? cost : 'too many'} upstream requests; at most ${limits.maxUpstreamRequests} are allowed. Ask for fewer fields or aliases.`,
    { cost: Number.isFinite(cost) ? cost : null, maxCost: limits.maxUpstreamRequests },
    400,
  );
}
