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
 */
import { getLiveDirectiveArgumentValues, getLiveDirectiveNode, isLiveQueryOperationDefinitionNode } from '@n1ru4l/graphql-live-query';
import { InMemoryLiveQueryStore } from '@n1ru4l/in-memory-live-query-store';
import { liveQueryJSONDiffPatchGenerator } from '@n1ru4l/graphql-live-query-patch-jsondiffpatch';
import { execute as graphqlExecute, getOperationAST, print } from 'graphql';
import type { DocumentNode, ExecutionArgs, ExecutionResult } from 'graphql';
import stableStringify from 'safe-stable-stringify';
import { optionKeys } from '../economy';
import type { ReadResource, UpstreamEconomy } from '../economy';
import { GatewayError, missingKeyError } from '../errors/gateway-error';
import { sameness, SharedLiveQuery } from './live-shared';
import type { SubscriptionContext, SubscriptionScope } from './subscription-service';

/** The longest a re-execution (cache only) may take, ms; past it the query keeps its last result. */
export const RE_EXECUTION_DEADLINE_MS = 5000;

/** Settings of {@link LiveQueries}. */
export interface LiveQueryOptions {
  /** The economy whose stored answers re-run live queries. */
  readonly economy: UpstreamEconomy;
  /** Shortest time between two results of one live query, ms (`LIVE_QUERY_THROTTLE_MS`; 0 = none). */
  readonly throttleMs: number;
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

/** A watched resource: how to fetch it again, and how many live queries watch it. */
interface Watched extends ReadResource {
  readonly keyId: string;
  readonly apiKey: string;
  count: number;
}

/**
 * The patch format a client asked for in its subscribe message (`extensions.livePatch`),
 * or null for whole results (the default). `jsondiffpatch`: the first result is whole
 * (`data`, `revision: 1`), each later one a `patch` of the previous `data` with the next
 * `revision`, as `@n1ru4l/graphql-live-query-patch-jsondiffpatch`'s
 * `applyLiveQueryJSONDiffPatch` applies them on the client.
 */
export type LivePatchFormat = 'jsondiffpatch' | null;

/** The patch format of a subscribe message's `extensions` (see {@link LivePatchFormat}). */
export function livePatchFormat(extensions: unknown): LivePatchFormat {
  const asked = extensions && typeof extensions === 'object' ? (extensions as { livePatch?: unknown }).livePatch : undefined;
  return asked === 'jsondiffpatch' ? 'jsondiffpatch' : null;
}

/** True when `args` runs a query marked `@live` (and not `@live(if: false)`). */
export function isLiveOperation(args: Pick<ExecutionArgs, 'document' | 'operationName' | 'variableValues'>): boolean {
  const operation = getOperationAST(args.document, args.operationName);
  return operation !== undefined && operation !== null && isLiveQueryOperationDefinitionNode(operation, args.variableValues as Record<string, unknown> | undefined);
}

/**
 * A live query's throttle, ms: `LIVE_QUERY_THROTTLE_MS`, or the longer one the client
 * asked for with `@live(throttle: N)` (never a shorter one).
 */
function liveThrottleMs(args: Pick<ExecutionArgs, 'document' | 'operationName' | 'variableValues'>, floorMs: number): number {
  const operation = getOperationAST(args.document, args.operationName);
  const directive = operation ? getLiveDirectiveNode(operation) : null;
  const asked = directive ? getLiveDirectiveArgumentValues(directive, args.variableValues as Record<string, unknown> | undefined).throttleValue : null;
  return Math.max(floorMs, typeof asked === 'number' && Number.isFinite(asked) ? asked : 0);
}

/** Each document's text, printed once (the pipeline hands the same document to every subscriber of a trusted document). */
const documentTexts = new WeakMap<DocumentNode, string>();

/**
 * What makes two live operations identical: the key, whether it runs as the public site's
 * (trusted document with the server's key) or as which access token, the document, the operation name and the
 * variables (key order aside). Null for one never shared: a client's own API secret could
 * change what it may read.
 */
function shareKeyOf(args: ExecutionArgs, context: SubscriptionContext, keyId: string): string | null {
  if (context.apiSecretHeader !== null && !context.serverCredentials) return null;
  let text = documentTexts.get(args.document);
  if (text === undefined) {
    text = print(args.document);
    documentTexts.set(args.document, text);
  }
  const variables = stableStringify(args.variableValues ?? {}) ?? '{}';
  // An access token's own: its grants and characters shape the answer.
  const runsAs = context.token ? `token:${context.token.id}` : context.serverCredentials ? 'site' : 'key';
  return [keyId, runsAs, args.operationName ?? '', variables, text].join('\u0000');
}

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
  private readonly watched = new Map<string, Watched>();
  private readonly pending = new Set<string>();
  /** The runs executing now: what each has read so far, and which of those got new data meanwhile. */
  private readonly running = new Set<{ readonly reads: ReadonlyMap<string, ReadResource>; readonly changed: Set<string> }>();
  private readonly stopListening: Array<() => void>;
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
    const stored = (_keyId: string, key: string): void => this.changed(key);
    options.economy.entryStored.add(stored);
    this.stopListening = [() => options.economy.entryStored.delete(stored), options.economy.onInvalidated((keyId, factoryId) => this.written(keyId, factoryId))];
  }

  /** Resources watched by at least one live query now (tests: released when queries end). */
  get watchedCount(): number {
    return this.watched.size;
  }

  /** Stops listening to the economy (at shutdown). */
  close(): void {
    for (const stop of this.stopListening.splice(0)) stop();
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
      leave = scope.service.holdLiveSubscriber(scope.connection);
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
      const running = { reads, changed: new Set<string>() };
      this.running.add(running);
      const executed = Promise.resolve(runs === 1 ? firstRun(() => graphqlExecute(runArgs)) : graphqlExecute(runArgs));
      const outcome = runs === 1 ? await executed : await withDeadline(executed, RE_EXECUTION_DEADLINE_MS);
      this.running.delete(running);
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
      this.watch(keyId, apiKey, reads, lastReads);
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
    const results = this.store.makeExecute(throttled as never)(args) as AsyncIterableIterator<ExecutionResult> | ExecutionResult | Promise<ExecutionResult>;
    const end = (): void => {
      ended = true;
      clearTimeout(timer);
      this.open -= 1;
      this.watch(keyId, apiKey, new Map(), lastReads);
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

  /** Moves a query's watch from the resources of `before` to those of `now`. */
  private watch(keyId: string, apiKey: string, now: ReadonlyMap<string, ReadResource>, before: ReadonlyMap<string, ReadResource>): void {
    for (const [key, resource] of now) {
      if (before.has(key)) continue;
      const watched = this.watched.get(key);
      if (watched) watched.count += 1;
      else this.watched.set(key, { ...resource, keyId, apiKey, count: 1 });
    }
    for (const key of before.keys()) {
      if (now.has(key)) continue;
      const watched = this.watched.get(key);
      if (!watched) continue;
      watched.count -= 1;
      if (watched.count <= 0) this.watched.delete(key);
    }
  }

  /** A stored answer: the live queries that read it re-run (after the current turn, once per batch). */
  private changed(key: string): void {
    for (const run of this.running) if (run.reads.has(key)) run.changed.add(key);
    if (!this.watched.has(key)) return;
    // After the current turn: a run that just ended has its resources tracked by then.
    if (this.pending.size === 0) setImmediate(() => this.flush());
    this.pending.add(key);
  }

  private flush(): void {
    const keys = [...this.pending];
    this.pending.clear();
    void this.store.invalidate(keys);
  }

  /**
   * A write of `keyId` dropped a company's option slots from the cache: the slots its live
   * queries watch are fetched again in the background (as the plain query read after the
   * write would), and their stored answers re-run the queries.
   */
  private written(keyId: string, factoryId: string | null): void {
    if (!factoryId) return;
    // After the write has settled: the invalidation has dropped the entries (listeners are
    // told first), and a write-through has stored the new slot (then the read below is a
    // cache hit, no request).
    setImmediate(() => this.refetch(keyId, factoryId));
  }

  private refetch(keyId: string, factoryId: string): void {
    for (const key of optionKeys(keyId, factoryId)) {
      const watched = this.watched.get(key);
      if (!watched) continue;
      this.options.economy
        .fetchInBackground({ keyId, apiKey: watched.apiKey, endpoint: watched.endpoint, params: watched.params }, { priority: 'missed' })
        .catch(() => undefined);
    }
  }
}

/** True for a result that is a stream (a subscription's events, a live query's results). */
export function isAsyncIterator<T>(value: unknown): value is AsyncIterableIterator<T> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
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
  return new GatewayError('INTERNAL_SERVER_ERROR', `A live query's re-execution took longer than ${RE_EXECUTION_DEADLINE_MS} ms.`);
}

/** `source` with each result marked `isLive` again (what the patch generator reads). */
function markedLive(source: AsyncIterableIterator<ExecutionResult>): AsyncIterableIterator<ExecutionResult & { isLive: true }> {
  const iterator: AsyncIterableIterator<ExecutionResult & { isLive: true }> = {
    async next() {
      const step = await source.next();
      return step.done ? step : { done: false, value: { ...step.value, isLive: true } };
    },
    async return() {
      await source.return?.();
      return { done: true, value: undefined };
    },
    // graphql-sse ends an operation (client gone, `complete`) only when it is an async
    // generator: `next`, `return` and `throw`. Without `throw` it never calls `return`.
    async throw(error: unknown) {
      await source.return?.();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
