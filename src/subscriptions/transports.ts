/**
 * The two subscription transports: `graphql-ws` (protocol `graphql-transport-ws`) on the
 * `ws` server at `/graphql` (graphql-ws-transport.ts), and `graphql-sse` at `/graphql/stream`
 * (graphql-sse-transport.ts). Both run the gateway's one request pipeline
 * (src/pipeline/steps.ts) on every operation through the same admission (admission.ts): the
 * key, sizes, public-site rules, the subscription limits, parsing, validation, bounds and
 * the cost limit, before anything is executed or polled; and its result phase
 * (src/pipeline/result-steps.ts: list-item errors, extensions.upstream, formatting,
 * redaction, response size, the report) on every result, event and live query result
 * (operation-runs.ts). This file routes to them and stops them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { createSseTransport } from './graphql-sse-transport';
import { createWsTransport } from './graphql-ws-transport';
import { createOperationRuns } from './operation-runs';
import type { SubscriptionTransportOptions } from './transport-options';
import { guardWrites, SlowReaderGuard } from './slow-readers';
import { limitCloseHandshake } from './ws-close';

/** The attached transports. */
export interface SubscriptionTransports {
  /** Answers a request to `/graphql/stream` (graphql-sse). */
  handleSse(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Takes an HTTP upgrade; false when it is not for `/graphql` (the caller refuses it). */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** Closes every WebSocket and stops the pollers' subscribers. */
  close(): Promise<void>;
}

/**
 * Creates both transports. The caller routes `/graphql/stream` to `handleSse` and the
 * server's `upgrade` events to `handleUpgrade`.
 */
export function createSubscriptionTransports(options: SubscriptionTransportOptions): SubscriptionTransports {
  const addressOf =
    options.clientAddress ?? ((request: IncomingMessage): string => request.socket.remoteAddress ?? 'unknown');
  const runs = createOperationRuns(options);
  const { wss, server: wsServer } = createWsTransport(options, runs, addressOf);
  const sse = createSseTransport(options, runs, addressOf);
  const sockets = new Set<Duplex>();
  let closing: Promise<void> | undefined;
  return {
    handleSse: (req: IncomingMessage, res: ServerResponse): Promise<void> => sse.handle(req, res),
    handleUpgrade(req, socket, head) {
      const path = new URL(req.url ?? '/', 'http://gateway.invalid').pathname;
      if (path !== '/graphql') return false;
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      wss.handleUpgrade(req, socket, head, (ws) => {
        // A peer that never answers the gateway's close frame is dropped after a second, not 30 s.
        limitCloseHandshake(ws);
        // A client that does not read is cut, not buffered (slow-readers.ts): graphql-ws awaits
        // each send, so what is queued is the socket's own buffer (`bufferedAmount`).
        const guard = new SlowReaderGuard(
          options.streamBounds,
          () => ws.bufferedAmount,
          (reason) => {
            options.logger?.warn(
              { transport: 'graphql-ws', reason, queuedBytes: ws.bufferedAmount },
              'A WebSocket was cut: its client does not read it',
            );
            ws.terminate();
          },
        );
        guardWrites(ws, 'send', guard);
        wss.emit('connection', ws, req);
      });
      return true;
    },
    close() {
      closing ??= (async () => {
        // SSE streams end first (they have no close handshake).
        sse.close();
        // Every WebSocket gets 1001 (going away); `ws` would wait 30 s for a peer that does not
        // answer it, so one that has not within the keep-alive interval is cut.
        const disposed = wsServer.dispose();
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            disposed,
            new Promise<void>((resolve) => (timer = setTimeout(resolve, options.keepAliveMs))),
          ]);
        } finally {
          clearTimeout(timer);
        }
        for (const socket of sockets) socket.destroy();
        await disposed;
        await new Promise<void>((resolve) => wss.close(() => resolve()));
      })();
      return closing;
    },
  };
}
