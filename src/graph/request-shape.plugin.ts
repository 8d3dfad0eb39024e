import type { ApolloServerPlugin } from '@apollo/server';
import { OperationTypeNode } from 'graphql';
import type { GatewayContext } from '../domains/gateway-context';
import { GatewayError } from '../errors/gateway-error';
import { declaredVariables } from './operation-memo';

/**
 * Apollo plugin, first of the gateway's: once the operation is known, it
 *
 * - keeps only the variables the operation declares (graphql-js ignores the others;
 *   dropping them here means no later step, such as the response cache's key, ever
 *   serializes them), and
 * - refuses a subscription operation with `BAD_REQUEST` (HTTP 400): subscriptions are
 *   not served by `POST`/`GET /graphql`.
 */
export function requestShapePlugin(): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, request }) {
          if (!operation) return;
          if (operation.operation === OperationTypeNode.SUBSCRIPTION) {
            throw new GatewayError('BAD_REQUEST', 'Subscription operations are not served over POST or GET /graphql: subscribe over WebSocket (graphql-transport-ws) at /graphql or over Server-Sent Events at /graphql/stream.', {}, 400);
          }
          if (request.variables) request.variables = declaredVariables(operation, request.variables);
        },
      };
    },
  };
}
