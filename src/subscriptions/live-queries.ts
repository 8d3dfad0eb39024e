/**
 * Live queries: `query @live { … }` over graphql-ws and graphql-sse, with
 * `@n1ru4l/in-memory-live-query-store`. The first result is the plain query's answer;
 * each later one follows when an upstream resource the query read got new data for the
 * caller's key, and is executed from the process cache only, so a live query never sends
 * an upstream request a plain query of the same shape would not send (its misses go to
 * background fill, as a plain query's do).
 *
 * The store's resource identifiers are the economy's cache keys (`<keyId>|<path>`: the
 * hashed key and the request path), told by `UpstreamEconomy.onEntryStored`. A key's
 * change can only name its own cache keys, so it never reaches another key's live query.
 *
 * Beside it: live-operations.ts (what a live operation is: `@live`, its throttle, its patch
 * format, what makes two identical), live-resources.ts (the watched resources and what
 * re-runs them), live-shared.ts (one execution for identical subscribers).
 */
import { InMemoryLiveQueryStore } from '@n1ru4l/in-memory-live-query-store';
import { liveQueryJSONDiffPatchGenerator } from '@n1ru4l/graphql-live-query-patch-jsondiffpatch';
import { execute as graphqlExecute, parse } from 'graphql';
import type { ExecutionArgs, ExecutionResult, GraphQLSchema } from 'graphql';
import type { ReadResource, UpstreamEconomy } from '../economy';
import { GatewayError, missingKeyError } from '../errors/gateway-error';
import { isAsyncIterator, isLiveOperation, liveThrottleMs, markedLive, shareKeyOf } from './live-operations';
import type { LivePatchFormat } from './live-operations';
import { LiveResources } from './live-resources';
import { sameness, SharedLiveQuery } from './live-shared';
import type { SubscriptionContext, SubscriptionScope } from './subscription-service';

/** The longest a re-execution (cache only) may take, ms; past it the query keeps its last result. */
export const RE_EXECUTION_DEADLINE_MS = 5000;

/** The live query {@link LiveQueries.prepare} creates and ends unstarted. */
const PREPARE_DOCUMENT = parse('query Prepare @live { __typename }');

/** Settings of {@link LiveQueries}. */
export interface LiveQueryOptions {
  /** The economy whose stored answers re-run live queries. */
  readonly economy: UpstreamEconomy;
  /** Shortest time between two results of one live query, ms (`LIVE_QUERY_THROTTLE_MS`; 0 = none). */
  readonly throttleMs: number;
  /** Executes each run of a live query (`EXECUTION_JIT`: graphql-jit's, as plain queries run); graphql-js's `execute` when absent. */
  readonly executeRun?: (args: ExecutionArgs) => Promise<ExecutionResult> | ExecutionResult;
}

/** The live-query context the store passes to `execute`: it adds resource identifiers to the run. */
interface LiveRunContext {
  addResourceIdentifier(values: string | readonly string[] | null | undefined): void;
}

/**
 * What one run of a live query executed with: its context's list-item errors and upstream
 * session, taken when the run starts (each run refreshes the shared context, so a later
 * run replaces them there). The transport's result phase reads them for that run's result.
 */
export type LiveRun = Pick<SubscriptionContext, 'itemErrors' | 'session'>;

/** The result of a re-execution past {@link RE_EXECUTION_DEADLINE_MS}. */
const DEADLINE = Symbol('deadline');

/**
 * The live queries of one gateway process: the store, the link from the economy's
 * stored answers to its invalidations, and the execution of each run.
 *
 * When to use: one per process, built with the subscription transports; each transport
 * executes operations through {@link execute}.
 */
export class LiveQueries {
  private readonly store: InMemoryLiveQueryStore;
  /** The resources the live queries watch, and the economy's news of them. */
  private readonly resources: LiveResources;
  /** The running executions by their operation (see {@link shareKeyOf}): identical live operations of a key share one. */
  private readonly shared = new Map<string, SharedLiveQuery>();
  /** Live queries executing now: distinct live operations, each shared by its subscribers (tests, metrics). */
  open = 0;
  /** Subscribers of live queries now, over all executions (tests). */
  subscribers = 0;
  /** Executions of live queries so far, first runs and re-runs (tests: one per change, however many subscribers). */
  executions = 0;

  constructor(private readonly options: LiveQueryOptions) {
    this.store = new InMemoryLiveQueryStore({
      includeIdentifierExtension: false,
      // No `Type:id` identifiers: upstream ids are not scoped by key; the cache keys are.
      idFieldName: '\u0000',
      // The store's own throttle is off: it drops a trailing run whose timer fires a
      // millisecond early by `Date.now()` (common on a busy process), and the update it
      // stood for never comes. Each query is throttled in `execute` instead (see `throttled`).
      validateThrottleValue: () => null,
    });
    this.resources = new LiveResources(options.economy, (keys) => void this.store.invalidate(keys));
  }

  /**
   * Makes the live-query store's copy of `schema` (the store's schema with its resource
   * collectors, made on a schema's first live query) now, at startup, so that the first
   * live query does not make it in its own turn (about 35 ms of held event loop on a
   * 2-core machine, with every stream opening beside it). Runs nothing: the store makes the
   * copy when an execution is created, before it starts, and this one is ended unstarted.
   *
   * @param schema - the schema live queries will run against (the transports' own)
   */
  prepare(schema: GraphQLSchema): void {
    const results = this.store.makeExecute(graphqlExecute)({ schema, document: PREPARE_DOCUMENT });
    if (isAsyncIterator(results)) void (results as AsyncIterableIterator<unknown>).return?.(undefined);
  }

  /** Resources watched by at least one live query now (tests: released when queries end). */
  get watchedCount(): number {
    return this.resources.size;
  }

  /** Stops listening to the economy (at shutdown). */
  close(): void {
    this.resources.close();
  }

  /**
   * Executes an operation for a streaming transport: a live query as an async iterable
   * of results (identical consecutive results are not sent), anything else with
   * graphql-js's `execute`. Identical live queries of one key (same document, operation
   * name and variables) share one execution (see {@link SharedLiveQuery}), which counts
   * once against the key's subscription limit until its last subscriber leaves; each
   * subscriber counts against its connection's limit and its address's
   * (`LIVE_QUERY_SUBSCRIBERS_MAX_PER_ADDRESS`) until it leaves.
   *
   * @param args - what to execute; the context is the transport's subscription context
   * @param patches - the patch format the client asked for (see {@link LivePatchFormat})
   * @param firstRun - runs a live query's first execution (which the store starts only when
   *   the transport first reads the results), e.g. within the operation's trace span
   * @param finishRun - the result phase's `execution` steps on each run's result, with what
   *   that run executed with (see {@link LiveRun})
   * @throws never: a refusal (no key, over a limit) is a result with its error
   */
  execute(
    args: ExecutionArgs,
    patches: LivePatchFormat = null,
    firstRun: <T>(work: () => T) => T = (work) => work(),
    finishRun: (result: ExecutionResult, run: LiveRun) => ExecutionResult = (result) => result,
  ): ExecutionResult | Promise<ExecutionResult> | AsyncIterableIterator<ExecutionResult> {
    if (!isLiveOperation(args)) return graphqlExecute(args);
    const context = args.contextValue as SubscriptionContext;
    const scope = context.subscription;
    const { apiKey } = context;
    const keyId = context.session.keyId;
    if (!scope || !apiKey || !keyId) return { errors: [missingKeyError()] };
    let leave: () => void;
    try {
      leave = scope.service.track(scope, scope.service.holdLiveSubscriber(scope.connection));
    } catch (error) {
      if (error instanceof GatewayError) return { errors: [error] };
      throw error;
    }
    const shareKey = shareKeyOf(args, context, keyId);
    let shared = shareKey === null ? undefined : this.shared.get(shareKey);
    if (!shared || shared.closed) {
      const started = this.start(args, context, scope, { keyId, apiKey, shareKey }, firstRun, finishRun);
      if (!(started instanceof SharedLiveQuery)) {
        leave();
        return started;
      }
      shared = started;
    }
    this.subscribers += 1;
    const results = shared.subscribe(() => {
      this.subscribers -= 1;
      leave();
    });
    if (patches !== 'jsondiffpatch') return results;
    // Each subscriber's patches are of the results it got (it may have joined late, or skipped one).
    return liveQueryJSONDiffPatchGenerator(markedLive(results)) as AsyncIterableIterator<ExecutionResult>;
  }

  /**
   * Starts the one execution of a live operation (it holds a place of the key until it
   * ends): the store's results, read by a {@link SharedLiveQuery}; or the store's single
   * result (then nothing is held), or the refusal over the key's limit.
   */
  private start(
    args: ExecutionArgs,
    context: SubscriptionContext,
    scope: SubscriptionScope,
    ids: { readonly keyId: string; readonly apiKey: string; readonly shareKey: string | null },
    firstRun: <T>(work: () => T) => T,
    finishRun: (result: ExecutionResult, run: LiveRun) => ExecutionResult,
  ): SharedLiveQuery | ExecutionResult | Promise<ExecutionResult> {
    const { keyId, apiKey, shareKey } = ids;
    let release: () => void;
    try {
      release = scope.service.holdLiveExecution(keyId);
    } catch (error) {
      if (error instanceof GatewayError) return { errors: [error] };
      throw error;
    }
    this.open += 1;
    let runs = 0;
    let last: ExecutionResult | undefined;
    let lastReads = new Map<string, ReadResource>();
    // At most one run per throttle window; calls within it wait for the window's end and
    // share one run with the latest arguments (the store pushes only its latest call's result).
    const throttleMs = liveThrottleMs(args, this.options.throttleMs);
    let lastStart = Number.NEGATIVE_INFINITY;
    let lastText: string | undefined;
    let ended = false;
    let latest: ExecutionArgs = args;
    let scheduled: Promise<ExecutionResult> | null = null;
    let timer: NodeJS.Timeout | undefined;
    let fire: (() => void) | undefined;
    /**
     * A run that found nothing new sent nothing: the window it opened closes again, so the
     * change it was run for too early (e.g. the second of two answers one read stores) is
     * sent at once, not a window later. A run waiting for the window is moved up to match.
     */
    const reopenWindow = (startedAt: number, previousStart: number): void => {
      if (lastStart !== startedAt) return;
      lastStart = previousStart;
      if (!fire) return;
      clearTimeout(timer);
      const waitMs = lastStart + throttleMs - Date.now();
      if (waitMs <= 0) fire();
      else timer = setTimeout(fire, waitMs);
    };
    const run = async (runArgs: ExecutionArgs, startedAt: number, previousStart: number): Promise<ExecutionResult> => {
      const live = runArgs.contextValue as LiveRunContext;
      // Every run gets a fresh session and loaders; every run but the first reads the cache only.
      if (runs > 0) scope.refresh();
      const ran: LiveRun = { itemErrors: context.itemErrors, session: context.session };
      context.session.cacheOnly = runs > 0;
      runs += 1;
      const reads = new Map<string, ReadResource>();
      context.session.reads = reads;
      // New data for what this run read while it ran (e.g. background fill storing what it
      // missed) re-runs the query once the run's resources are tracked.
      const running = this.resources.runStarted(reads);
      // Over the schema and context the transport gave: the store's copy of the schema wraps
      // every field's resolver to collect resource identifiers by field, which this class
      // does not use (they are the economy's cache keys the run read, added below), so the
      // wrapper only cost time on every field of every run.
      const direct: ExecutionArgs = { ...runArgs, schema: args.schema, contextValue: context };
      const executeRun = this.options.executeRun ?? graphqlExecute;
      const executed = Promise.resolve(runs === 1 ? firstRun(() => executeRun(direct)) : executeRun(direct));
      const outcome = runs === 1 ? await executed : await withDeadline(executed, RE_EXECUTION_DEADLINE_MS);
      this.resources.runEnded(running);
      // The query ended while this run executed: its watch and the store's entry are released
      // already, and must stay so. A run that never settles is what the store forgets
      // (it would track the run's resources again when it settled).
      if (ended) return new Promise<ExecutionResult>(() => undefined);
      if (running.changed.size > 0) setImmediate(() => void this.store.invalidate([...running.changed]));
      if (outcome === DEADLINE && last) {
        live.addResourceIdentifier([...lastReads.keys()]);
        return last;
      }
      const result = finishRun(outcome === DEADLINE ? { errors: [deadlineError()] } : outcome, ran);
      this.executions += 1;
      this.resources.move(keyId, apiKey, reads, lastReads);
      lastReads = reads;
      live.addResourceIdentifier([...reads.keys()]);
      last = result;
      const text = sameness(result);
      if (text === lastText) reopenWindow(startedAt, previousStart);
      lastText = text;
      return result;
    };
    const throttled = (runArgs: ExecutionArgs): Promise<ExecutionResult> => {
      latest = runArgs;
      if (scheduled) return scheduled;
      const waitMs = lastStart + throttleMs - Date.now();
      if (waitMs <= 0) {
        const previousStart = lastStart;
        lastStart = Date.now();
        return run(runArgs, lastStart, previousStart);
      }
      scheduled = new Promise<void>((resolve) => {
        fire = resolve;
        timer = setTimeout(resolve, waitMs);
      }).then(() => {
        scheduled = null;
        fire = undefined;
        if (ended) return last ?? { data: null };
        const previousStart = lastStart;
        lastStart = Date.now();
        return run(latest, lastStart, previousStart);
      });
      return scheduled;
    };
    const results = this.store.makeExecute(throttled as never)(args) as
      AsyncIterableIterator<ExecutionResult> | ExecutionResult | Promise<ExecutionResult>;
    const end = (): void => {
      ended = true;
      clearTimeout(timer);
      this.open -= 1;
      this.resources.move(keyId, apiKey, new Map(), lastReads);
      lastReads = new Map();
      release();
      // Ours, or none: a later execution of the same operation is in the map only once this one closed.
      if (shareKey !== null && this.shared.get(shareKey)?.closed === true) this.shared.delete(shareKey);
    };
    if (!isAsyncIterator(results)) {
      end();
      return results;
    }
    const shared = new SharedLiveQuery(results, end);
    if (shareKey !== null) this.shared.set(shareKey, shared);
    return shared;
  }
}

/** `promise`, or {@link DEADLINE} when it takes longer than `ms`. */
function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T | typeof DEADLINE> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<typeof DEADLINE>((resolve) => {
    timer = setTimeout(() => resolve(DEADLINE), ms);
    timer.unref();
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

function deadlineError(): GatewayError {
  return new GatewayError(
    'INTERNAL_SERVER_ERROR',
    `A live query's re-execution took longer than ${RE_EXECUTION_DEADLINE_MS} ms.`,
  );
}
