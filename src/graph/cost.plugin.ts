import type { ApolloServerPlugin } from '@apollo/server';
import { getVariableValues } from 'graphql';
import type { DocumentNode, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import type { ComplexityEstimator } from 'graphql-query-complexity';
import type { CostAssumptions } from '../config';
import type { GatewayContext } from '../domains/gateway-context';
import { GatewayError } from '../errors/gateway-error';
import { operationCost, upstreamCostEstimator } from './cost';
import { OperationMemo } from './operation-memo';

/** Limits of {@link costPlugin}. */
export interface CostLimits {
  maxUpstreamRequests: number;
  assumptions: CostAssumptions;
  /** Option slots `Factory.options` reads (`OPTION_SLOTS`; default 10). */
  optionSlots?: number;
}

/**
 * Apollo plugin that rejects an operation with `QUERY_TOO_EXPENSIVE` (HTTP 400,
 * extensions `{cost, maxCost}`) when its worst-case upstream cost is over the limit.
 * It runs after validation (where the depth limit is checked, see `depthLimitRule`)
 * and before execution, so a rejected operation makes no upstream request.
 */
export function costPlugin(limits: CostLimits): ApolloServerPlugin<GatewayContext> {
  // The cost depends only on the document, the operation and its variables: each
  // distinct request is walked once, not on every execution or response-cache hit.
  const memo = new OperationMemo<number | null>();
  const estimators = [upstreamCostEstimator(limits.assumptions, limits.optionSlots)];
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, operation, request, queryHash }) {
          if (!operation) return;
          const cost = memo.get({ queryHash, operation, variables: request.variables }, () => measureCost(schema, document, operation, request.variables, estimators));
          const error = costError(cost, limits);
          if (error) throw error;
        },
      };
    },
  };
}

/**
 * The worst-case upstream cost of one operation with its variables, or null when the
 * variables do not coerce (the executor reports that as `BAD_USER_INPUT`).
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
 * The `QUERY_TOO_EXPENSIVE` error (HTTP 400, extensions `{cost, maxCost}`) of a cost
 * over the limit, or null. For a subscription the cost is that of executing its
 * selection once, which happens for each event.
 */
export function costError(cost: number | null, limits: CostLimits): GatewayError | null {
  if (cost === null || cost <= limits.maxUpstreamRequests) return null;
  return new GatewayError(
    'QUERY_TOO_EXPENSIVE',
    `The operation could cause up to ${Number.isFinite(cost) ? cost : 'too many'} upstream requests; at most ${limits.maxUpstreamRequests} are allowed. Ask for fewer fields or aliases.`,
    { cost: Number.isFinite(cost) ? cost : null, maxCost: limits.maxUpstreamRequests },
    400,
  );
}
