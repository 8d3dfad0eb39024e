import type { ApolloServerPlugin } from '@apollo/server';
import { getVariableValues } from 'graphql';
import type { CostAssumptions } from '../config';
import type { GatewayContext } from '../context';
import { GatewayError } from '../errors/gateway-error';
import { estimateCost, operationDepth } from './cost';
import { OperationMemo } from './operation-memo';

/** Limits of {@link costPlugin}. */
export interface CostLimits {
  maxUpstreamRequests: number;
  maxDepth: number;
  assumptions: CostAssumptions;
}

/**
 * Apollo plugin that rejects an operation with `QUERY_TOO_EXPENSIVE` (HTTP 400,
 * extensions `{cost, maxCost}`, plus `{depth, maxDepth}` for depth) when its
 * worst-case upstream cost or its depth is over the limit. It runs after validation
 * and before execution, so a rejected operation makes no upstream request.
 */
export function costPlugin(limits: CostLimits): ApolloServerPlugin<GatewayContext> {
  // Depth and cost depend only on the document, the operation and the variables: each
  // distinct request is walked once, not on every execution or response-cache hit.
  const memo = new OperationMemo<{ depth: number; cost: number } | null>();
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, operation, request }) {
          if (!operation) return;
          const measured = memo.get(document, request.operationName, request.variables, () => {
            // Variables that do not coerce are the executor's to report (BAD_USER_INPUT).
            if (getVariableValues(schema, operation.variableDefinitions ?? [], request.variables ?? {}).errors) return null;
            const depth = operationDepth(document, operation);
            try {
              return { depth, cost: estimateCost(schema, document, request.operationName ?? undefined, request.variables, limits.assumptions) };
            } catch (error) {
              if (!(error instanceof Error && /maximum allowed number of nodes/.test(error.message))) return null;
              return { depth, cost: Number.POSITIVE_INFINITY }; // more nodes than the estimator will walk
            }
          });
          if (!measured) return;
          const { depth, cost } = measured;
          const extensions = { cost: Number.isFinite(cost) ? cost : null, maxCost: limits.maxUpstreamRequests, depth, maxDepth: limits.maxDepth };
          if (depth > limits.maxDepth) {
            throw new GatewayError('QUERY_TOO_EXPENSIVE', `The operation is ${depth} levels deep; at most ${limits.maxDepth} are allowed.`, extensions, 400);
          }
          if (cost > limits.maxUpstreamRequests) {
            throw new GatewayError(
              'QUERY_TOO_EXPENSIVE',
              `The operation could cause up to ${Number.isFinite(cost) ? cost : 'too many'} upstream requests; at most ${limits.maxUpstreamRequests} are allowed. Ask for fewer fields or aliases.`,
              extensions,
              400,
            );
          }
        },
      };
    },
  };
}
