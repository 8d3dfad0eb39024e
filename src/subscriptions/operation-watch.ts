/**
 * What the subscription transports observe of each operation, from its subscribe message
 * to its first answer: its span when tracing is on (src/observability/tracing.ts), and its
 * `graphql operation` log line and operation metrics, as over HTTP.
 *
 * The first answer is a query's or mutation's result, a live query's first result, a
 * subscription's start (its events come from polls, which are counted and traced on their
 * own), or the refusal. A live query's later results read only the cache and are not
 * reported again.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { ExecutionArgs, OperationTypeNode } from 'graphql';
import { errorCodesOf } from '../pipeline/result-steps';
import { NO_UPSTREAM } from '../observability/operation.plugin';
import type { OperationOutcome, OperationReport } from '../observability/operation.plugin';
import type { GatewayTracing, StreamOperationSpan } from '../observability/tracing';
import type { Prepared } from '../pipeline/pipeline';
import { isAsyncIterator } from './live-operations';
import type { SubscriptionContext } from './subscription-service';

/** The two streaming transports. */
type Transport = 'graphql-ws' | 'graphql-sse';

/** An error as a result carries it, formatted or not. */
type ErrorLike = { readonly extensions?: { readonly code?: unknown } };

/** One operation being watched (see {@link OperationWatch.begin}). */
export interface WatchedOperation {
  /** When its subscribe message came (`performance.now()`, ms). */
  readonly started: number;
  /** The transport it came over. */
  readonly transport: Transport;
  /** Its span, when tracing is on. */
  readonly span: StreamOperationSpan | undefined;
  /** Its name, once the pipeline let it through (null when anonymous). */
  operationName: string | null;
  /** Its type, once the pipeline let it through. */
  operationType: OperationTypeNode | null;
  /** Its context, once the pipeline let it through. */
  contextValue: SubscriptionContext | undefined;
  /** Whether it was reported already. */
  done: boolean;
}

/**
 * Watches the operations of both transports. Each transport calls {@link begin} for a
 * subscribe message, {@link admitted} with the pipeline's answer, and then whichever of
 * {@link answered}, {@link next} and {@link finish} comes first ends it (later calls do
 * nothing).
 */
export class OperationWatch {
  private readonly byContext = new WeakMap<object, WatchedOperation>();

  /**
   * @param report - counts and logs a finished operation (none: nothing is reported)
   * @param tracing - the gateway's tracing, when it is on
   */
  constructor(
    private readonly report: ((report: OperationReport) => void) | undefined,
    private readonly tracing: GatewayTracing | undefined,
  ) {}

  /**
   * Starts watching one subscribe message.
   *
   * @param carrier - the headers to continue a `traceparent` from, asked only when tracing is on
   */
  begin(transport: Transport, carrier: () => IncomingHttpHeaders): WatchedOperation {
    return {
      started: performance.now(),
      transport,
      span: this.tracing?.streamOperation(transport, carrier()),
      operationName: null,
      operationType: null,
      contextValue: undefined,
      done: false,
    };
  }

  /** The pipeline's answer: a refusal ends the operation now; an admitted one is named and found by its context from then on. */
  admitted(watched: WatchedOperation, prepared: Prepared, contextValue: SubscriptionContext | undefined): void {
    if (prepared.kind === 'refused' || !contextValue) {
      this.finish(watched, prepared.kind === 'refused' ? prepared.errors : undefined, 'rejected');
      return;
    }
    watched.operationName = prepared.operationName ?? prepared.operation.name?.value ?? null;
    watched.operationType = prepared.operation.operation;
    watched.contextValue = contextValue;
    watched.span?.named(watched.operationType, watched.operationName, contextValue.session.keyId);
    this.byContext.set(contextValue, watched);
  }

  /** The operation whose context this is, if it is watched. */
  of(contextValue: unknown): WatchedOperation | undefined {
    return contextValue && typeof contextValue === 'object' ? this.byContext.get(contextValue) : undefined;
  }

  /** Runs `work` within the operation's span (its upstream requests become children of it), or as it is. */
  run<T>(contextValue: unknown, work: () => T): T {
    const span = this.of(contextValue)?.span;
    return span ? span.run(work) : work();
  }

  /**
   * What executing the operation gave: a subscription's stream ends it (it has started). A
   * single result, and a live query's first result, end it when the result phase's `report`
   * step sends them ({@link next}), so the report counts what was sent (list-item errors included).
   */
  answered(args: ExecutionArgs, result: unknown): void {
    const watched = this.of(args.contextValue);
    if (watched && isAsyncIterator(result) && watched.operationType === 'subscription')
      this.finish(watched, undefined, 'success');
  }

  /** A result about to be sent: the first one ends the operation. */
  next(contextValue: unknown, result: { readonly data?: unknown; readonly errors?: readonly ErrorLike[] }): void {
    const watched = this.of(contextValue);
    if (watched) this.finish(watched, result.errors, outcomeOf(result));
  }

  /**
   * Ends the operation: ends its span and reports it. An operation the client completed
   * before its first answer counts as a success.
   */
  finish(
    watched: WatchedOperation,
    errors: readonly ErrorLike[] | undefined,
    outcome: OperationOutcome = errors?.length ? 'error' : 'success',
  ): void {
    if (watched.done) return;
    watched.done = true;
    watched.span?.end(errors);
    if (!this.report) return;
    const accounting = watched.contextValue?.session.accounting;
    this.report({
      operationName: watched.operationName,
      outcome,
      durationMs: performance.now() - watched.started,
      upstream: accounting ? accounting.toJSON() : NO_UPSTREAM,
      stale: accounting?.staleFields.length ?? 0,
      errorCodes: errorCodesOf(errors),
      keyId: watched.contextValue?.session.keyId ?? null,
      tokenId: watched.contextValue?.token?.id ?? null,
      transport: watched.transport,
    });
  }
}

/** The outcome of an executed operation's result. */
function outcomeOf(result: { readonly data?: unknown; readonly errors?: readonly unknown[] }): OperationOutcome {
  if (!result.errors?.length) return 'success';
  return result.data != null ? 'partial' : 'error';
}
