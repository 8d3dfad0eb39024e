import type { ApolloServerPlugin } from '@apollo/server';
import type { GatewayContext } from '../context';
import { checkOperationBounds } from './bounds';

/**
 * Apollo plugin that rejects an operation with `BAD_USER_INPUT` (HTTP 400) when any
 * bounded argument is out of range, after validation and before execution: no
 * upstream request is made for an operation with bad input.
 */
export function boundsPlugin(): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, operation, request }) {
          if (!operation) return;
          const error = checkOperationBounds(schema, document, operation, request.variables);
          if (error) throw error;
        },
      };
    },
  };
}
