/**
 * Stopping the gateway (`Gateway.stop`): it stops accepting connections at once, lets a
 * request in flight finish and answers it, closes idle keep-alive connections without
 * waiting, and cuts a request still in flight when the grace period ends.
 *
 * A request is held "in flight" deterministically by sending its headers and only part
 * of its body; the test sends the rest when it wants the request to finish.
 */
import { once } from 'node:events';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { DEMO_KEYS } from '../../src/simulator';
import { startStack } from '../support';
import type { HttpStack } from '../support';

let stack: HttpStack | undefined;

afterEach(async () => {
  await stack?.simulator.close();
  stack = undefined;
});

const BODY = JSON.stringify({ query: '{ buildings { id } }' });

/** Opens a connection and sends a POST /graphql with only the first 10 bytes of its body; resolves once the gateway has the request. */
async function startHeldRequest(s: HttpStack): Promise<{ socket: Socket; finish(): void; received: Promise<string> }> {
  const url = new URL(s.gateway.url);
  const socket = connect(Number(url.port), url.hostname);
  await once(socket, 'connect');
  const received = new Promise<string>((resolve) => {
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('close', () => resolve(text));
  });
  const requestArrived = once(s.gateway.httpServer, 'request');
  socket.write(
    [
      'POST /graphql HTTP/1.1',
      `host: ${url.host}`,
      'content-type: application/json',
      `authorization: Bearer ${DEMO_KEYS.premium.key}`,
      `content-length: ${Buffer.byteLength(BODY)}`,
      '',
      BODY.slice(0, 10),
    ].join('\r\n'),
  );
  await requestArrived;
  return { socket, finish: () => socket.write(BODY.slice(10)), received };
}

/** Resolves when the HTTP server is told to close, i.e. stops accepting connections. */
function whenClosing(s: HttpStack): Promise<void> {
  const server = s.gateway.httpServer;
  const close = server.close.bind(server);
  return new Promise((resolve) => {
    jest.spyOn(server, 'close').mockImplementation((callback) => {
      resolve();
      return close(callback);
    });
  });
}

it('stops accepting, then finishes and answers the request in flight before it resolves', async () => {
  stack = await startStack({ http: true, config: { shutdownGracePeriodMs: 60_000 } });
  const held = await startHeldRequest(stack);
  const closing = whenClosing(stack);
  let stopped = false;
  const stopping = stack.gateway.stop().then(() => (stopped = true));
  await closing;

  await expect(fetch(`${stack.gateway.url}/healthz`)).rejects.toThrow(); // no new connections
  expect(stopped).toBe(false); // still draining

  held.finish();
  const response = await held.received; // the gateway closes the connection after answering
  expect(response).toMatch(/^HTTP\/1\.1 200 /);
  expect(response).toContain('"buildings":[');
  await stopping;
  expect(stack.simulator.countRequests({ route: 'GET /building/list' })).toBe(1);
});

it('closes idle keep-alive connections without waiting for the grace period', async () => {
  // A stop that waited the 60 s grace period for the idle connection would exceed the test's timeout.
  stack = await startStack({ http: true, config: { shutdownGracePeriodMs: 60_000 } });
  const answer = await stack.post({ query: '{ buildings { id } }' }); // leaves a keep-alive connection open
  expect(answer.status).toBe(200);
  await stack.gateway.stop();
  expect(stack.gateway.httpServer.listening).toBe(false);
});

it('cuts a request still in flight when the grace period ends', async () => {
  stack = await startStack({ http: true, config: { shutdownGracePeriodMs: 50 } });
  const held = await startHeldRequest(stack);
  await stack.gateway.stop(); // resolves only because the grace period ended: the body never completes
  expect(await held.received).toBe(''); // closed without an answer
  expect(stack.simulator.countRequests({ route: 'GET /building/list' })).toBe(0);
});
