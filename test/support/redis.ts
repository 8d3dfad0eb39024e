/**
 * A real Redis for tests: `REDIS_URL` when given, else a `redis-server` (Debian
 * package, installed by .ci/run) started on a free port of 127.0.0.1 without
 * persistence. Whether one is available is decided when the test file loads:
 * {@link describeWithRedis} is `describe` then, else `describe.skip`, so jest reports
 * the tests as skipped, never as passed; in CI (or with REQUIRE_REDIS set) a missing
 * Redis fails the file instead.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** A Redis the tests may stop and start again (on the same port). */
export interface TestRedis {
  url: string;
  /** Stops the server (only for a server these tests started). */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  /** True when the tests started it (so stop/start work). */
  owned: boolean;
}

const required = Boolean(process.env.CI || process.env.REQUIRE_REDIS);

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function redisServerAvailable(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** Why Redis tests cannot run here, or null when they can. */
export function redisUnavailableReason(): string | null {
  if (process.env.REDIS_URL || redisServerAvailable()) return null;
  return 'Redis tests need REDIS_URL or a redis-server on PATH (apt-get install -y redis-server).';
}

let unavailable: string | null | undefined;

/** {@link redisUnavailableReason}, asked once per test file. */
function unavailableReason(): string | null {
  if (unavailable === undefined) unavailable = redisUnavailableReason();
  return unavailable;
}

/**
 * `describe` when a Redis is available; else `describe.skip`, so jest reports the tests
 * as skipped. In CI or with REQUIRE_REDIS, a missing Redis is a failing test that says why.
 * Decided when the test file loads.
 */
export function describeWithRedis(name: string, body: () => void): void {
  const reason = unavailableReason();
  if (reason === null) {
    describe(name, body);
  } else if (required) {
    describe(name, () => {
      it('needs Redis', () => {
        throw new Error(`${reason} (CI/REQUIRE_REDIS asks for the Redis tests)`);
      });
    });
  } else {
    describe.skip(name, body);
  }
}

/**
 * Starts (or connects to) a Redis. Call it inside {@link describeWithRedis}.
 *
 * @throws Error when no Redis is available.
 */
export async function startTestRedis(): Promise<TestRedis> {
  const given = process.env.REDIS_URL;
  if (given) {
    return { url: given, owned: false, stop: async () => undefined, start: async () => undefined };
  }
  const reason = unavailableReason();
  if (reason !== null) throw new Error(reason);
  const port = await freePort();
  let child: ChildProcess | null = null;
  const start = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const server = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--enable-debug-command', 'yes'],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      child = server;
      let output = '';
      server.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (/Ready to accept connections/.test(output)) resolve();
      });
      server.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output.slice(-500)}`)));
      server.once('error', reject);
    });
  const stop = (): Promise<void> =>
    new Promise((resolve) => {
      const server = child;
      if (!server || server.exitCode !== null) {
        resolve();
        return;
      }
      server.removeAllListeners('exit');
      server.once('exit', () => resolve());
      server.kill('SIGKILL');
    });
  await start();
  return { url: `redis://127.0.0.1:${port}`, owned: true, start, stop };
}
