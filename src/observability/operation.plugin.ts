import type { ApolloServerPlugin, GraphQLRequestContext } from '@apollo/server';
import type { Logger } from 'pino';
import type { GatewayContext } from '../domains/gateway-context';
import { OperationAccounting } from '../economy';
import type { UpstreamAccounting } from '../economy';
import type { HttpResultReport } from '../pipeline/http-result-phase';
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
  /** The access token's id (`tok_…`, never the token) when one was used. */
  tokenId?: string | null;
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
  if (report.tokenId) metrics.tokenUsed(report.tokenId);
  // The line's object is not built when it would not be written (LOG_LEVEL above info).
  if (logger.isLevelEnabled('info')) logOperation(logger, report);
}

/** The `graphql operation` line of {@link reportOperation}. */
function logOperation(logger: Logger, report: OperationReport): void {
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
      ...(report.tokenId ? { token: report.tokenId } : {}),
    },
    'graphql operation',
  );
}

/** The upstream accounting of an operation refused before it had a session: all 0. */
export const NO_UPSTREAM: UpstreamAccounting = Object.freeze(new OperationAccounting().toJSON());

/**
 * The report of an HTTP request the request pipeline refused before Apollo saw it
 * (`RequestPipeline.refuse`): counted and logged as `rejected`, as the streaming
 * transports report theirs (no name, key or upstream work is known yet).
 */
export function reportRefusal(
  metrics: GatewayMetrics,
  logger: Logger,
): (refusal: { errorCodes: string[]; durationMs: number }) => void {
  return ({ errorCodes, durationMs }) =>
    reportOperation(metrics, logger, {
      operationName: null,
      outcome: 'rejected',
      durationMs,
      upstream: NO_UPSTREAM,
      stale: 0,
      errorCodes,
      keyId: null,
    });
}

/**
 * The `report` step of the result phase over HTTP (`RequestPipeline.resultPhase`): counts
 * the operation in the metrics by outcome and latency (and a whole response from the
 * response cache by its age) and logs one line: operation name, duration, outcome,
 * upstream accounting, the codes of the errors sent (list-item errors included) and the
 * first characters of the hashed key (never the key or secret).
 */
export function reportHttpOperation(metrics: GatewayMetrics, logger: Logger): (report: HttpResultReport) => void {
  return ({ result, errorCodes, context, operationName, executed, durationMs, responseCacheAgeSeconds }) => {
    if (responseCacheAgeSeconds !== null) metrics.servedFromResponseCache(responseCacheAgeSeconds);
    const hasErrors = errorCodes.length > 0;
    const outcome: Outcome =
      responseCacheAgeSeconds !== null
        ? 'success'
        : !executed
          ? 'rejected'
          : !hasErrors
            ? 'success'
            : result.data != null
              ? 'partial'
              : 'error';
    const tokenId = context.token?.id ?? null;
    metrics.operation(outcome, durationMs);
    if (tokenId) metrics.tokenUsed(tokenId);
    // As reportOperation, without building the report when its line would not be written.
    if (!logger.isLevelEnabled('info')) return;
    const accounting = context.session.accounting;
    logOperation(logger, {
      operationName,
      outcome,
      durationMs,
      upstream: accounting.toJSON(),
      stale: accounting.staleFields.length,
      errorCodes,
      keyId: context.session.keyId,
      tokenId,
    });
  };
}

/**
 * After an operation executed: a whole-response cache may keep its response only as long
 * as every upstream answer it used stays fresh, only for this key (`PRIVATE`), and never
 * when stale data went into it. Called at the end of every execution (Apollo's
 * `executionDidEnd`, and the graphql-jit plugin's, which Apollo calls no hook for).
 */
export function restrictToUpstreamFreshness(
  requestContext: Pick<GraphQLRequestContext<GatewayContext>, 'contextValue' | 'overallCachePolicy'>,
): void {
  const accounting = requestContext.contextValue.session.accounting;
  const freshFor = accounting.stale > 0 ? 0 : accounting.freshForMs;
  requestContext.overallCachePolicy.restrict({
    scope: 'PRIVATE',
    ...(freshFor !== null ? { maxAge: Math.floor(freshFor / 1000) } : {}),
  });
}

/**
 * Apollo plugin that, for every operation:
 * - notes each field whose result was built from stale data (`extensions.stale`, which
 *   the result phase's `upstream` step adds; the schema's resolvers note them, see
 *   src/graph/execution/stale-fields.ts);
 * - limits how long a whole-response cache may keep the response (see below);
 * - while the server runs, logs every failed upstream request (of an operation, a
 *   subscription poll or background work) with its whole cause (see {@link logUpstreamFailure}).
 *
 * `extensions.upstream`, the metrics and the log line are steps of the result phase
 * (src/pipeline/result-steps.ts; {@link reportHttpOperation} over HTTP).
 */
export function operationPlugin(logger: Logger): ApolloServerPlugin<GatewayContext> {
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
      return {
        async executionDidStart(requestContext) {
          return {
            async executionDidEnd() {
              restrictToUpstreamFreshness(requestContext);
            },
          };
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
  const level =
    report.code === 'UPSTREAM_ERROR' || report.code === 'UPSTREAM_TIMEOUT'
      ? 'warn'
      : report.code === 'NOT_FOUND'
        ? 'debug'
        : 'info';
  logger[level](
    { code: report.code, endpoint: report.route, status: report.status, detail: report.detail, key: report.key },
    'upstream request failed',
  );
}
