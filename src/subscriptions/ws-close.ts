/**
 * A bound on the WebSocket close handshake. When the gateway closes a WebSocket (no
 * `connection_init` in time: 4408; too many refused subscribes: 4429; a stop), `ws` sends
 * its close frame and waits for the peer's, up to 30 s, before it drops the connection. A
 * peer that never answers (a raw socket that upgraded and went silent) would so hold its
 * connection 30 s past the limit that closed it. Here the connection is dropped when the
 * peer has not answered within {@link CLOSE_HANDSHAKE_MS}.
 */
import type { WebSocket } from 'ws';

/** How long a peer has to answer the gateway's close frame before its connection is dropped, ms. */
export const CLOSE_HANDSHAKE_MS = 1000;

/** Drops `ws`'s connection {@link CLOSE_HANDSHAKE_MS} after the gateway closes it, unless the peer answered first. */
export function limitCloseHandshake(ws: WebSocket): void {
  const close = ws.close.bind(ws);
  ws.close = (code?: number, reason?: string | Buffer): void => {
    close(code, reason);
    const timer = setTimeout(() => ws.terminate(), CLOSE_HANDSHAKE_MS);
    timer.unref();
    ws.once('close', () => clearTimeout(timer));
  };
}
