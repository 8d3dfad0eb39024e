import type { ApolloServerPlugin } from '@apollo/server';
import type { Logger } from 'pino';
import type { GatewayContext } from '../domains/gateway-context';
import type { UpstreamAccounting } from '../economy';
import { onUpstreamFailure } from '../upstream/failure-reports';
import type { UpstreamFailureReport } from '../upstream/failure-reports';
import type { GatewayMetrics } from './metrics';

/** How an operation ended: `rejected` when it was refused before execution. */
export type OperationOutcome = 'success' | 'partial' | 'error' | 'rejected';
type Outcome = OperationOutcome;

/** One finished operation, as {@link reportOperation} counts and logs it. */
export interface OperationReport {
  /** The operation's name, null when anonymous or unknown. */
  operationName: string | null;
  /** How it ended. */
  outcome: OperationOutcome;
  /** From its request (or subscribe message) to its answer, ms. */
  durationMs: number;
  /** Its upstream accounting (`extensions.upstream`; all 0 when it was refused before it had a session). */
  upstream: UpstreamAccounting;
  /** Fields built from stale data. */
  stale: number;
  /** Its errors' codes (each once). */
  errorCodes: string[];
  /** The key's HMAC id, null without a key. */
  keyId: string | null;
  /** `graphql-ws` or `graphql-sse`; absent over HTTP. */
  transport?: 'graphql-ws' | 'graphql-sse';
}

/**
 * Counts one operation in the metrics by outcome and latency and logs its line
 * (`graphql operation`) with the first characters of the hashed key, never the key. The
 * HTTP plugin below and the subscription transports report through it.
 */
export function reportOperation(metrics: GatewayMetrics, logger: Logger, report: OperationReport): void {
  metrics.operation(report.outcome, report.durationMs);
  logger.info(
    {
      operationName: report.operationName,
      ...(report.transport ? { transport: report.transport } : {}),
      outcome: report.outcome,
      durationMs: Math.round(report.durationMs * 10) / 10,
      upstream: report.upstream,
      stale: report.stale,
      errorCodes: report.errorCodes,
      key: report.keyId?.slice(0, 8) ?? null,
    },
    'graphql operation',
  );
}

/** The codes of `errors`, each once (`INTERNAL_SERVER_ERROR` for an error without one). */
export function errorCodesOf(errors: ReadonlyArray<{ readonly extensions?: { readonly code?: unknown } }> | undefined): string[] {
  return [...new Set((errors ?? []).map((error) => String(error.extensions?.code ?? 'INTERNAL_SERVER_ERROR')))];
}

/**
 * Apollo plugin that, for every operation:
 * - lists the fields whose result was built from stale data (`extensions.stale`; the
 *   schema's resolvers note them, see src/graph/stale-fields.ts);
 * - adds `extensions.upstream = {requests, cacheHits, coalesced, stale, maxAgeSeconds}`, and
 *   `extensions.responseCache = {hit: true, ageSeconds}` when the whole response came
 *   from the per-key response cache;
 * - counts the operation in the metrics by outcome and latency;
 * - logs one line: operation name, duration, outcome, upstream accounting, error codes
 *   and the first characters of the hashed key (never the key or secret);
 * - while the server runs, logs every failed upstream request (of an operation, a
 *   subscription poll or background work) with its whole cause (see {@link logUpstreamFailure}).
 */
export function operationPlugin(metrics: GatewayMetrics, logger: Logger): ApolloServerPlugin<GatewayContext> {
  return {
    async serverWillStart() {
      const unsubscribe = onUpstreamFailure((report) => logUpstreamFailure(logger, report));
      return {
        async serverWillStop() {
          unsubscribe();
        },
      };
    },
    async requestDidStart() {
      const started = performance.now();
      let executed = false;
      return {
        async executionDidStart(requestContext) {
          executed = true;
          return {
            async executionDidEnd() {
              // A whole-response cache may keep this response only as long as every
              // upstream answer it used stays fresh, only for this key, and never when
              // stale data went into it.
              const accounting = requestContext.contextValue.session.accounting;
              const freshFor = accounting.stale > 0 ? 0 : accounting.freshForMs;
              requestContext.overallCachePolicy.restrict({
                scope: 'PRIVATE',
                ...(freshFor !== null ? { maxAge: Math.floor(freshFor / 1000) } : {}),
              });
            },
          };
        },
        async willSendResponse({ response, contextValue, operationName, errors, metrics: requestMetrics }) {
          const accounting = contextValue.session.accounting;
          accounting.responseCacheHit = requestMetrics.responseCacheHit === true;
          const responseAgeSeconds = accounting.responseCacheHit ? Number(response.http.headers.get('age') ?? 0) : 0;
          if (accounting.responseCacheHit) {
            accounting.noteAge(responseAgeSeconds * 1000);
            metrics.servedFromResponseCache(responseAgeSeconds);
          }
          if (response.body.kind === 'single') {
            const result = response.body.singleResult;
            result.extensions = {
              ...result.extensions,
              upstream: accounting.toJSON(),
              ...(accounting.staleFields.length > 0 ? { stale: accounting.staleFields } : {}),
              ...(accounting.responseCacheHit ? { responseCache: { hit: true, ageSeconds: responseAgeSeconds } } : {}),
            };
          }
          const hasErrors = (errors?.length ?? 0) > 0;
          const hasData = response.body.kind === 'single' && response.body.singleResult.data != null;
          const outcome: Outcome = accounting.responseCacheHit ? 'success' : !executed ? 'rejected' : !hasErrors ? 'success' : hasData ? 'partial' : 'error';
          reportOperation(metrics, logger, {
            operationName: operationName ?? null,
            outcome,
            durationMs: performance.now() - started,
            upstream: accounting.toJSON(),
            stale: accounting.staleFields.length,
            errorCodes: errorCodesOf(errors),
            keyId: contextValue.session.keyId,
          });
        },
      };
    },
  };
}

/**
 * One line per failed upstream request, `upstream request failed`, with `detail`: the
 * upstream's complete text (redacted, up to 16 KiB) or what was wrong with the answer,
 * which clients only see cut to 200 characters. `warn` when the upstream misbehaved
 * (`UPSTREAM_ERROR`, `UPSTREAM_TIMEOUT`), `info` when it refused the key or the request
 * (`UPSTREAM_BAD_REQUEST`, `FORBIDDEN`, `RATE_LIMITED`), `debug` for `NOT_FOUND` (an
 * empty counter or stock answers 404 in normal operation).
 */
function logUpstreamFailure(logger: Logger, report: UpstreamFailureReport): void {
  const level = report.code === 'UPSTREAM_ERROR' || report.code === 'UPSTREAM_TIMEOUT' ? 'warn' : report.code === 'NOT_FOUND' ? 'debug' : 'info';
  logger[level]({ code: report.code, endpoint: report.route, status: report.status, detail: report.detail, key: report.key }, 'upstream request failed');
}
