/**
 * The pollers behind every subscription: one per (key, upstream resource), shared by
 * every subscriber of that key, polling through the same economy as queries.
 */
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { UpstreamEconomy } from '../economy';
import { GatewayError } from '../errors/gateway-error';
import type { UpstreamSession } from '../economy';
import { isDefinitive } from '../domains/feeds/feed';
import type { Feed, FeedMessage, PollClock } from '../domains/feeds/feed';
import { PollSession, SYSTEM_CLOCK, pollFailedError, serializeError } from './poll-session';
import { newPoller } from './poller';
import type { Poller } from './poller';
import type { PollRelay, RelayMessage } from './redis-relay';
import type { SubscriptionMetrics } from './subscription-metrics';

export type { PollClock } from '../domains/feeds/feed';

/** Settings of {@link PollHub}. */
export interface PollHubOptions {
  /** The upstream economy the polls go through (`fetchInBackground`: same cache, coalescing and per-key budget as queries, behind them). */
  economy: UpstreamEconomy;
  /** The polling interval of an endpoint before stretching: its freshness window, ms. */
  intervalMs(feed: Feed<unknown, unknown>): number;
  /** Consecutive failed polls after which subscribers get an error event (≥ 1). */
  errorEventsAfter: number;
  /** First retry delay after a failed poll, ms; doubled per further failure, capped at the interval. */
  retryBaseMs: number;
  /**
   * Upstream requests per minute the key may spend on polling now (`Infinity` = no
   * budget: never stretched). Asked at every scheduling, so a key whose allowance the
   * upstream lowered (a 429) stretches its polls at once.
   */
  pollBudgetPerMinute(keyId: string): number;
  /** Timers and time; the real clock when omitted. */
  clock?: PollClock;
  /** Redis relay, when replicas share one poller per key and resource. */
  relay?: PollRelay;
  /** Where polls, events, intervals and pollers are counted; none when omitted. */
  metrics?: SubscriptionMetrics;
  /** Where an unexpected poll failure is logged (expected ones are `GatewayError`s and only counted). */
  logger?: Logger;
}

/** Who polls: the API key (sent upstream) and its hash (the identity of all state). */
export interface PollCaller {
  /** The bearer key, sent upstream with every poll; never logged. */
  apiKey: string;
  /** The hashed key (`keyId`): the identity of the pollers, budgets and cache entries. */
  keyId: string;
}

/**
 * The pollers of one process.
 *
 * - One poller per (hashed key, resource) serves every subscriber of the key; a poll
 *   goes through the economy as background work (`economy.fetchInBackground`): the
 *   same cache, coalescing and per-key budget as queries, but queued behind them, so a
 *   query waiting for budget goes first and polls never take the key past its budget.
 *   A fresh cached answer counts as the poll's result (at no cost); a poll that fetches
 *   stores its answer, refreshing the cache for queries.
 * - The first poll runs when the first subscriber arrives: its definitive failure
 *   (not owned, missing scope or premium) fails the subscription at once.
 * - The interval is the resource's freshness window, stretched when the key's polls
 *   would take more than its polling budget.
 * - Changes are diffed once per poll; an event goes out only when something changed.
 * - A failed poll is retried with backoff; after `errorEventsAfter` failures in a row
 *   subscribers get one error event; a definitive failure ends the subscriptions.
 * - With a relay (Redis), exactly one replica polls each (key, resource); the others
 *   get its events and states through the relay and take over when it stops.
 * - The last subscriber leaving stops the poller.
 */
export class PollHub {
  /**
   * Emits `polled(kind, outcome)` after every poll (`changed`, `unchanged`, `failed`),
   * `joined(kind)` when a subscriber's first poll has answered and `stopped(kind)` when
   * a poller stops, so tests and tools can wait for them
   * instead of sleeping.
   */
  readonly activity = new EventEmitter();
  private readonly pollers = new Map<string, Poller>();
  private readonly clock: PollClock;
  /** Polls in flight, and who waits for there to be none. */
  private inFlight = 0;
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly options: PollHubOptions) {
    this.clock = options.clock ?? SYSTEM_CLOCK;
  }

  /**
   * Adds a subscriber to the poller of (key, resource), starting it when needed, and
   * resolves once the first poll has answered.
   *
   * @returns the function that removes the subscriber again
   * @throws GatewayError when the first poll failed definitively (`NOT_FOUND`, `FORBIDDEN`, …)
   */
  async subscribe<S, E>(
    caller: PollCaller,
    feed: Feed<S, E>,
    listener: (message: FeedMessage<E>) => void,
  ): Promise<() => void> {
    const id = `${caller.keyId}|${feed.resource}`;
    let poller = this.pollers.get(id);
    if (!poller) {
      poller = this.start(id, caller, feed as Feed<unknown, unknown>);
    }
    const typed = listener as (message: FeedMessage<unknown>) => void;
    poller.listeners.add(typed);
    const current = poller;
    try {
      await current.ready;
    } catch (error) {
      this.leave(current, typed);
      throw error;
    }
    this.activity.emit('joined', feed.kind);
    return () => this.leave(current, typed);
  }

  /**
   * Joins the poller of (key, resource) as an observer: `observer` gets every state this
   * replica polls (the first one too, unlike events), with the session of that poll, so
   * it can read further pages within the same budget. On a replica that follows another's
   * poller (Redis), it gets each changed state the leader relays, without a session (the
   * leader polls; the follower reads nothing upstream). Its promise is not awaited (it
   * must not block the poller); it counts as a subscriber, so the poller runs while it
   * watches. Resolves once the first poll has answered.
   *
   * @returns the function that stops watching
   * @throws GatewayError when the first poll failed definitively
   */
  async watch<S>(
    caller: PollCaller,
    feed: Feed<S, unknown>,
    observer: (state: S, session: UpstreamSession | null) => Promise<void>,
  ): Promise<() => void> {
    const typed = observer as (state: unknown, session: UpstreamSession | null) => Promise<void>;
    const id = `${caller.keyId}|${feed.resource}`;
    const existing = this.pollers.get(id);
    // A poller that already has a state: the observer starts from it.
    if (existing?.state && existing.leading)
      void typed(
        existing.state.value,
        new PollSession(this.options.economy, caller.apiKey, caller.keyId, 'background'),
      ).catch(() => undefined);
    const poller = existing ?? this.start(id, caller, feed as Feed<unknown, unknown>);
    poller.observers.add(typed);
    const leave = await this.subscribe(caller, feed, () => undefined).catch((error: unknown) => {
      poller.observers.delete(typed);
      throw error;
    });
    return () => {
      poller.observers.delete(typed);
      leave();
    };
  }

  /** Pollers running in this process (for tests and metrics). */
  get size(): number {
    return this.pollers.size;
  }

  /** Pollers this process polls itself (leads), by kind. */
  leading(kind?: string): number {
    let count = 0;
    for (const poller of this.pollers.values()) if (poller.leading && (!kind || poller.feed.kind === kind)) count += 1;
    return count;
  }

  /** The interval the poller of (key, resource) uses now, ms (undefined when none runs). */
  currentIntervalMs(keyId: string, resource: string): number | undefined {
    const poller = this.pollers.get(`${keyId}|${resource}`);
    return poller ? this.intervalMs(poller) : undefined;
  }

  /** Resolves once no poll is in flight (at once when none is): tests step a manual clock with it. */
  settled(): Promise<void> {
    return this.inFlight === 0 ? Promise.resolve() : new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops every poller (server shutdown). */
  close(): void {
    for (const poller of [...this.pollers.values()]) this.stop(poller);
  }

  private start(id: string, caller: PollCaller, feed: Feed<unknown, unknown>): Poller {
    const poller = newPoller(id, caller, feed, !this.options.relay);
    this.pollers.set(id, poller);
    poller.ready = this.begin(poller);
    // Nobody may be waiting when a later subscriber joins; keep an unhandled rejection quiet.
    poller.ready.catch(() => undefined);
    return poller;
  }

  /** The first poll, then the schedule (or, as a follower, the relay). */
  private async begin(poller: Poller): Promise<void> {
    const relay = this.options.relay;
    if (relay) await relay.join(poller.id, (message) => this.fromRelay(poller, message));
    const outcome = await this.pollOnce(poller, true, true);
    if (outcome === 'definitive') return;
    if (relay) {
      poller.leading = await relay.lead(poller.id, this.leaseMs(poller));
      this.updatePollerGauges();
    }
    this.schedule(poller, outcome === 'ok' ? this.intervalMs(poller) : this.retryDelayMs(poller));
  }

  private leave(poller: Poller, listener: (message: FeedMessage<unknown>) => void): void {
    poller.listeners.delete(listener);
    if (poller.listeners.size === 0) this.stop(poller);
  }

  private stop(poller: Poller): void {
    if (poller.stopped) return;
    poller.stopped = true;
    this.clock.clearTimeout(poller.timer);
    if (this.pollers.get(poller.id) === poller) this.pollers.delete(poller.id);
    const relay = this.options.relay;
    if (relay) {
      void relay.leave(poller.id);
      if (poller.leading) void relay.resign(poller.id);
    }
    poller.leading = false;
    this.updatePollerGauges();
    this.activity.emit('stopped', poller.feed.kind);
  }

  private schedule(poller: Poller, delayMs: number): void {
    if (poller.stopped) return;
    this.clock.clearTimeout(poller.timer);
    poller.timer = this.clock.setTimeout(() => void this.tick(poller), delayMs);
  }

  /** One scheduled turn: poll when leading; a follower tries to take the lead (the leader may be gone). */
  private async tick(poller: Poller): Promise<void> {
    if (poller.stopped) return;
    const relay = this.options.relay;
    if (relay) {
      poller.leading = await relay.lead(poller.id, this.leaseMs(poller));
      this.updatePollerGauges();
      if (poller.stopped) return;
      if (!poller.leading) {
        this.schedule(poller, this.intervalMs(poller));
        return;
      }
    }
    this.inFlight += 1;
    try {
      const outcome = await this.pollOnce(poller, poller.state === null, false);
      if (outcome === 'definitive') return;
      this.schedule(poller, outcome === 'ok' ? this.intervalMs(poller) : this.retryDelayMs(poller));
    } finally {
      this.inFlight -= 1;
      if (this.inFlight === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  /**
   * Polls once and tells the subscribers what changed.
   *
   * @param first - no poll has succeeded yet (the feed checks ownership)
   * @param starting - the poll that starts the poller: a definitive failure rejects
   *   instead of being delivered, so the subscription itself fails
   * @throws GatewayError from the starting poll's definitive failure (through `ready`).
   */
  private async pollOnce(poller: Poller, first: boolean, starting: boolean): Promise<'ok' | 'failed' | 'definitive'> {
    const { feed, keyId, apiKey } = poller;
    // The starting poll has a subscriber waiting for it: `missed` priority, still behind
    // operations. Later polls have nobody waiting: `background`.
    const session = new PollSession(this.options.economy, apiKey, keyId, starting ? 'missed' : 'background');
    let value: unknown;
    try {
      value = await feed.poll(session, first);
    } catch (error) {
      if (poller.stopped) return 'definitive';
      return this.failed(poller, error, starting);
    }
    if (poller.stopped) return 'definitive';
    const observedAt = new Date(this.clock.now());
    const previous = poller.state;
    poller.state = { value };
    poller.failures = 0;
    const events = previous ? feed.diff(previous.value, value, observedAt) : [];
    for (const observer of [...poller.observers]) void observer(value, session).catch(() => undefined);
    this.options.metrics?.polled(feed.kind, events.length > 0 ? 'changed' : 'unchanged');
    this.activity.emit('polled', feed.kind, events.length > 0 ? 'changed' : 'unchanged');
    if (events.length > 0) {
      this.options.metrics?.events(feed.kind, events.length);
      for (const event of events) this.deliver(poller, { kind: 'event', event });
      void this.options.relay?.publish(poller.id, { events, state: value });
    }
    return 'ok';
  }

  private failed(poller: Poller, error: unknown, starting: boolean): 'failed' | 'definitive' {
    const known =
      error instanceof GatewayError
        ? error
        : new GatewayError('INTERNAL_SERVER_ERROR', 'The poll failed unexpectedly.');
    if (!(error instanceof GatewayError))
      this.options.logger?.error({ err: error, resource: poller.feed.kind }, 'subscription poll failed unexpectedly');
    this.options.metrics?.polled(poller.feed.kind, 'failed');
    this.activity.emit('polled', poller.feed.kind, 'failed');
    if (isDefinitive(known)) {
      this.stop(poller);
      if (starting) throw known;
      this.deliver(poller, { kind: 'error', error: known, final: true });
      void this.options.relay?.publish(poller.id, { error: serializeError(known), final: true });
      return 'definitive';
    }
    poller.failures += 1;
    if (poller.failures === this.options.errorEventsAfter) {
      const event = pollFailedError(known, poller.failures);
      this.deliver(poller, { kind: 'error', error: event, final: false });
      void this.options.relay?.publish(poller.id, { error: serializeError(event), final: false });
    }
    return 'failed';
  }

  private deliver(poller: Poller, message: FeedMessage<unknown>): void {
    for (const listener of [...poller.listeners]) listener(message);
  }

  /** A message of the replica that polls: deliver it, and keep its state for a later takeover. */
  private fromRelay(poller: Poller, message: RelayMessage): void {
    if (poller.leading || poller.stopped) return;
    if ('events' in message) {
      poller.state = { value: message.state };
      poller.feed.adopt?.(message.state);
      for (const event of message.events) this.deliver(poller, { kind: 'event', event });
      // Observers here see what the leader polled: e.g. payment matching, when the leader's
      // poller serves only transactionAdded subscribers.
      for (const observer of [...poller.observers]) void observer(message.state, null).catch(() => undefined);
      return;
    }
    const error = new GatewayError(message.error.code, message.error.message, message.error.extensions);
    if (message.final) this.stop(poller);
    this.deliver(poller, { kind: 'error', error, final: message.final });
  }

  /** Base interval × the key's stretch factor. */
  private intervalMs(poller: Poller): number {
    const base = this.options.intervalMs(poller.feed);
    const interval = Math.round(base * this.stretch(poller.keyId));
    this.options.metrics?.interval(poller.feed.kind, interval / 1000);
    return interval;
  }

  /**
   * How much the key's intervals are stretched: 1 while its polls per minute fit in its
   * polling budget, else polls ÷ budget (so together they stay within it).
   */
  private stretch(keyId: string): number {
    const budget = this.options.pollBudgetPerMinute(keyId);
    if (!Number.isFinite(budget) || budget <= 0) return 1;
    let perMinute = 0;
    for (const poller of this.pollers.values()) {
      if (poller.keyId === keyId && poller.leading)
        perMinute += 60_000 / Math.max(1, this.options.intervalMs(poller.feed));
    }
    return Math.max(1, perMinute / budget);
  }

  /** Backoff after `failures` failed polls in a row: base × 2^(n−1), at most the interval. */
  private retryDelayMs(poller: Poller): number {
    const interval = this.intervalMs(poller);
    return Math.min(interval, this.options.retryBaseMs * 2 ** Math.max(0, poller.failures - 1));
  }

  /** The leader's lease: long enough to survive one slow poll, short enough for a quick takeover. */
  private leaseMs(poller: Poller): number {
    return this.intervalMs(poller) * 2 + 5_000;
  }

  private updatePollerGauges(): void {
    this.options.metrics?.pollers(this.pollers.size, this.leading());
  }
}
