import type { ApolloServerPlugin } from '@apollo/server';
import type { GatewayContext } from '../domains/gateway-context';
import { checkOperationBounds } from './bounds';
import { OperationMemo } from './operation-memo';

/**
 * Apollo plugin that rejects an operation with `BAD_USER_INPUT` (HTTP 400) when any
 * bounded argument is out of range, after validation and before execution: no
 * upstream request is made for an operation with bad input.
 */
export function boundsPlugin(): ApolloServerPlugin<GatewayContext> {
  // Only "within bounds" is remembered: a violation is built afresh for every request.
  const memo = new OperationMemo<ReturnType<typeof checkOperationBounds>>();
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, operation, request, queryHash }) {
          if (!operation) return;
          const error = memo.get(
            { queryHash, operation, variables: request.variables },
            () => checkOperationBounds(schema, document, operation, request.variables),
            (result) => result === null,
          );
          if (error) throw error;
        },
      };
    },
  };
}
