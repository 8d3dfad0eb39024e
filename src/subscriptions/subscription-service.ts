import type { GatewayContext } from '../context';
import { GatewayError, missingKeyError } from '../errors/gateway-error';
import { noTransportError } from '../domains/feeds/feed';
import type { Feed, FeedMessage, FeedOpener, SubscriptionScope as FeedScope } from '../domains/feeds/feed';
import type { PollHub } from './poll-hub';
import type { SubscriptionMetrics } from './subscription-metrics';

/** One client connection: a WebSocket, or one SSE connection (or reservation). */
export class SubscriptionConnection {
  /** Subscriptions open on it. */
  active = 0;
  /**
   * Subscriptions admitted on it that hold no place yet (their resolver has not run), by
   * their scope: the limits count them with {@link active}, so that a burst of subscribe
   * messages cannot all pass before the first starts; one leaves this set when it takes its
   * place or its client completes it ({@link SubscriptionService.leave}).
   */
  readonly starting = new Set<object>();

  constructor(
    /** The transport: `ws` (graphql-transport-ws) or `sse` (graphql-sse). */
    readonly transport: 'ws' | 'sse',
    /** The client's address (see src/http/client-address.ts): its live-query subscribers count against `LIVE_QUERY_SUBSCRIBERS_MAX_PER_ADDRESS`. */
    readonly address: string = 'unknown',
  ) {}
}

/** What a subscription's context carries besides the usual {@link GatewayContext}: the feed scope, and its connection. */
export interface SubscriptionScope extends FeedScope {
  /** The service that opened the subscription. */
  readonly service: SubscriptionService;
  /** The connection it came over (its subscriptions count against `SUBSCRIPTIONS_MAX_PER_CONNECTION`). */
  readonly connection: SubscriptionConnection;
}

/** The context of an operation; `subscription` is set for subscriptions (WebSocket or SSE). */
export type SubscriptionContext = GatewayContext & { subscription?: SubscriptionScope };

/** Limits of {@link SubscriptionService}. */
export interface SubscriptionLimits {
  /** Open subscriptions per key on this replica (`SUBSCRIPTIONS_MAX_PER_KEY`). */
  maxPerKey: number;
  /** Open subscriptions per connection (`SUBSCRIPTIONS_MAX_PER_CONNECTION`). */
  maxPerConnection: number;
  /** Live-query subscribers per client address (`LIVE_QUERY_SUBSCRIBERS_MAX_PER_ADDRESS`); none: no limit. */
  maxLiveSubscribersPerAddress?: number;
}

/** What the limits read of a connection (a connection, or one with the subscriptions admitted in this turn added). */
export type CountedConnection = Pick<SubscriptionConnection, 'transport' | 'active' | 'address'>;

/**
 * A subscription's events, in order. `return()` (the client unsubscribed or went
 * away) ends it at once and runs its cleanup exactly once, also when no event was
 * ever asked for; a final message is delivered before the stream ends.
 */
class EventStream<T> implements AsyncIterableIterator<T> {
  private readonly buffer: T[] = [];
  private readonly waiting: Array<(result: IteratorResult<T>) => void> = [];
  private ended = false;

  constructor(private readonly cleanup: () => void) {}

  push(value: T): void {
    if (this.ended) return;
    const waiter = this.waiting.shift();
    if (waiter) waiter({ value, done: false });
    else this.buffer.push(value);
  }

  /** Ends the stream after what is buffered. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.cleanup();
    for (const waiter of this.waiting.splice(0)) waiter({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<T>> {
    const value = this.buffer.shift();
    if (value !== undefined) return Promise.resolve({ value, done: false });
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  return(): Promise<IteratorResult<T>> {
    this.buffer.length = 0;
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}

/** `release`, run on the first call only (a hold's release is idempotent). */
function releaseOnce(release: () => void): () => void {
  let released = false;
  return () => {
    if (released) return;
    released = true;
    release();
  };
}

/**
 * Opens subscriptions: checks the key and the limits, adds the subscriber to the
 * pollers of its feeds, and turns their messages into the event stream graphql-js
 * executes the selection over.
 *
 * When to use: one per process; the `@Subscription` resolvers call {@link open}.
 */
export class SubscriptionService implements FeedOpener {
  /** The releases of the places each operation holds, by its scope (see {@link track}). */
  private readonly places = new WeakMap<object, Set<() => void>>();
  /** Scopes whose client completed them: a place they take later is given back at once. */
  private readonly left = new WeakSet<object>();
  private readonly perKey = new Map<string, number>();
  private readonly perAddress = new Map<string, number>();
  private overKey: GatewayError<'RATE_LIMITED'> | undefined;
  private overConnection: GatewayError<'RATE_LIMITED'> | undefined;
  private overAddress: GatewayError<'RATE_LIMITED'> | undefined;

  constructor(
    /** The pollers the subscriptions are fed by. */
    readonly hub: PollHub,
    private readonly limits: SubscriptionLimits,
    private readonly metrics?: SubscriptionMetrics,
  ) {}

  /** Open subscriptions of a hashed key on this replica (a live query shared by many subscribers counts once). */
  openFor(keyId: string): number {
    return this.perKey.get(keyId) ?? 0;
  }

  /** Live-query subscribers from a client address on this replica. */
  liveSubscribersFrom(address: string): number {
    return this.perAddress.get(address) ?? 0;
  }

  /**
   * Starts a subscription over one or more feeds (`myAuctionChanged` has two, an
   * all-slots `factoryOptionChanged` ten) and resolves once their first polls answered.
   *
   * @throws GatewayError `UNAUTHENTICATED` without a key, `RATE_LIMITED` over a limit,
   *   and the first poll's definitive error (`NOT_FOUND`, `FORBIDDEN`, `UPSTREAM_BAD_REQUEST`).
   */
  async open<E>(
    ctx: SubscriptionContext,
    feeds: ReadonlyArray<Feed<unknown, E>>,
  ): Promise<AsyncIterableIterator<FeedMessage<E>>> {
    const scope = ctx.subscription;
    if (!scope) throw noTransportError();
    const { apiKey } = ctx;
    const keyId = ctx.session.keyId;
    if (!apiKey || !keyId) throw this.refuse(missingKeyError());
    // Completed before it started: no place, no poll.
    if (this.left.has(scope)) {
      const ended = new EventStream<FeedMessage<E>>(() => undefined);
      ended.end();
      return ended;
    }
    // Counted before the first poll, so subscriptions that start together count too; freed at
    // once when the client completes it during that poll (see leave).
    const held = this.track(scope, this.hold(keyId, scope.connection));
    const leaves: Array<() => void> = [];
    const release = (): void => {
      for (const leave of leaves.splice(0)) leave();
      held();
    };
    const stream = new EventStream<FeedMessage<E>>(release);
    const listener = (message: FeedMessage<E>): void => {
      stream.push(message);
      if (message.kind === 'error' && message.final) stream.end();
    };
    try {
      for (const feed of feeds) leaves.push(await this.hub.subscribe({ apiKey, keyId }, feed, listener));
    } catch (error) {
      release();
      if (error instanceof GatewayError) this.metrics?.refused(error.code);
      throw error;
    }
    return stream;
  }

  /** See {@link FeedOpener.count}: {@link hold} for the context's key and connection. */
  count(ctx: SubscriptionContext): () => void {
    const keyId = ctx.session.keyId;
    if (!ctx.subscription) throw noTransportError();
    if (!ctx.apiKey || !keyId) throw this.refuse(missingKeyError());
    return this.track(ctx.subscription, this.hold(keyId, ctx.subscription.connection));
  }

  /** Counts an admitted subscription of `scope` as starting on its connection (see {@link SubscriptionConnection.starting}). */
  admit(scope: SubscriptionScope): void {
    scope.connection.starting.add(scope);
  }

  /**
   * Records `release`, the release of a place `scope` took (it is no longer starting), so
   * that {@link leave} frees it at once; a scope that has left gets it freed now.
   * Returns `release` (idempotent).
   */
  track(scope: SubscriptionScope, release: () => void): () => void {
    scope.connection.starting.delete(scope);
    if (this.left.has(scope)) {
      release();
      return release;
    }
    let held = this.places.get(scope);
    if (!held) this.places.set(scope, (held = new Set()));
    const tracked = releaseOnce(() => {
      held.delete(tracked);
      release();
    });
    held.add(tracked);
    return tracked;
  }

  /**
   * The client completed (or the transport ended) the operation of `scope`: its places are
   * freed now, even while its start (a first poll) is still under way, so that churn over
   * one connection is counted as what the client holds. Idempotent.
   */
  leave(scope: SubscriptionScope): void {
    this.left.add(scope);
    scope.connection.starting.delete(scope);
    const held = this.places.get(scope);
    if (!held) return;
    this.places.delete(scope);
    for (const release of [...held]) release();
  }

  /**
   * Counts one open subscription (or live query) of `keyId` on `connection` against the
   * limits, and returns its release (idempotent).
   *
   * @throws GatewayError `RATE_LIMITED` when it would go over a limit (see {@link limitRefusal})
   */
  hold(keyId: string, connection: SubscriptionConnection): () => void {
    const overLimit = this.limitRefusal(keyId, connection);
    if (overLimit) throw this.refuse(overLimit);
    this.perKey.set(keyId, this.openFor(keyId) + 1);
    connection.active += 1;
    this.metrics?.opened(connection.transport, 1);
    return releaseOnce(() => {
      this.releaseKey(keyId);
      connection.active -= 1;
      this.metrics?.opened(connection.transport, -1);
    });
  }

  /**
   * Counts one distinct live query of `keyId` (its execution, shared by all its
   * subscribers) against `SUBSCRIPTIONS_MAX_PER_KEY`, and returns its release (idempotent).
   *
   * @throws GatewayError `RATE_LIMITED` when the key is at its limit
   */
  holdLiveExecution(keyId: string): () => void {
    if (this.openFor(keyId) >= this.limits.maxPerKey) throw this.refuse(this.keyRefusal());
    this.perKey.set(keyId, this.openFor(keyId) + 1);
    this.metrics?.liveExecutions(1);
    return releaseOnce(() => {
      this.releaseKey(keyId);
      this.metrics?.liveExecutions(-1);
    });
  }

  /**
   * Counts one subscriber of a live query on `connection` against
   * `SUBSCRIPTIONS_MAX_PER_CONNECTION` and its address against
   * `LIVE_QUERY_SUBSCRIBERS_MAX_PER_ADDRESS`, and returns its release (idempotent).
   *
   * @throws GatewayError `RATE_LIMITED` when it would go over either limit
   */
  holdLiveSubscriber(connection: SubscriptionConnection): () => void {
    const overLimit = this.liveLimitRefusal(connection);
    if (overLimit) throw this.refuse(overLimit);
    const { address } = connection;
    this.perAddress.set(address, this.liveSubscribersFrom(address) + 1);
    connection.active += 1;
    this.metrics?.opened(connection.transport, 1);
    return releaseOnce(() => {
      const left = this.liveSubscribersFrom(address) - 1;
      if (left > 0) this.perAddress.set(address, left);
      else this.perAddress.delete(address);
      connection.active -= 1;
      this.metrics?.opened(connection.transport, -1);
    });
  }

  /**
   * The `RATE_LIMITED` error of a live-query subscriber that would go over its
   * connection's limit (`SUBSCRIPTIONS_MAX_PER_CONNECTION`) or its address's
   * (`LIVE_QUERY_SUBSCRIBERS_MAX_PER_ADDRESS`) now; null when it may subscribe. The key's
   * limit is not asked here: a subscriber of a live query already running takes no place
   * of the key (see {@link holdLiveExecution}).
   */
  liveLimitRefusal(connection: CountedConnection): GatewayError<'RATE_LIMITED'> | null {
    const overConnection = this.limitRefusal(null, connection);
    if (overConnection) return overConnection;
    const max = this.limits.maxLiveSubscribersPerAddress;
    if (max !== undefined && this.liveSubscribersFrom(connection.address) >= max) {
      return (this.overAddress ??= new GatewayError(
        'RATE_LIMITED',
        `This address has ${max} open live queries, the most allowed (LIVE_QUERY_SUBSCRIBERS_MAX_PER_ADDRESS). Close one first.`,
        { limit: max, setting: 'LIVE_QUERY_SUBSCRIBERS_MAX_PER_ADDRESS' },
      ));
    }
    return null;
  }

  private releaseKey(keyId: string): void {
    const left = this.openFor(keyId) - 1;
    if (left > 0) this.perKey.set(keyId, left);
    else this.perKey.delete(keyId);
  }

  private keyRefusal(): GatewayError<'RATE_LIMITED'> {
    return (this.overKey ??= new GatewayError(
      'RATE_LIMITED',
      `This key has ${this.limits.maxPerKey} open subscriptions, the most allowed (SUBSCRIPTIONS_MAX_PER_KEY). Close one first.`,
      { limit: this.limits.maxPerKey, setting: 'SUBSCRIPTIONS_MAX_PER_KEY' },
    ));
  }

  /**
   * The `RATE_LIMITED` error of a subscription that would go over a limit now: the key's
   * (`SUBSCRIPTIONS_MAX_PER_KEY`, when `keyId` is known) or the connection's
   * (`SUBSCRIPTIONS_MAX_PER_CONNECTION`); null when it may open. Cheap: the transports
   * ask it before parsing a subscribe message, so a burst over the limit costs little.
   *
   * @param keyId - the hashed key it would run with, or null (no key: only the connection counts)
   * @param connection - the connection it came on
   */
  limitRefusal(keyId: string | null, connection: CountedConnection): GatewayError<'RATE_LIMITED'> | null {
    // Built once: a burst of refusals builds no error (and captures no stack) each.
    if (keyId !== null && this.openFor(keyId) >= this.limits.maxPerKey) return this.keyRefusal();
    if (connection.active >= this.limits.maxPerConnection) {
      return (this.overConnection ??= new GatewayError(
        'RATE_LIMITED',
        `This connection has ${this.limits.maxPerConnection} open subscriptions, the most allowed (SUBSCRIPTIONS_MAX_PER_CONNECTION). Close one or open another connection.`,
        { limit: this.limits.maxPerConnection, setting: 'SUBSCRIPTIONS_MAX_PER_CONNECTION' },
      ));
    }
    return null;
  }

  /** Counts a refusal in the metrics (by code) and returns it. */
  refuse(error: GatewayError): GatewayError {
    this.metrics?.refused(error.code);
    return error;
  }
}
