/**
 * A real Redis for tests: `REDIS_URL` when given, else a `redis-server` (Debian
 * package: `apt-get install -y redis-server`) started on a free port of 127.0.0.1 without
 * persistence. Whether one is available is decided when the test file loads:
 * {@link describeWithRedis} is `describe` then, else `describe.skip` (see tools.ts), so jest
 * reports the tests as skipped, never as passed; with REQUIRE_REDIS set (`.ci/run`) a
 * missing Redis fails the file instead.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { listenerPort } from '../../scripts/listener-port';
import { CHILDREN_VARIABLE, describeWithTool, toolUnavailable } from './tools';
import type { Tool } from './tools';

/**
 * `REDIS_TIMEOUT_MS` for gateways in tests, ms: long enough that a loaded machine never
 * turns a slow answer from a live Redis into "Redis down" (the gateway then answers from
 * process memory and the upstream for a second, and replicas stop sharing). Tests of a
 * slow Redis freeze it and set their own.
 */
export const TEST_REDIS_TIMEOUT_MS = 10_000;

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

/** Options of {@link describeWithRedis} and {@link startTestRedis}. */
export interface TestRedisOptions {
  /**
   * The tests stop and start the server: they need a `redis-server` of their own, even
   * when `REDIS_URL` names one (default false).
   */
  own?: boolean;
}

function redisServerOnPath(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** The Redis tests: they need `REDIS_URL` or a `redis-server` on PATH. */
export const REDIS_TOOL: Tool = {
  label: 'Redis',
  helper: 'describeWithRedis',
  install: 'apt-get install -y redis-server',
  requireVariable: 'REQUIRE_REDIS',
  probeVariable: 'STATEV_TEST_REDIS_MISSING',
  unavailableReason: () =>
    process.env.REDIS_URL || redisServerOnPath() ? null : 'no redis-server on PATH and no REDIS_URL',
};

/** Why tests with these options cannot run here, or null when they can. */
function unavailableReason(options: TestRedisOptions): string | null {
  const reason = toolUnavailable(REDIS_TOOL);
  if (reason !== null || !options.own || !process.env.REDIS_URL) return reason;
  // REDIS_URL makes the group available, but these tests need a server of their own.
  return redisServerOnPath()
    ? null
    : 'no redis-server on PATH (these tests stop and start one of their own; REDIS_URL is not enough)';
}

/**
 * `describe` when a Redis is available; else `describe.skip`, so jest reports the tests
 * as skipped. With REQUIRE_REDIS set, a missing Redis is a failing test that says why.
 * Decided when the test file loads. Call {@link startTestRedis} only inside it (lint
 * rejects it anywhere else).
 */
export function describeWithRedis(name: string, body: () => void, options: TestRedisOptions = {}): void {
  describeWithTool(REDIS_TOOL, name, body, unavailableReason(options));
}

/**
 * Notes a started redis-server in the run's children folder (global-setup.ts makes it,
 * global-teardown.ts kills and reports what is still listed there); returns the forget.
 */
function noteChild(server: ChildProcess): () => void {
  const folder = process.env[CHILDREN_VARIABLE];
  if (!folder || server.pid === undefined) return () => undefined;
  const file = join(folder, String(server.pid));
  writeFileSync(file, `redis-server started by ${expect.getState().testPath ?? 'an unknown test file'}`);
  return () => rmSync(file, { force: true });
}

/**
 * Starts (or connects to) a Redis. Call it inside {@link describeWithRedis} with the same
 * options.
 *
 * @throws Error when no Redis is available.
 */
export async function startTestRedis(options: TestRedisOptions = {}): Promise<TestRedis> {
  const given = process.env.REDIS_URL;
  if (given && !options.own) {
    return { url: given, owned: false, stop: async () => undefined, start: async () => undefined };
  }
  const reason = unavailableReason(options);
  if (reason !== null)
    throw new Error(
      `Redis tests need a Redis: ${reason}. Start it inside describeWithRedis, which skips the tests then (${REDIS_TOOL.install} enables them).`,
    );
  const port = await listenerPort();
  let child: ChildProcess | null = null;
  const start = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const server = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--save',
          '',
          '--appendonly',
          'no',
          '--enable-debug-command',
          'yes',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      child = server;
      // A file that forgets stop() must not hold Jest open: a file run in band (a single
      // file, --runInBand, or one worker, Jest's default on two cores) runs in Jest's
      // own process, where a live child and its pipes keep the run from ever exiting (CI
      // once hung 90 minutes so).
      // Unreferenced, the server no longer holds the process; global-teardown.ts kills it
      // and fails the run, naming the file.
      server.unref();
      const forget = noteChild(server);
      server.once('exit', forget);
      let output = '';
      server.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (/Ready to accept connections/.test(output)) resolve();
      });
      server.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output.slice(-500)}`)));
      for (const stream of [server.stdout, server.stderr])
        (stream as unknown as { unref?: () => void } | null)?.unref?.();
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
