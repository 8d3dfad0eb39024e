import type { ApolloServerPlugin } from '@apollo/server';
import { isLeafType, getNamedType, responsePathAsArray } from 'graphql';
import type { Logger } from 'pino';
import type { GatewayContext } from '../context';
import type { GatewayMetrics } from './metrics';

type Outcome = 'success' | 'partial' | 'error' | 'rejected';

/**
 * Apollo plugin that, for every operation:
 * - notes each field whose result was built from stale data (`extensions.stale`);
 * - adds `extensions.upstream = {requests, cacheHits, coalesced, stale}`;
 * - counts the operation in the metrics by outcome and latency;
 * - logs one line: operation name, duration, outcome, upstream accounting, error codes
 *   and the first characters of the hashed key (never the key or secret).
 */
export function operationPlugin(metrics: GatewayMetrics, logger: Logger): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart() {
      const started = performance.now();
      let executed = false;
      return {
        async executionDidStart() {
          executed = true;
          return {
            willResolveField({ info, contextValue }) {
              // Only object and list results can come from the upstream; leaves never do.
              if (isLeafType(getNamedType(info.returnType))) return undefined;
              return (_error, result) => {
                const stale = contextValue.session.staleInfo(result);
                if (stale) contextValue.session.accounting.staleFields.push({ path: responsePathAsArray(info.path), ...stale });
              };
            },
          };
        },
        async willSendResponse({ response, contextValue, operationName, errors }) {
          const accounting = contextValue.session.accounting;
          if (response.body.kind === 'single') {
            const result = response.body.singleResult;
            result.extensions = {
              ...result.extensions,
              upstream: accounting.toJSON(),
              ...(accounting.staleFields.length > 0 ? { stale: accounting.staleFields } : {}),
            };
          }
          const hasErrors = (errors?.length ?? 0) > 0;
          const hasData = response.body.kind === 'single' && response.body.singleResult.data != null;
          const outcome: Outcome = !executed ? 'rejected' : !hasErrors ? 'success' : hasData ? 'partial' : 'error';
          const durationMs = performance.now() - started;
          metrics.operation(outcome, durationMs);
          logger.info(
            {
              operationName: operationName ?? null,
              outcome,
              durationMs: Math.round(durationMs * 10) / 10,
              upstream: accounting.toJSON(),
              stale: accounting.staleFields.length,
              errorCodes: [...new Set((errors ?? []).map((error) => String(error.extensions?.code ?? 'INTERNAL_SERVER_ERROR')))],
              key: contextValue.session.keyId?.slice(0, 8) ?? null,
            },
            'graphql operation',
          );
        },
      };
    },
  };
}
