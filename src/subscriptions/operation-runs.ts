/**
 * What graphql-ws and graphql-sse share to run an admitted operation: the watch (span, log
 * line, metrics), the patch format a live query asked for, the end of an operation whose
 * client left while it started, and the result phase of the request pipeline on every
 * result about to be sent.
 */
import { subscribe as graphqlSubscribe } from 'graphql';
import type { ExecutionArgs, ExecutionResult } from 'graphql';
import { operationContext } from './admission';
import { isAsyncIterator } from './live-operations';
import type { LivePatchFormat } from './live-operations';
import type { LiveQueries, LiveRun } from './live-queries';
import { OperationWatch } from './operation-watch';
import type { Credential } from '../pipeline/credential';
import type { ResultText } from '../pipeline/response-size';
import type { SubscriptionTransportOptions } from './transport-options';

/** The state and steps both transports run operations with (see {@link createOperationRuns}). */
export interface OperationRuns {
  /** Each operation's span, log line and metrics. */
  readonly watch: OperationWatch;
  /** The patch format each live query's client asked for, by its context. */
  readonly patchFormats: WeakMap<object, LivePatchFormat>;
  /** graphql-sse operations posted to a reservation: whether their client is gone. */
  readonly abandonedChecks: WeakMap<object, () => boolean>;
  /** The credential each operation was admitted with, by its context (an access token's streams end with it: token-streams.ts). */
  readonly credentials: WeakMap<object, Credential>;
  /** `result` (a stream), ended with a final `UNAUTHENTICATED` event when its access token is revoked or expires. */
  untilTokenRefused<T>(contextValue: unknown, result: T): T;
  /** `result`, ended at once when its client left while it started. */
  unlessAbandoned<T>(contextValue: unknown, result: T): T;
  /**
   * The result phase on a result about to be sent (a live query's: its `delivery` phase);
   * `measured` is told the JSON the `response-size` step measured when the result is sent as it is.
   */
  finish(
    transport: 'graphql-ws' | 'graphql-sse',
    contextValue: unknown,
    result: ExecutionResult,
    measured?: (result: ExecutionResult, text: ResultText) => void,
  ): ExecutionResult;
  /** Executes a query or mutation (a live one through the live queries). */
  execute(args: ExecutionArgs): ReturnType<LiveQueries['execute']>;
  /** Subscribes. */
  subscribe(args: ExecutionArgs): ReturnType<typeof graphqlSubscribe>;
}

/** The operation runs of both transports of one gateway. */
export function createOperationRuns(options: SubscriptionTransportOptions): OperationRuns {
  // The patch format each live query's client asked for, by its context.
  const patchFormats = new WeakMap<object, LivePatchFormat>();
  // Each operation's span, log line and metrics.
  const watch = new OperationWatch(options.reportOperation, options.tracing);
  // graphql-sse operations posted to a reservation (single connection mode): whether the
  // client is gone, asked when the operation's stream is ready (see `unlessAbandoned`).
  const abandonedChecks = new WeakMap<object, () => boolean>();
  const credentials = new WeakMap<object, Credential>();
  /**
   * `result`, ended with a final `UNAUTHENTICATED` event when the access token it was
   * admitted with is revoked or expires (token-streams.ts); as it is for a key.
   */
  const untilTokenRefused = <T>(contextValue: unknown, result: T): T => {
    const streams = options.tokenStreams;
    const context = operationContext(contextValue);
    const credential = context ? credentials.get(context) : undefined;
    const active = context?.token;
    if (!streams || credential?.kind !== 'token' || !active) return result;
    const guard = (value: unknown): unknown =>
      isAsyncIterator<ExecutionResult>(value) ? streams.guard(value, credential, active.expiresAt) : value;
    if (result instanceof Promise) return result.then(guard) as T;
    return guard(result) as T;
  };
  /**
   * `result`, ended at once when its client left while it started: graphql-sse returns a
   * reservation's operations when its stream closes, but not one whose start (a
   * subscription's first poll) was still under way then, nor one whose POST the client
   * aborted before the 202 (graphql-sse's client then sends no DELETE). Either would run on
   * a closed stream for good, holding its place and poller.
   */
  const unlessAbandoned = <T>(contextValue: unknown, result: T): T => {
    const abandoned = contextValue && typeof contextValue === 'object' ? abandonedChecks.get(contextValue) : undefined;
    if (!abandoned) return result;
    const check = (value: unknown): void => {
      if (isAsyncIterator<unknown>(value) && abandoned()) void value.return?.();
    };
    if (result instanceof Promise) return result.then((value: unknown) => (check(value), value)) as T;
    check(result);
    return result;
  };
  // The contexts of live queries: the result phase's `execution` steps ran at the end of
  // each run, with that run's item errors and session; onNext runs the `delivery` steps.
  const liveContexts = new WeakSet<object>();
  // The result phase on a result about to be sent (a live query's: its `delivery` phase).
  const finish = (
    transport: 'graphql-ws' | 'graphql-sse',
    contextValue: unknown,
    result: ExecutionResult,
    measured?: (result: ExecutionResult, text: ResultText) => void,
  ): ExecutionResult => {
    const context = operationContext(contextValue);
    const live = context !== null && liveContexts.has(context);
    return options.pipeline.finishResult(
      {
        transport,
        result,
        execution: context,
        delivery: context,
        report: ({ result: sent }) => watch.next(contextValue, sent),
        ...(measured ? { measured } : {}),
      },
      live ? ['delivery'] : undefined,
    );
  };
  const execute = (args: ExecutionArgs): ReturnType<LiveQueries['execute']> => {
    const patches =
      args.contextValue && typeof args.contextValue === 'object' ? (patchFormats.get(args.contextValue) ?? null) : null;
    const context = operationContext(args.contextValue);
    const transport = context?.subscription?.connection.transport === 'sse' ? 'graphql-sse' : 'graphql-ws';
    const finishRun = (result: ExecutionResult, run: LiveRun): ExecutionResult =>
      options.pipeline.finishResult({ transport, result, execution: run, delivery: context }, ['execution']);
    // A live query's first execution starts when the transport first reads its results: in the span too.
    const results = unlessAbandoned(
      args.contextValue,
      watch.run(args.contextValue, () =>
        options.liveQueries.execute(args, patches, (work) => watch.run(args.contextValue, work), finishRun),
      ),
    );
    if (context && isAsyncIterator(results)) liveContexts.add(context);
    return untilTokenRefused(args.contextValue, results);
  };
  const subscribe = (args: ExecutionArgs): ReturnType<typeof graphqlSubscribe> => {
    return untilTokenRefused(
      args.contextValue,
      unlessAbandoned(
        args.contextValue,
        watch.run(args.contextValue, () => graphqlSubscribe(args)),
      ),
    );
  };
  return {
    watch,
    patchFormats,
    abandonedChecks,
    credentials,
    unlessAbandoned,
    untilTokenRefused,
    finish,
    execute,
    subscribe,
  };
}
