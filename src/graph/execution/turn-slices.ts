/**
 * Sliced work: what would hold the event loop too long in one turn (completing the items
 * of a large list, large-lists.ts; writing a large answer's JSON, sliced-json.ts) is queued
 * here as small jobs, first come first served, and run in turns of its own, each at most
 * about {@link TURN_BUDGET_MS} long (measured with `performance.now`), other requests' I/O
 * between them. The budget is a time, not a count: a slice is as long on a quiet machine as
 * on a loaded one, and work that costs more per item gets fewer items per turn.
 */

/** Time, ms, sliced work may run in one turn of the event loop before the rest waits for the next. */
export const TURN_BUDGET_MS = 4;

/** Jobs run between two reads of the clock, each group followed by a microtask checkpoint (what its jobs started runs there, in the same slice). */
export const JOBS_PER_CHECK = 8;

/**
 * Most list items {@link itemsThisTurn} promises in one turn, whatever their measured cost. Items
 * completed at once are not measured (only the queue's groups of items are): without a bound
 * a cost measured low let a whole list of thousands be completed in one turn, never measured
 * again, and its true cost (the garbage collection its items' results cause among it) held
 * the event loop for a hundred milliseconds and more on every run of a live query's list.
 */
export const MOST_ITEMS_AT_ONCE = 256;

/** Jobs run from the queue's head are cut off its array once this many have gone. */
const COMPACT_AFTER = 4096;

/**
 * Work waiting in the queue. A `heavy` job ends its group: `'turn'` ends its turn, `'measured'`
 * lets the queue read the clock after the synchronous work it starts (see {@link heavySlice}).
 */
interface Job {
  run(): void;
  /** Run as the only job of its turn (see {@link inTurnOfItsOwn}). */
  readonly alone?: boolean;
  readonly heavy?: 'turn' | 'measured';
}

/** The queue: jobs from `head` on are waiting. */
let jobs: Array<Job | undefined> = [];
let head = 0;
/** What the queue does now: nothing to run, a turn asked for, or a turn running (jobs and their microtasks). */
let state: 'idle' | 'scheduled' | 'running' = 'idle';
/** When the running turn began (`performance.now()`); minus infinity between turns. */
let turnStarted = Number.NEGATIVE_INFINITY;
/** Jobs run in the running turn. */
let ranThisTurn = 0;
/** The running turn ran a job that runs alone: it runs no other job, what that job started finishes in it. */
let turnClosed = false;
/**
 * What completing one item of a list costs, ms, as measured over the last groups of its
 * items' jobs (a moving average, quicker up than down); one per list field of a document
 * (see large-lists.ts). At first as if a group took the whole budget.
 */
export interface ItemCost {
  /** Milliseconds per item. */
  ms: number;
}

/** A new {@link ItemCost}, before anything was measured. */
export function newItemCost(): ItemCost {
  return { ms: TURN_BUDGET_MS / JOBS_PER_CHECK };
}
/** Time of the running turn promised to work done at once by {@link itemsThisTurn}, ms. */
let reservedMs = 0;
/** Items of the running turn promised by {@link itemsThisTurn}. */
let promisedItems = 0;

/** Runs groups of jobs, a microtask checkpoint after each, until the queue is empty or the turn's budget spent. */
function step(): void {
  if (turnClosed) return;
  const groupStarted = performance.now();
  let ran = 0;
  // The cost all jobs of this group were items of, if they were (null: mixed).
  let cost: ItemCost | null | undefined;
  let heavy: Job['heavy'];
  while (ran < JOBS_PER_CHECK && head < jobs.length && heavy === undefined) {
    const job = jobs[head] as Job;
    // A job that runs alone waits for a turn of its own, the first job there.
    if (job.alone === true && ranThisTurn > 0) break;
    jobs[head] = undefined;
    head += 1;
    ran += 1;
    const itemCost = job instanceof SlicedCall ? job.cost : null;
    cost = cost === undefined || cost === itemCost ? itemCost : null;
    heavy = job.heavy;
    job.run();
    ranThisTurn += 1;
    if (job.alone === true) {
      turnClosed = true;
      break;
    }
  }
  if (cost && ran === JOBS_PER_CHECK) {
    const measured = (performance.now() - groupStarted) / ran;
    cost.ms += (measured - cost.ms) * (measured > cost.ms ? 0.5 : 0.1);
  }
  if (head === jobs.length) {
    jobs = [];
    head = 0;
    // Nothing ran: the jobs' microtasks queued nothing more; the next job starts a turn of its own.
    if (ran === 0) {
      state = 'idle';
      turnStarted = Number.NEGATIVE_INFINITY;
      return;
    }
  } else if (head >= COMPACT_AFTER) {
    jobs = jobs.slice(head);
    head = 0;
  }
  if (turnClosed) {
    // The turn stays running while the job's microtasks run (the first items of a list
    // handed over are completed at once, within its budget); the next job has a turn of its own.
    setImmediate(runTurn);
    return;
  }
  // A measured job's work runs in the microtask queued before this one: the clock is read after it.
  if (heavy === 'measured') {
    queueMicrotask(stepWithinBudget);
    return;
  }
  // A heavy job's work runs in the microtasks after it, unmeasured here: the rest waits for the next turn.
  // A job that runs alone next: this turn ran others, it waits for the next turn.
  if (heavy === undefined && !overBudget() && jobs[head]?.alone !== true) {
    queueMicrotask(step);
    return;
  }
  // An immediate queued from an immediate's callback (or its microtasks) runs in the next turn, after its I/O.
  state = 'scheduled';
  turnStarted = Number.NEGATIVE_INFINITY;
  setImmediate(runTurn);
}

/** The next group of jobs in this turn when its budget is not spent, or in the next turn. */
function stepWithinBudget(): void {
  if (!overBudget()) {
    step();
    return;
  }
  state = 'scheduled';
  turnStarted = Number.NEGATIVE_INFINITY;
  setImmediate(runTurn);
}

function runTurn(): void {
  state = 'running';
  turnStarted = performance.now();
  ranThisTurn = 0;
  turnClosed = false;
  reservedMs = 0;
  promisedItems = 0;
  step();
}

/** Queues a job; the first after an idle spell asks for a turn two hops later (an immediate queued from an I/O callback runs before the next poll). */
function enqueue(job: Job): void {
  jobs.push(job);
  if (state !== 'idle') return;
  state = 'scheduled';
  setImmediate(() => setImmediate(runTurn));
}

/**
 * True when sliced work should wait for a later turn ({@link nextSlice}): the running
 * turn has spent {@link TURN_BUDGET_MS}, or this is not a turn of sliced work at all.
 */
export function overBudget(): boolean {
  return performance.now() - turnStarted >= TURN_BUDGET_MS;
}

/**
 * How many of `count` list items the running turn of sliced work can still complete at
 * once, by the measured `cost` of such an item, within its budget (at most
 * {@link MOST_ITEMS_AT_ONCE} in all); they are promised to the
 * caller (the next caller gets what is left). 0 outside such a turn. A large list's first
 * items are then completed as plain values, without the queue's cost per item.
 */
export function itemsThisTurn(count: number, cost: ItemCost): number {
  if (state !== 'running') return 0;
  const left = TURN_BUDGET_MS - (performance.now() - turnStarted) - reservedMs;
  if (left <= 0) return 0;
  const fit = cost.ms > 0 ? Math.floor(left / cost.ms) : count;
  const items = Math.max(0, Math.min(count, fit, MOST_ITEMS_AT_ONCE - promisedItems));
  reservedMs += items * cost.ms;
  promisedItems += items;
  return items;
}

/**
 * `value`, handed on in a slice of a later turn of the event loop (in the queue's order):
 * whatever waits for it runs there, within the turn's budget.
 */
export function inSlice<T>(value: T): Promise<T> {
  return new Promise<T>((resolve) => enqueue({ run: () => resolve(value) }));
}

/**
 * `value`, handed on as the only job of a later turn of sliced work (in the queue's
 * order): what waits for it runs there, in microtasks, with no other job before or after
 * it in that turn. For a hand-over that starts long work the queue's clock does not see,
 * such as the engine's pass over the thousands of items of a large list (a callback per
 * item): two such lists (two aliases of one list) never pass in one turn, nor after a
 * turn's budget was spent on other jobs.
 */
export function inTurnOfItsOwn<T>(value: T): Promise<T> {
  return new Promise<T>((resolve) => enqueue({ run: () => resolve(value), alone: true }));
}

/** A slice of a later turn, for work that checks {@link overBudget} as it goes (see {@link inSlice}). */
export function nextSlice(): Promise<void> {
  return inSlice(undefined);
}

/**
 * A slice of a later turn for heavy work, in the queue's order. By default the turn ends
 * after it (its work, and all it starts before its next real wait, runs in that turn's
 * microtasks) and the queue's next jobs run in the next turn, after other requests' I/O: for
 * work whose cost the queue cannot measure, as a request's run on Apollo (awaits all along).
 * `measured`: the work after it is synchronous (up to its next wait), so the queue reads the
 * clock once it is done and goes on in the same turn while the budget lasts, as for a
 * request's checks. For requests with a large body: several connections' large requests
 * prepared and run in one turn held it 50 ms and more.
 *
 * @param measured - the work after it is synchronous: the queue measures it
 */
export function heavySlice(measured = false): Promise<void> {
  return new Promise<void>((resolve) => enqueue({ run: () => resolve(), heavy: measured ? 'measured' : 'turn' }));
}

/**
 * What a {@link SlicedValue}'s `then` gives: the callback's run, queued, and a thenable of
 * its result. The promise behind it is made only when something asks for the result
 * (graphql-js does; graphql-jit and `await` do not), so a list item costs two small objects.
 */
class SlicedCall<T, A> implements Job, PromiseLike<A> {
  /** 0 until it ran, then 1 (fulfilled) or 2 (the callback threw), when nothing asked for the result before. */
  private state: 0 | 1 | 2 = 0;
  private result: unknown;
  private promise: Promise<A> | null = null;
  private resolve: ((value: A | PromiseLike<A>) => void) | null = null;
  private reject: ((reason: unknown) => void) | null = null;

  constructor(
    private readonly value: T,
    private readonly onFulfilled: ((value: T) => A | PromiseLike<A>) | null | undefined,
    /** What items like this one cost (measured by the queue). */
    readonly cost: ItemCost,
  ) {}

  run(): void {
    let ok = true;
    let result: unknown;
    try {
      result = this.onFulfilled ? this.onFulfilled(this.value) : this.value;
    } catch (error) {
      ok = false;
      result = error;
    }
    if (this.resolve === null || this.reject === null) {
      this.state = ok ? 1 : 2;
      this.result = result;
    } else if (ok) this.resolve(result as A);
    else this.reject(result);
  }

  then<B = A, C = never>(
    onFulfilled?: ((value: A) => B | PromiseLike<B>) | null,
    onRejected?: ((reason: unknown) => C | PromiseLike<C>) | null,
  ): Promise<B | C> {
    this.promise ??= new Promise<A>((resolve, reject) => {
      if (this.state === 0) {
        this.resolve = resolve;
        this.reject = reject;
      } else if (this.state === 1) resolve(this.result as A);
      else reject(this.result);
    });
    return this.promise.then(onFulfilled, onRejected);
  }
}

/**
 * A value as a thenable whose callback runs in a slice of a later turn, called there
 * synchronously by the queue (not in a microtask after it), so the queue's clock counts
 * what it does: graphql-js and graphql-jit complete a list item that is a thenable in its
 * callback. `then` gives a thenable of the callback's result, as a promise's does.
 */
export class SlicedValue<T> implements PromiseLike<T> {
  /**
   * @param value - what the callbacks are given
   * @param cost - what completing such a value costs, measured as the queue runs them
   */
  constructor(
    private readonly value: T,
    private readonly cost: ItemCost,
  ) {}

  /** Calls `onFulfilled` with the value in a slice of a later turn; never rejects by itself. */
  then<A = T, B = never>(
    onFulfilled?: ((value: T) => A | PromiseLike<A>) | null,
    _onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): PromiseLike<A | B> {
    const call = new SlicedCall<T, A>(this.value, onFulfilled, this.cost);
    enqueue(call);
    return call;
  }
}
