/**
 * The cost step's arithmetic: the worst-case upstream cost of one operation with its
 * variables (see src/graph/cost.ts), and the error of a cost over `MAX_UPSTREAM_REQUESTS`.
 */
import { getVariableValues } from 'graphql';
import type { DocumentNode, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import type { ComplexityEstimator } from 'graphql-query-complexity';
import { GatewayError } from '../errors/gateway-error';
import { operationCost, upstreamCostEstimator } from '../graph/cost';
import type { CostAssumptions } from '../config';

/**
 * The worst-case upstream cost of one operation with its variables, in upstream
 * requests, or null when the variables do not coerce (the executor reports that as
 * `BAD_USER_INPUT`).
 */
export function measureCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>> | null | undefined,
  estimators: ComplexityEstimator[],
): number | null {
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
  return characters > 1 ? [upstreamCostEstimator(settings.costAssumptions, settings.optionSlots, characters)] : estimators;
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
