/**
 * A tiny HTTP proxy for tests: forwards every request unchanged to a target origin (the
 * simulator) and records method, path, headers and body. The simulator's own log does
 * not keep request bodies; this lets a test see exactly what the gateway sent.
 */
import { createServer, request } from 'node:http';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the proxy forwarded. */
export interface RecordedRequest {
  method: string;
  /** Path with query, as received (e.g. `/req/factory/options`). */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A running recording proxy. */
export interface RecordingProxy {
  /** `http://127.0.0.1:PORT`. */
  readonly origin: string;
  /** Where requests are forwarded, e.g. the simulator's origin; set it before the first request. */
  target: string | null;
  /** Every forwarded request, in arrival order. */
  readonly recorded: RecordedRequest[];
  close(): Promise<void>;
}

/** Starts the proxy on 127.0.0.1 port 0. */
export async function startRecordingProxy(): Promise<RecordingProxy> {
  const recorded: RecordedRequest[] = [];
  const proxy: { target: string | null } = { target: null };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      recorded.push({ method: req.method ?? 'GET', path, headers: req.headers, body });
      if (proxy.target === null) {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ statusCode: 502, message: 'proxy has no target', error: 'Bad Gateway' }));
        return;
      }
      const headers: OutgoingHttpHeaders = { ...req.headers };
      delete headers.host;
      delete headers.connection;
      const upstream = request(`${proxy.target}${path}`, { method: req.method, headers, agent: false }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => {
        res.writeHead(502);
        res.end();
      });
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    get target() {
      return proxy.target;
    },
    set target(value: string | null) {
      proxy.target = value;
    },
    recorded,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
