/**
 * Dead peers of SSE streams (src/subscriptions/dead-peers.ts): each event stream's socket
 * gets TCP keep-alive probes and `TCP_USER_TIMEOUT` (`SSE_DEAD_PEER_TIMEOUT_MS`), so the
 * kernel closes the connection of a peer that stopped acknowledging, and the stream's places
 * are freed.
 *
 * What is tested, and how:
 * - the arming on a real loopback socket (the option read back with getsockopt), and its
 *   fallbacks where it cannot be set;
 * - through the gateway: every event stream's socket is armed, and a connection the kernel
 *   closes with `ETIMEDOUT` (played by destroying the gateway's socket with that error) ends
 *   the stream and frees its places;
 * - a real half-open connection, where the system allows it (Linux, user and network
 *   namespaces: `unshare -rn`, a veth link): a child process in a namespace of its own serves
 *   an armed socket, then removes the address its peer used, so that nothing is acknowledged
 *   any more and no reset arrives (a pulled link); the kernel must close the socket with
 *   `ETIMEDOUT` (without the option it would keep it about 15 minutes). Skipped elsewhere.
 * No sleeps: every wait is on an event.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, connect } from 'node:net';
import type { Server, Socket } from 'node:net';
import { join } from 'node:path';
import { getUserTimeout } from 'net-keepalive';
import { armDeadPeerDetection } from '../../src/subscriptions/dead-peers';
import { ManualClock, useStacks } from '../support';
import { holdings, open, untilReleased } from './streams';

const LINUX = process.platform === 'linux';

/** A connected loopback pair: the server's end and the client's. */
async function socketPair(): Promise<{ server: Server; accepted: Socket; client: Socket; close(): void }> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const client = connect(address.port, '127.0.0.1');
  const [accepted] = (await once(server, 'connection')) as [Socket];
  return {
    server,
    accepted,
    client,
    close() {
      client.destroy();
      accepted.destroy();
      server.close();
    },
  };
}

describe('armDeadPeerDetection', () => {
  (LINUX ? it : it.skip)('sets TCP_USER_TIMEOUT on the socket and turns keep-alive probes on (Linux)', async () => {
    const pair = await socketPair();
    try {
      const keepAlive = jest.spyOn(pair.accepted, 'setKeepAlive');
      await expect(armDeadPeerDetection(pair.accepted, { idleMs: 12_000, timeoutMs: 30_000 })).resolves.toBe(
        'user-timeout',
      );
      expect(getUserTimeout(pair.accepted)).toBe(30_000);
      expect(keepAlive).toHaveBeenCalledWith(true, 12_000);
    } finally {
      pair.close();
    }
  });

  it('falls back to keep-alive probes where the option cannot be set, and never throws', async () => {
    const pair = await socketPair();
    const other = await socketPair();
    try {
      await expect(
        armDeadPeerDetection(pair.accepted, { idleMs: 1000, timeoutMs: 5000 }, () => Promise.resolve(null)),
      ).resolves.toBe('keepalive-only');
      const throwing = (): never => {
        throw new Error('ENOPROTOOPT');
      };
      await expect(
        armDeadPeerDetection(other.accepted, { idleMs: 1000, timeoutMs: 5000 }, () => Promise.resolve(throwing)),
      ).resolves.toBe('keepalive-only');
    } finally {
      pair.close();
      other.close();
    }
  });

  it('leaves the socket to the system with a timeout of 0, and arms a socket once', async () => {
    const pair = await socketPair();
    try {
      const load = jest.fn(() => Promise.resolve(() => true));
      await expect(armDeadPeerDetection(pair.accepted, { idleMs: 1000, timeoutMs: 0 }, load)).resolves.toBe('off');
      await expect(armDeadPeerDetection(pair.accepted, { idleMs: 1000, timeoutMs: 5000 }, load)).resolves.toBe('off');
      expect(load).not.toHaveBeenCalled();
    } finally {
      pair.close();
    }
  });
});

describe('SSE streams whose peer is gone', () => {
  const stacks = useStacks();

  it.each(['sse', 'sse-single'] as const)(
    'arms each %s event stream, and frees its places when the kernel closes it for a dead peer',
    async (transport) => {
      const clock = new ManualClock();
      const stack = await stacks.start({
        http: true,
        config: { sseDeadPeerTimeoutMs: 7000 },
        gateway: { now: clock.now, pollClock: clock },
      });
      const streams: ServerResponse[] = [];
      stack.gateway.httpServer.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
        if (req.headers.accept === 'text/event-stream' && req.method !== 'PUT') streams.push(res);
      });
      const held = open(stack, transport, 'live', 'reset');
      expect((await held.first).errors).toBeUndefined();
      expect(holdings(stack).liveOpen).toBe(1);
      const socket = streams[0]?.socket;
      if (!socket) throw new Error('no SSE stream');
      // The transport's own arming, awaited (a socket is armed once: this returns its answer).
      const arming = await armDeadPeerDetection(socket, { idleMs: 1, timeoutMs: 1 });
      expect(arming).toBe(LINUX ? 'user-timeout' : 'keepalive-only');
      if (LINUX) expect(getUserTimeout(socket)).toBe(7000);
      // The kernel's verdict on a peer that stopped acknowledging: the socket errors with ETIMEDOUT.
      socket.destroy(Object.assign(new Error('read ETIMEDOUT'), { code: 'ETIMEDOUT' }));
      await held.ended;
      await untilReleased(stack, `${transport} stream of a dead peer`);
    },
  );
});

/** Whether this system can make a network namespace with a veth link without privileges of its own. */
function namespacesAvailable(): boolean {
  if (!LINUX) return false;
  const probe = spawnSync('unshare', ['-rn', 'sh', '-c', 'ip link add v0 type veth peer name v1'], {
    stdio: 'ignore',
    timeout: 10_000,
  });
  return probe.status === 0;
}

/**
 * The child: in its own namespace, an armed server socket (1.5 s user timeout) written to
 * every 300 ms, and a client on 10.9.0.1; once the client has its first bytes, the address is
 * removed (no acknowledgement, no reset: the peer is gone). Prints `ETIMEDOUT` when the
 * kernel closes the server's socket for it, then `closed`.
 */
const CHILD = `
require('ts-node').register({ transpileOnly: true });
const net = require('node:net');
const { execFileSync } = require('node:child_process');
const { armDeadPeerDetection } = require('./src/subscriptions/dead-peers.ts');
const server = net.createServer((socket) => {
  armDeadPeerDetection(socket, { idleMs: 1000, timeoutMs: 1500 }).then((arming) => console.log('armed ' + arming));
  const timer = setInterval(() => socket.write(':\\n\\n'), 300);
  socket.on('error', (error) => console.log(error.code));
  socket.on('close', () => { clearInterval(timer); console.log('closed'); process.exit(0); });
});
server.listen(0, '10.9.0.1', () => {
  const client = net.connect(server.address().port, '10.9.0.1');
  client.once('data', () => {
    execFileSync('ip', ['addr', 'del', '10.9.0.1/32', 'dev', 'v0']);
    console.log('gone');
  });
  client.on('error', () => undefined);
});
`;

describe('a half-open SSE connection (a real one, in a network namespace)', () => {
  (namespacesAvailable() ? it : it.skip)(
    'is closed by the kernel with ETIMEDOUT once the peer stops acknowledging',
    async () => {
      const setup =
        'ip link set lo up && ip link add v0 type veth peer name v1 && ip addr add 10.9.0.1/32 dev v0 && ip link set v1 up && ip link set v0 up';
      const child = spawn('unshare', ['-rn', 'sh', '-c', `${setup} && exec "$0" -e "$1"`, process.execPath, CHILD], {
        cwd: join(__dirname, '..', '..'),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(output).toContain('armed user-timeout');
      expect(output).toContain('gone');
      expect(output.slice(output.indexOf('gone'))).toContain('ETIMEDOUT');
      expect(output).toContain('closed');
      expect(code).toBe(0);
    },
    60_000,
  );
});
