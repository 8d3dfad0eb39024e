/**
 * Subscription clients for tests: graphql-ws over the `ws` package, and a collector
 * that turns a subscription into awaitable messages (no sleeps: each `next()` resolves
 * when a message arrives).
 */
import { createClient } from 'graphql-ws';
import type { Client } from 'graphql-ws';
import WebSocket from 'ws';

/** One message of a subscription: an event's result (data, or errors for an error event). */
export interface Received {
  data?: Record<string, unknown> | null;
  errors?: ReadonlyArray<{
    message: string;
    extensions?: Record<string, unknown>;
    path?: ReadonlyArray<string | number>;
  }>;
  extensions?: Record<string, unknown>;
}

/** A subscription being collected. */
export interface Collected {
  /** The next message (already received or still to come). */
  next(): Promise<Received>;
  /** Resolves with 'complete' or the transport error when the subscription ends. */
  ended: Promise<unknown>;
  /** Messages received and not yet taken. */
  readonly buffered: number;
  /** Unsubscribes. */
  stop(): void;
}

type Sink = { next(value: Received): void; error(error: unknown): void; complete(): void };

/** Collects the messages of one subscription. */
export function collect(subscribe: (sink: Sink) => () => void): Collected {
  const queue: Received[] = [];
  const waiting: Array<(value: Received) => void> = [];
  let finish: (value: unknown) => void = () => undefined;
  const ended = new Promise<unknown>((resolve) => (finish = resolve));
  const stop = subscribe({
    next(value) {
      const waiter = waiting.shift();
      if (waiter) waiter(value);
      else queue.push(value);
    },
    error: (error) => finish(error),
    complete: () => finish('complete'),
  });
  return {
    next: () => {
      const value = queue.shift();
      return value ? Promise.resolve(value) : new Promise((resolve) => waiting.push(resolve));
    },
    ended,
    get buffered() {
      return queue.length;
    },
    stop,
  };
}

/** A graphql-ws client of `endpoint` (http URL of /graphql) with a key in the connection parameters (none when null). */
export function wsClient(endpoint: string, key: string | null): Client {
  return createClient({
    url: endpoint.replace(/^http/, 'ws'),
    webSocketImpl: WebSocket,
    connectionParams: key === null ? {} : { authorization: `Bearer ${key}` },
    retryAttempts: 0,
    lazy: true,
  });
}

/** Subscribes over a client and collects. */
export function subscribeWs(client: Client, query: string, variables: Record<string, unknown> = {}): Collected {
  return collect((sink) => client.subscribe({ query, variables }, sink));
}
