/**
 * Clients that send their request slowly, over raw sockets: a connection that sends half
 * its header block, or its headers and half its body, gets HTTP 408 and is closed by the
 * gateway (`HTTP_HEADERS_TIMEOUT_MS`, `HTTP_REQUEST_TIMEOUT_MS`, set small here), while
 * other connections are served; so does a half-sent WebSocket upgrade. Node's server timers
 * cannot be faked, so those tests wait for the socket's `close` event, never for a delay. A
 * WebSocket that upgraded and then stays silent is closed by graphql-ws's init timeout and
 * dropped a second later (timers of `ws` and graphql-ws: faked).
 */
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config';
import { CLOSE_HANDSHAKE_MS } from '../../src/subscriptions/ws-close';
import { turn, until, useFakeTimersWithRealIo, useStack } from '../support';
import type { HttpStack } from '../support';

/** Everything the server sent on the socket until it closed it. */
function closedWith(socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.once('error', reject);
    socket.once('close', () => resolve(received));
  });
}

/** A raw connection to the gateway that has written `text`. */
async function rawConnection(stack: HttpStack, text: string): Promise<Socket> {
  const { hostname, port } = new URL(stack.origin);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.write(text);
  return socket;
}

describe('slow clients', () => {
  const stack = useStack({ http: true, config: { httpHeadersTimeoutMs: 300, httpRequestTimeoutMs: 600 } });

  it('closes a connection that sent half its header block with 408, and serves others meanwhile', async () => {
    const sockets = await Promise.all(
      Array.from({ length: 20 }, () => rawConnection(stack, 'GET /healthz HTTP/1.1\r\nHost: gateway\r\nX-Slow: ')),
    );
    const answers = sockets.map(closedWith);
    expect((await stack.get('/healthz')).status).toBe(200);
    for (const answer of await Promise.all(answers)) expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('closes a connection that sent its headers and half its body with 408', async () => {
    const socket = await rawConnection(
      stack,
      'POST /graphql HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"query":"{ __typename',
    );
    expect(await closedWith(socket)).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('closes a half-sent WebSocket upgrade request with 408 too', async () => {
    const socket = await rawConnection(
      stack,
      'GET /graphql HTTP/1.1\r\nHost: gateway\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nX-Slow: ',
    );
    expect(await closedWith(socket)).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('drops an upgraded WebSocket that sends no connection_init and never answers the close frame, a second after the init timeout', async () => {
    useFakeTimersWithRealIo();
    const upgrade = `GET /graphql HTTP/1.1\r\nHost: gateway\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: graphql-transport-ws\r\n\r\n`;
    const socket = await rawConnection(stack, upgrade);
    try {
      let received = Buffer.alloc(0);
      socket.on('data', (chunk: Buffer) => (received = Buffer.concat([received, chunk])));
      let closed = false;
      socket.once('close', () => (closed = true));
      await until(() => received.includes('\r\n\r\n'), 'the 101 answer');
      expect(received.toString('latin1')).toMatch(/^HTTP\/1\.1 101 /);
      const headerEnd = received.indexOf('\r\n\r\n') + 4;
      // No connection_init: graphql-ws closes with 4408 (a close frame, opcode 0x88), and the peer never answers it.
      jest.advanceTimersByTime(loadConfig({}).subscriptionConnectionInitTimeoutMs);
      await until(() => received.length > headerEnd && received[headerEnd] === 0x88, 'the close frame');
      jest.advanceTimersByTime(CLOSE_HANDSHAKE_MS - 1);
      for (let i = 0; i < 20; i += 1) await turn();
      expect(closed).toBe(false);
      jest.advanceTimersByTime(1);
      await until(() => closed, 'the connection to be dropped');
    } finally {
      // On failure too: the server's side (and its faked timers) must not outlive the test.
      socket.destroy();
      jest.useRealTimers();
    }
  });

  it('by default closes a half-sent header block within 30 s', () => {
    const config = loadConfig({});
    // Node checks the timers every quarter of the headers timeout, at most every second.
    expect(Math.min(config.httpHeadersTimeoutMs, config.httpRequestTimeoutMs) + 1000).toBeLessThanOrEqual(30_000);
    expect(loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '2500', HTTP_REQUEST_TIMEOUT_MS: '9000' })).toMatchObject({
      httpHeadersTimeoutMs: 2500,
      httpRequestTimeoutMs: 9000,
    });
  });
});
