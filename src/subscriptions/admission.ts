/**
 * Admission of a subscribe message, the same on graphql-ws and graphql-sse: the request
 * pipeline run with the connection's subscription limits (counting those admitted that have
 * not started yet: `SubscriptionConnection.starting`), the count of refused subscribe messages that closes a WebSocket
 * with 4429, and the context of an operation let through.
 */
import type { IncomingMessage } from 'node:http';
import type { GraphQLError } from 'graphql';
import type { WebSocket } from 'ws';
import { createContext } from '../context';
import type { Credential } from '../pipeline/credential';
import type { Prepared, RequestFacts } from '../pipeline/pipeline';
import type { Refusal } from '../pipeline/refusals';
import type { SubscriptionConnection, SubscriptionContext } from './subscription-service';
import type { SubscriptionTransportOptions } from './transport-options';

/**
 * Refused subscribe messages (any operation the pipeline refused, a subscription over
 * a limit included) one WebSocket may send within {@link REFUSAL_WINDOW_MS}; the next one
 * closes it with {@link TOO_MANY_REFUSALS_CLOSE_CODE}.
 */
export const MAX_REFUSED_SUBSCRIBES = 100;

/** The window {@link MAX_REFUSED_SUBSCRIBES} counts in, ms. */
export const REFUSAL_WINDOW_MS = 10_000;

/** The close code of a WebSocket that sent too many refused subscribe messages: 4429, as graphql-ws closes for too many requests. */
export const TOO_MANY_REFUSALS_CLOSE_CODE = 4429;

/** Counts one connection's refused subscribe messages in fixed windows of {@link REFUSAL_WINDOW_MS}. */
export class RefusalCount {
  private windowStart = 0;
  private count = 0;

  /** Counts one refusal at `now` (ms); true when the connection is now over {@link MAX_REFUSED_SUBSCRIBES}. */
  add(now: number): boolean {
    if (now - this.windowStart >= REFUSAL_WINDOW_MS) {
      this.windowStart = now;
      this.count = 0;
    }
    this.count += 1;
    return this.count > MAX_REFUSED_SUBSCRIBES;
  }
}

/** The headers a subscription context reads: none (the key comes as its credential; no secret header, no `Prefer`). */
const NO_HEADERS = new Map<string, string>();

/**
 * The context of an operation the pipeline let through: the key it runs with (the
 * server's in public-site mode), and the subscription scope (connection, limits), whose
 * `refresh` gives each event a fresh session and loaders.
 */
export function contextOf(
  options: SubscriptionTransportOptions,
  prepared: Extract<Prepared, { kind: 'run' }>,
  connection: SubscriptionConnection,
): SubscriptionContext {
  // The key the pipeline resolved and hashed once, however often `refresh` runs.
  const build = (): SubscriptionContext => createContext(options.services, NO_HEADERS, prepared.key);
  const contextValue: SubscriptionContext = build();
  contextValue.subscription = {
    service: options.subscriptions,
    connection,
    refresh() {
      const { subscription } = contextValue;
      Object.assign(contextValue, build(), { subscription });
    },
  };
  // A subscription counts on its connection from now until it takes its place or its client completes it.
  if (prepared.operation.operation === 'subscription') options.subscriptions.admit(contextValue.subscription);
  return contextValue;
}

/** The refusal of each limit error, built once per error (the service builds each error once). */
const limitRefusals = new WeakMap<GraphQLError, Refusal>();

/** The subscription limits as a pipeline step sees them (`RequestFacts.admitSubscription`). */
type AdmitSubscription = NonNullable<RequestFacts['admitSubscription']>;

/** Each connection's {@link admitOn}, made once: not a closure per subscribe message. */
const admitters = new WeakMap<SubscriptionConnection, AdmitSubscription>();

/** The subscription limits of one connection as a pipeline step sees them (`subscription-limit`). */
function admitOn(options: SubscriptionTransportOptions, connection: SubscriptionConnection): AdmitSubscription {
  return (keyId, live) => {
    const starting = connection.starting.size;
    // Counted with those admitted that have not started yet (see SubscriptionConnection.starting).
    const counted =
      starting === 0
        ? connection
        : { transport: connection.transport, active: connection.active + starting, address: connection.address };
    // A live query may join an identical one of its key already running: only the
    // connection's and the address's limits are known before it is parsed.
    const error = live
      ? options.subscriptions.liveLimitRefusal(counted)
      : options.subscriptions.limitRefusal(keyId, counted);
    if (!error) return null;
    options.subscriptions.refuse(error);
    let refusal = limitRefusals.get(error);
    if (!refusal) {
      const { code, ...extensions } = error.extensions;
      refusal = { code, message: error.message, status: 429, extensions };
      limitRefusals.set(error, refusal);
    }
    return refusal;
  };
}

/**
 * Closes a WebSocket that sent too many refused subscribe messages with
 * {@link TOO_MANY_REFUSALS_CLOSE_CODE}, and makes whatever it sends after cost nothing:
 * graphql-ws's message listener goes (the messages of the chunk being read are dropped),
 * and the socket is read no more (the rest of a burst would be thousands of small reads).
 * The gateway's end of the connection follows the close frame, so a peer that stops
 * sending sees the code and the end at once; one that goes on is dropped when it has not
 * answered within `CLOSE_HANDSHAKE_MS` (ws-close.ts), having read the code long before.
 * Dropping the connection at once instead would reset it while such a peer still sends,
 * and it could lose the close frame (it would see 1006). The connection's operations
 * (graphql-ws's `ctx.subscriptions`) end now, not when the connection is dropped.
 */
export function closeForRefusals(
  socket: WebSocket,
  request: IncomingMessage,
  operations: Readonly<Record<string, AsyncIterable<unknown> | null>>,
): void {
  socket.removeAllListeners('message');
  socket.close(TOO_MANY_REFUSALS_CLOSE_CODE, 'Too many refused subscribe messages');
  socket.pause();
  request.socket.end();
  for (const operation of Object.values(operations)) {
    const end = (operation as Partial<AsyncGenerator<unknown>> | null)?.return;
    if (typeof end === 'function') end.call(operation, undefined).catch(() => undefined);
  }
}

/**
 * Runs the pipeline on one subscribe request, with the connection's subscription limits.
 *
 * @param facts - what else the transport knows (the body's size, a batch, the operations in flight)
 */
export function prepare(
  options: SubscriptionTransportOptions,
  transport: 'graphql-ws' | 'graphql-sse',
  payload: unknown,
  credential: Credential,
  connection: SubscriptionConnection,
  facts: Omit<RequestFacts, 'admitSubscription'> = {},
): Prepared {
  const body =
    payload && typeof payload === 'object' && !Array.isArray(payload) ? (payload as Record<string, unknown>) : {};
  let admitSubscription = admitters.get(connection);
  if (!admitSubscription) admitters.set(connection, (admitSubscription = admitOn(options, connection)));
  // Object.assign, not a spread: V8 (Node 20) copies with it faster, on every subscribe message.
  return options.pipeline.prepare(transport, body, credential, Object.assign({ admitSubscription }, facts));
}

/** The operation's context, when `value` is one (not the marker of a subscription refused over a limit). */
export function operationContext(value: unknown): SubscriptionContext | null {
  return value !== null && typeof value === 'object' && 'itemErrors' in value && 'session' in value
    ? (value as SubscriptionContext)
    : null;
}
