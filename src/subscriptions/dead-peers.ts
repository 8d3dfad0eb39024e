/**
 * Dead peers of SSE streams. Server-Sent Events have no answer from the client, so a peer
 * that vanished without a trace (a pulled link, a suspended machine: a half-open connection)
 * is not noticed by the process: the keep-alive comments it is sent leave the process at
 * once and wait, unacknowledged, in the kernel, whose send buffer never fills. Without more,
 * Linux gives up after its retransmission timeout (`tcp_retries2`, about 15.5 minutes), and
 * until then the stream holds its subscription places.
 *
 * Each SSE stream's socket is therefore armed ({@link armDeadPeerDetection}):
 *
 * - `TCP_USER_TIMEOUT` (Linux; `TCP_RXT_CONNDROPTIME` on macOS), set through net-keepalive
 *   (setsockopt by ffi-rs): the kernel closes the connection, with `ETIMEDOUT`, once sent
 *   bytes (a keep-alive comment, a result) stay unacknowledged for
 *   `SSE_DEAD_PEER_TIMEOUT_MS`. As a keep-alive is written every `SUBSCRIPTION_KEEP_ALIVE_MS`,
 *   a dead peer is found within the two together (12 s + 30 s by default);
 * - TCP keep-alive probes (Node's `setKeepAlive`) after `SUBSCRIPTION_KEEP_ALIVE_MS` of
 *   silence, for a stream that is sent nothing (the same timeout then bounds the probes).
 *
 * The closed socket ends the response: the transport then ends its operations and frees
 * their places, as when a client leaves. Where the option cannot be set (another system, no
 * binary of ffi-rs for the platform) only the keep-alive probes are armed, and the
 * operating system's own timeout applies (docs/subscriptions.md).
 */
import type { Socket } from 'node:net';

/** Sets `TCP_USER_TIMEOUT` on a connected socket, ms; throws or returns false when it cannot. */
export type UserTimeoutSetter = (socket: Socket, timeoutMs: number) => boolean;

/** How a socket was armed: with the user timeout, with keep-alive probes only, or not at all (`SSE_DEAD_PEER_TIMEOUT_MS=0`). */
export type DeadPeerArming = 'user-timeout' | 'keepalive-only' | 'off';

/** When a peer counts as dead. */
export interface DeadPeerOptions {
  /** Silence before the first TCP keep-alive probe, ms (`SUBSCRIPTION_KEEP_ALIVE_MS`). */
  idleMs: number;
  /** How long sent bytes may stay unacknowledged before the kernel closes the connection, ms; 0: left to the system (`SSE_DEAD_PEER_TIMEOUT_MS`). */
  timeoutMs: number;
}

let loaded: Promise<UserTimeoutSetter | null> | null = null;

/** net-keepalive's setter, loaded once on first use; null where it does not load. */
function loadUserTimeoutSetter(): Promise<UserTimeoutSetter | null> {
  loaded ??= import('net-keepalive').then(
    (module): UserTimeoutSetter =>
      (socket, timeoutMs) =>
        module.setUserTimeout(socket, timeoutMs),
    () => null,
  );
  return loaded;
}

/**
 * Loads the user-timeout setter now (at the transport's start): loading net-keepalive and
 * ffi-rs's binary took about 50 ms of the turn of the first stream otherwise, a turn that
 * already opens the streams of a burst of clients.
 */
export function prepareDeadPeerDetection(): void {
  void loadUserTimeoutSetter();
}

const armed = new WeakMap<Socket, Promise<DeadPeerArming>>();

/**
 * Arms `socket` (an SSE stream's connection) so that the kernel closes it when its peer is
 * gone; once per socket (a later call returns the first one's answer).
 *
 * @param socket - the connection, connected
 * @param options - the idle time before probes and the user timeout
 * @param load - where the user-timeout setter comes from (tests give another)
 * @returns how the socket was armed; never throws
 */
export function armDeadPeerDetection(
  socket: Socket,
  options: DeadPeerOptions,
  load: () => Promise<UserTimeoutSetter | null> = loadUserTimeoutSetter,
): Promise<DeadPeerArming> {
  const known = armed.get(socket);
  if (known) return known;
  const arming = (async (): Promise<DeadPeerArming> => {
    if (options.timeoutMs <= 0) return 'off';
    socket.setKeepAlive(true, options.idleMs);
    const setter = await load();
    if (setter === null || socket.destroyed) return 'keepalive-only';
    try {
      return setter(socket, options.timeoutMs) ? 'user-timeout' : 'keepalive-only';
    } catch {
      return 'keepalive-only';
    }
  })();
  armed.set(socket, arming);
  return arming;
}
