import type { ApolloServerPlugin } from '@apollo/server';
import type { GraphQLFormattedError } from 'graphql';
import type { GatewayContext } from '../domains/gateway-context';

/**
 * Apollo plugin that adds the operation's list-item errors (see `ListItemErrors`) to
 * the response's `errors`. It must come before the response-cache plugin: it adds them
 * synchronously, so that plugin sees a response with errors and never stores it.
 */
export function listItemErrorsPlugin(
  formatError: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError,
): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart() {
      return {
        willSendResponse({ response, contextValue }) {
          const itemErrors = contextValue.itemErrors;
          if (itemErrors.size === 0 || response.body.kind !== 'single') return Promise.resolve();
          const result = response.body.singleResult;
          result.errors = [...(result.errors ?? []), ...itemErrors.formatted(formatError)];
          return Promise.resolve();
        },
      };
    },
  };
}
