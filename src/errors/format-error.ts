import type { GraphQLFormattedError } from 'graphql';
import { GraphQLError } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import { isGatewayError } from './gateway-error';

/**
 * Apollo Server's `formatError`: passes through the gateway's own errors and the
 * errors graphql-js and Apollo raise about the request itself (syntax, validation,
 * variable coercion), and masks everything else as `INTERNAL_SERVER_ERROR`, as
 * envelop's `useMaskedErrors` does, so no internal message or stack leaks.
 *
 * When to use: pass it to `new ApolloServer({ formatError })`; nothing else calls it.
 */
export function formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const original = unwrapResolverError(error);
  if (isGatewayError(original)) return formatted;
  // A gateway error raised by a validation rule (the depth limit): Apollo wraps it as
  // GRAPHQL_VALIDATION_FAILED; the client gets the gateway's own code and extensions.
  if (original instanceof GraphQLError && isGatewayError(original.originalError)) {
    const { http: _http, ...extensions } = original.originalError.extensions;
    return { ...formatted, message: original.originalError.message, extensions };
  }
  // graphql-js and Apollo raise GraphQLErrors about the request itself (syntax,
  // validation, variables), sometimes wrapping another GraphQLError; those are meant
  // for the client. A GraphQLError wrapping any other error hides an unexpected failure.
  if (original instanceof GraphQLError && (!original.originalError || original.originalError instanceof GraphQLError)) {
    return formatted;
  }
  const stacktrace = formatted.extensions?.stacktrace;
  return {
    message: 'Internal server error',
    ...(formatted.locations ? { locations: formatted.locations } : {}),
    ...(formatted.path ? { path: formatted.path } : {}),
    extensions: { code: 'INTERNAL_SERVER_ERROR', ...(stacktrace ? { stacktrace } : {}) },
  };
}
