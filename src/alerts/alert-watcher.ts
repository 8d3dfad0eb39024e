/**
 * Runs the vault's alert rules on the subscriptions' pollers: one watch per (key, resource)
 * whatever the number of rules over it (and the poll hub shares that poller with every
 * subscription and live query of the key), so rules add no upstream request of their own.
 * Each state the replica polls itself is evaluated for every rule over it (a state another
 * replica relays is that replica's to evaluate), with what their source reads beside it once
 * (TRANSACTION_ADDED's further pages, see alert-feeds.ts); each event goes to the sink
 * first, then the rule's state is kept, so a crash in between enqueues the same event id
 * again (a duplicate the outbox drops) and never loses one.
 */
import type { UpstreamSession } from '../economy';
import { hashedKey } from '../pipeline/key-in-use';
import type { Feed } from '../domains/feeds/feed';
import type { OpenedAlert } from '../vault';
import type { AlertEvent, AlertSink, AlertTarget } from './alert-event';
import { ruleSources } from './alert-feeds';
import type { RuleSource } from './alert-feeds';
import type { RuleState } from './alert-conditions';
import type { AlertStateStore } from './alert-state';

/** Who polls: the key (sent upstream) and its hash (the identity of the pollers). */
export interface RuleCaller {
  /** The StateV key; never logged. */
  readonly apiKey: string;
  /** Its hash (`keyId`). */
  readonly keyId: string;
}

/** The poll hub as the rules use it (`PollHub.watch` of src/subscriptions/). */
export interface RulePolling {
  /**
   * Joins (or starts) the poller of the feed's resource for the caller's key; `observer` gets
   * each state (with the session of the poll, or null when another replica polled it).
   *
   * @returns the function that leaves the poller
   * @throws GatewayError when the first poll failed definitively
   */
  watch(
    caller: RuleCaller,
    feed: Feed<unknown, unknown>,
    observer: (state: unknown, session: UpstreamSession | null) => Promise<void>,
  ): Promise<() => void>;
}

/** What the watcher needs. */
export interface AlertWatcherOptions {
  /** The pollers. */
  readonly polling: RulePolling;
  /** The rules as the vault holds them now (opened). */
  readonly rules: () => readonly OpenedAlert[];
  /** Where events go (the outbox). */
  readonly sink: AlertSink;
  /** Where each rule keeps what it last saw. */
  readonly state: AlertStateStore;
  /** `KEY_HASH_SECRET`: a key's poller identity. */
  readonly keyHashSecret: string;
  /** The clock, ms. */
  readonly now?: () => number;
  /** Told of a failure (a watch that could not start, an evaluation or enqueue that failed); never a key or URL. */
  readonly onError?: (message: string, error: unknown) => void;
  /** How long after a watch failed to start it is tried again, ms (default 10 min; a change of the vault tries at once). */
  readonly retryMs?: number;
}

/** One (key, resource) watched, and the rules over it. */
interface Watch {
  readonly caller: RuleCaller;
  readonly resource: string;
  rules: Array<{ readonly rule: OpenedAlert; readonly source: RuleSource }>;
  readonly stop: Promise<(() => void) | null>;
  /** Evaluations run one after the other. */
  chain: Promise<void>;
}

/** The target of a rule, with its URL and secret in clear. */
function targetOf(rule: OpenedAlert): AlertTarget {
  return rule.target === 'WEBHOOK'
    ? { kind: 'WEBHOOK', url: rule.url, secret: rule.secret ?? '' }
    : { kind: 'DISCORD', url: rule.url };
}

/** The vault's rules, watched. One per gateway. */
export class AlertWatcher {
  private readonly watches = new Map<string, Watch>();
  private known = new Set<string>();
  private readonly now: () => number;
  private timer: NodeJS.Timeout | null = null;
  private syncing: Promise<void> = Promise.resolve();
  private closed = false;
  /** Rules whose problem was logged (once each). */
  private readonly told = new Set<string>();
  /** Watches whose start failed (not owned, a scope or premium missing), and when: not tried again on every round. */
  private readonly failed = new Map<string, number>();

  /** @param options - see {@link AlertWatcherOptions} */
  constructor(private readonly options: AlertWatcherOptions) {
    this.now = options.now ?? (() => Date.now());
  }

  /** Watches the rules now, and looks every minute for watches that failed `retryMs` ago or more, to try them again. */
  start(): Promise<void> {
    this.timer = setInterval(() => void this.sync(false), 60_000);
    this.timer.unref();
    return this.sync();
  }

  /**
   * Brings the watches in line with the vault's rules (call it after each change of the
   * vault); one sync at a time.
   *
   * @param retryAll - also try again at once the watches that failed lately (a changed vault may have fixed them)
   */
  sync(retryAll = true): Promise<void> {
    this.syncing = this.syncing.catch(() => undefined).then(() => this.syncNow(retryAll));
    return this.syncing;
  }

  /** How many (key, resource) pairs are watched (tests). */
  get size(): number {
    return this.watches.size;
  }

  /** Waits for the evaluations started so far (tests). */
  async settled(): Promise<void> {
    await this.syncing;
    await Promise.all([...this.watches.values()].map((watch) => watch.chain));
  }

  /** When a rule last fired, as its kept state says, or null. */
  async lastFiredAt(rule: Pick<OpenedAlert, 'id' | 'kind' | 'params' | 'createdAt'>): Promise<Date | null> {
    let last: string | null = null;
    for (const source of ruleSources(rule)) {
      const state = await this.options.state.get(`${rule.id}|${source.feed.resource}`);
      if (state?.firedAt && (last === null || state.firedAt > last)) last = state.firedAt;
    }
    return last === null ? null : new Date(last);
  }

  /** Stops every watch. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.syncing.catch(() => undefined);
    const watches = [...this.watches.values()];
    this.watches.clear();
    for (const watch of watches) (await watch.stop)?.();
  }

  private async syncNow(retryAll: boolean): Promise<void> {
    if (this.closed) return;
    if (retryAll) this.failed.clear();
    const wanted = new Map<string, { caller: RuleCaller; feed: Feed<unknown, unknown>; rules: Watch['rules'] }>();
    const rules = this.options.rules();
    for (const rule of rules) {
      // The rule is the key's holder for as long as the opened vault lives: hashed once, in THE memo.
      const caller = hashedKey(rule, this.options.keyHashSecret);
      for (const source of ruleSources(rule)) {
        const id = `${caller.keyId}|${source.feed.resource}`;
        const entry = wanted.get(id) ?? { caller, feed: source.feed, rules: [] };
        entry.rules.push({ rule, source });
        wanted.set(id, entry);
      }
    }
    for (const [id, watch] of [...this.watches]) {
      if (wanted.has(id)) continue;
      this.watches.delete(id);
      (await watch.stop)?.();
    }
    const ids = new Set(rules.map((rule) => rule.id));
    for (const gone of [...this.known].filter((id) => !ids.has(id)))
      await this.options.state.forget(gone).catch((error: unknown) => this.options.onError?.('alert state', error));
    this.known = ids;
    for (const [id, entry] of wanted) {
      const existing = this.watches.get(id);
      if (existing) {
        existing.rules = entry.rules;
        continue;
      }
      const failedAt = this.failed.get(id);
      if (failedAt !== undefined && this.now() - failedAt < (this.options.retryMs ?? 600_000)) continue;
      this.failed.delete(id);
      const watch: Watch = {
        caller: entry.caller,
        resource: entry.feed.resource,
        rules: entry.rules,
        stop: Promise.resolve(null),
        chain: Promise.resolve(),
      };
      const stop = this.options.polling
        .watch(entry.caller, entry.feed, (state, session) => {
          // A state another replica polled is evaluated there.
          if (session === null) return Promise.resolve();
          watch.chain = watch.chain.then(() => this.evaluate(watch, state, session));
          return watch.chain;
        })
        .catch((error: unknown) => {
          if (this.watches.get(id) === watch) this.watches.delete(id);
          this.failed.set(id, this.now());
          this.options.onError?.(
            `alert rules ${watch.rules.map((each) => each.rule.id).join(', ')} cannot watch ${entry.feed.kind}`,
            error,
          );
          return null;
        });
      (watch as { stop: Promise<(() => void) | null> }).stop = stop;
      this.watches.set(id, watch);
    }
    await Promise.all([...this.watches.values()].map((watch) => watch.stop));
  }

  /** Evaluates one polled state for every rule over it. */
  private async evaluate(watch: Watch, polled: unknown, session: UpstreamSession): Promise<void> {
    const rules = watch.rules;
    const read = await this.read(watch.resource, rules, polled, session);
    if (read === null) return;
    for (const [index, { rule, source }] of rules.entries()) {
      try {
        const key = `${rule.id}|${watch.resource}`;
        const previous = read.states?.[index] ?? (await this.options.state.get(key)) ?? {};
        const now = this.now();
        const { firings, state, problem } = source.evaluate(previous, read.value, now, session);
        if (problem !== undefined && !this.told.has(rule.id)) {
          this.told.add(rule.id);
          this.options.onError?.(`alert rule ${rule.id}: ${problem}`, null);
        }
        const detectedAt = new Date(now).toISOString();
        for (const firing of firings) {
          const event: AlertEvent = {
            eventId: `${rule.id}:${firing.occurrence}`,
            ruleId: rule.id,
            character: rule.character,
            detectedAt,
            facts: firing.facts,
          };
          await this.options.sink.enqueue(event, targetOf(rule));
        }
        await this.options.state.set(key, { ...state, firedAt: firings.length > 0 ? detectedAt : previous.firedAt });
      } catch (error) {
        this.options.onError?.(`alert rule ${rule.id}`, error);
      }
    }
  }

  /**
   * What the rules over a resource evaluate: the polled state, or what their source's `read`
   * makes of it with their kept states (read here once: returned too). Null when that read
   * failed: no rule is evaluated and no state changes, so the next poll reads again.
   */
  private async read(
    resource: string,
    rules: Watch['rules'],
    polled: unknown,
    session: UpstreamSession,
  ): Promise<{ value: unknown; states?: RuleState[] } | null> {
    const read = rules[0]?.source.read;
    if (!read) return { value: polled };
    try {
      const states = await Promise.all(
        rules.map(async ({ rule }) => (await this.options.state.get(`${rule.id}|${resource}`)) ?? {}),
      );
      return { value: await read(polled, session, states), states };
    } catch (error) {
      this.options.onError?.(
        `alert rules ${rules.map((each) => each.rule.id).join(', ')} cannot read ${resource}`,
        error,
      );
      return null;
    }
  }
}
