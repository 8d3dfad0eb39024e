/**
 * A real Redis for tests: `REDIS_URL` when given, else a `redis-server` (Debian
 * package, installed by .ci/run) started on a free port of 127.0.0.1 without
 * persistence. Without either, tests fail with a clear message in CI (or with
 * REQUIRE_REDIS set) and are skipped with a warning elsewhere.
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

/** Starts (or connects to) a Redis; throws a clear error when impossible and required. */
export async function startTestRedis(): Promise<TestRedis | null> {
  const given = process.env.REDIS_URL;
  if (given) {
    return { url: given, owned: false, stop: async () => undefined, start: async () => undefined };
  }
  const reason = redisUnavailableReason();
  if (reason) {
    if (required) throw new Error(reason);
    console.warn(`skipping Redis tests: ${reason}`);
    return null;
  }
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
