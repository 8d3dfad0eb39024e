/**
 * A port for a server that another process will start: `listenerPort()` resolves to a port that
 * is free on 127.0.0.1 now and lies below the kernel's ephemeral range
 * (`/proc/sys/net/ipv4/ip_local_port_range`, 32768–60999 on Linux by default).
 *
 * Use it where a port is chosen in one process and listened on in another (the doc pages' demos,
 * CI's demo and package steps, the bench's gateways, a Redis server of the tests). Why not port 0
 * of a temporary server: the kernel picks that port from the ephemeral range, the one it also
 * gives every outgoing connection its local port from. Between the probe and the other process's
 * `listen`, any client on the machine (a benchmark opening thousands of connections beside CI's
 * demo, say) can be given that port, and the server then fails with EADDRINUSE. Below the range,
 * only another listener can take it, and a random pick among some 12,000 ports makes that rare.
 *
 * As a program (`node -r ts-node/register/transpile-only scripts/listener-port.ts`) it prints one
 * such port, for shell scripts.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** How many ports below the ephemeral range the pick draws from. */
const SPAN = 12_000;

/** The lowest port of the kernel's ephemeral range (32768 where it cannot be read). */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 2048 ? low : 32768;
  } catch {
    return 32768;
  }
}

/** Listens on `port` and closes again: the port (0 = the kernel's pick) when it was free, else undefined. */
function probe(port: number, host: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(undefined));
    server.listen(port, host, () => {
      const address = server.address();
      const bound = typeof address === 'object' && address !== null ? address.port : undefined;
      server.close(() => resolve(bound));
    });
  });
}

/**
 * A port free on `host` (default 127.0.0.1) a moment ago, below the ephemeral range, for a server
 * another process starts. Falls back to the kernel's pick (port 0) when 100 random ports below the
 * range were all taken.
 */
export async function listenerPort(host = '127.0.0.1'): Promise<number> {
  const high = ephemeralLow() - 1;
  const low = Math.max(1024, high - SPAN);
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = await probe(low + Math.floor(Math.random() * (high - low + 1)), host);
    if (port !== undefined) return port;
  }
  const fallback = await probe(0, host);
  if (fallback === undefined) throw new Error(`no free port on ${host}`);
  return fallback;
}

if (require.main === module) {
  listenerPort().then(
    (port) => console.log(port),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
