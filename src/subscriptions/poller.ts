import type { UpstreamSession } from '../economy';
import type { Feed, FeedMessage } from '../domains/feeds/feed';

/** One poller of a `PollHub`: a (hashed key, resource), its subscribers and its state. */
export interface Poller {
  /** `keyId|resource`: the poller's id here and in the relay. */
  readonly id: string;
  /** The hashed key: the identity of the poller, its budget and cache entries. */
  readonly keyId: string;
  /** The bearer key, sent upstream with every poll; never logged. */
  readonly apiKey: string;
  /** The resource it polls. */
  readonly feed: Feed<unknown, unknown>;
  /** The subscribers, told every event and error. */
  readonly listeners: Set<(message: FeedMessage<unknown>) => void>;
  /** Who reads every state this replica polls (see `PollHub.watch`). */
  readonly observers: Set<(state: unknown, session: UpstreamSession | null) => Promise<void>>;
  /** The last state, once a poll succeeded. */
  state: { value: unknown } | null;
  /** Settles when the first poll has answered; rejects when it failed definitively. */
  ready: Promise<void>;
  /** Failed polls in a row. */
  failures: number;
  /** The timer of the next turn. */
  timer: unknown;
  /** True while this replica polls (always without a relay). */
  leading: boolean;
  /** True once stopped (the last subscriber left, shutdown or a definitive failure). */
  stopped: boolean;
}

/** A new poller of `caller`'s `feed`, nobody subscribed yet and no poll done. */
export function newPoller(
  id: string,
  caller: { apiKey: string; keyId: string },
  feed: Feed<unknown, unknown>,
  leading: boolean,
): Poller {
  return {
    id,
    keyId: caller.keyId,
    apiKey: caller.apiKey,
    feed,
    listeners: new Set(),
    observers: new Set(),
    state: null,
    ready: Promise.resolve(),
    failures: 0,
    timer: undefined,
    leading,
    stopped: false,
  };
}
