/**
 * How a domain declares a subscribable resource: one {@link Feed} per (upstream
 * resource, arguments) gives the resource's fetch, its diff and its interval class, and
 * a `@Subscription` field opens it with {@link openFeeds} and answers each message with
 * {@link eventOf}. The poll hub, the relay and the transports (`src/subscriptions/`)
 * run feeds without knowing any domain; this module knows none either.
 */
import { GatewayError } from '../../errors/gateway-error';
import type { UpstreamSession } from '../../economy';
import type { Endpoint } from '../../upstream/endpoints';

/**
 * One polled upstream resource of one key. The poller keeps the last result and
 * calls {@link Feed.diff} once per poll; every subscriber gets the events it returns.
 *
 * @typeParam S - the state one poll reads (e.g. the list of a building's rooms)
 * @typeParam E - the GraphQL event one change becomes
 */
export interface Feed<S, E> {
  /** Label in `/metrics` (`resource`): a resource kind such as `rooms`, never an id or a key. */
  readonly kind: string;
  /** Identity within a key, e.g. `counter/<factoryId>`: one poller per key and resource. */
  readonly resource: string;
  /**
   * The interval class: the endpoint whose freshness window (`CACHE_TTL_*` of its cache
   * kind) is the polling interval before stretching.
   */
  readonly endpoint: Endpoint;
  /**
   * Fetches the current state. `first` is true for the poll that starts the
   * subscription, which also checks that the key owns what it names.
   *
   * @throws UpstreamError or GatewayError, as the query fields do.
   */
  poll(session: UpstreamSession, first: boolean): S | Promise<S>;
  /**
   * The events between two successive states, computed once per poll (usually from
   * `diffRecords` of `./changes`); an empty list when nothing changed.
   */
  diff(previous: S, next: S, observedAt: Date): E[];
  /** Takes a state another replica polled (its poller leads), without producing events. */
  adopt?(state: S): void;
}

/** What a subscriber receives: an event, or an error (the last message when `final`). */
export type FeedMessage<E> = { kind: 'event'; event: E } | { kind: 'error'; error: GatewayError; final: boolean };

/**
 * True for an answer that polling again will not change: a 400 (scope), 401 (key,
 * premium) or 404 (not owned). Such an error ends the subscription; any other is
 * retried.
 */
export function isDefinitive(error: unknown): boolean {
  if (!(error instanceof GatewayError)) return false;
  return (
    error.code === 'NOT_FOUND' ||
    error.code === 'FORBIDDEN' ||
    error.code === 'UPSTREAM_BAD_REQUEST' ||
    error.code === 'UNAUTHENTICATED'
  );
}

/** Whoever opens feeds for a subscriber: the subscription service of `src/subscriptions/`. */
export interface FeedOpener {
  /**
   * Starts a subscription over one or more feeds and resolves once their first polls
   * answered, with the stream of their messages.
   *
   * @throws GatewayError `UNAUTHENTICATED` without a key, `RATE_LIMITED` over a limit,
   *   and the first poll's definitive error (`NOT_FOUND`, `FORBIDDEN`, `UPSTREAM_BAD_REQUEST`).
   */
  open<E>(
    context: SubscriberContext,
    feeds: ReadonlyArray<Feed<unknown, E>>,
  ): Promise<AsyncIterableIterator<FeedMessage<E>>>;
  /**
   * Counts one open subscription of the context's key and connection against the limits
   * (`SUBSCRIPTIONS_MAX_PER_KEY`, `_PER_CONNECTION`), for a subscription whose events do not
   * come from feeds (e.g. `paymentReceived`); call the returned release when it ends
   * (idempotent).
   *
   * @throws GatewayError `UNAUTHENTICATED` without a key, `RATE_LIMITED` over a limit
   */
  count(context: SubscriberContext): () => void;
}

/** What a subscription's context carries when it came over a subscription transport. */
export interface SubscriptionScope {
  /** Opens the feeds of the subscription. */
  readonly service: FeedOpener;
  /**
   * Gives the context a new session and new loaders. Called before each event is
   * executed, so fields below an event (e.g. `room { tenant }`) are read afresh and an
   * event never reuses data an earlier event loaded.
   */
  refresh(): void;
}

/** What the subscription side reads of an operation's context; `subscription` is set by the transports. */
export interface SubscriberContext {
  /** The bearer key of the subscriber, or null. */
  readonly apiKey: string | null;
  /** The operation's session; its `keyId` (the hashed key, or null) is the identity of the pollers. */
  readonly session: { readonly keyId: string | null };
  /** Set for operations that came over WebSocket or SSE; absent over plain HTTP. */
  subscription?: SubscriptionScope;
}

/** The error of a subscription field run over plain HTTP (no subscription transport): `BAD_USER_INPUT`. */
export function noTransportError(): GatewayError {
  return new GatewayError(
    'BAD_USER_INPUT',
    'Subscriptions are served over WebSocket (graphql-transport-ws) at /graphql and over Server-Sent Events at /graphql/stream, not over plain HTTP.',
  );
}

/**
 * What a `@Subscription`'s `subscribe` returns: the stream of the feeds' messages for
 * the subscription's context.
 *
 * @throws GatewayError as {@link FeedOpener.open}; `BAD_USER_INPUT` when the
 *   operation did not come over a subscription transport.
 */
export function openFeeds<E>(
  context: unknown,
  feeds: ReadonlyArray<Feed<unknown, E>>,
): Promise<AsyncIterableIterator<FeedMessage<E>>> {
  const ctx = context as SubscriberContext;
  const service = ctx.subscription?.service;
  if (!service) throw noTransportError();
  return service.open(ctx, feeds);
}

/**
 * `source`, calling `release` once when it ends: it finishes, or its consumer returns or
 * throws (the client went away). For the stream of a subscription counted with
 * {@link FeedOpener.count}.
 */
export function releasing<T>(source: AsyncIterableIterator<T>, release: () => void): AsyncIterableIterator<T> {
  const iterator: AsyncIterableIterator<T> = {
    next: async () => {
      const result = await source.next();
      if (result.done) release();
      return result;
    },
    return: async (value?: unknown) => {
      release();
      return source.return ? source.return(value) : { done: true, value: value as T };
    },
    throw: async (error?: unknown) => {
      release();
      if (source.throw) return source.throw(error);
      throw error;
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}

/**
 * The value of one event for the subscription field: the event, or the error the
 * message carries (the event then has that error and `data: null`).
 *
 * @throws GatewayError the message's error, for an error message.
 */
export function eventOf<E>(message: FeedMessage<E>, ctx: SubscriberContext): E {
  ctx.subscription?.refresh();
  if (message.kind === 'error') throw message.error;
  return message.event;
}

/** Timers and time, replaceable in tests (a manual clock polls without waiting). */
export interface PollClock {
  /** The current time, ms since the epoch. */
  now(): number;
  /** Calls `callback` after `ms` milliseconds; returns a handle for {@link PollClock.clearTimeout}. */
  setTimeout(callback: () => void, ms: number): unknown;
  /** Cancels a timer of {@link PollClock.setTimeout}; a spent or unknown handle is ignored. */
  clearTimeout(handle: unknown): void;
}
