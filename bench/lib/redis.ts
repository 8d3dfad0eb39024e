/**
 * The benchmark's own Redis for the replicas scenario: a `redis-server` (found on PATH
 * or given with `--redis-server`) started on 127.0.0.1 without persistence, in its own
 * process group like every other child (so it is stopped with them), and a minimal RESP
 * client for the few figures the summary reads (INFO, DBSIZE).
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { HOST, startService } from './processes';
import type { Service } from './processes';

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The `redis-server` to use: `explicit` when it is executable, else the first on PATH; null when there is none. */
export function findRedisServer(explicit: string | null): string | null {
  if (explicit !== null) return executable(explicit) ? explicit : null;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const file = join(dir, 'redis-server');
    if (executable(file)) return file;
  }
  return null;
}

/** `redis-server --version` (e.g. `7.0.15`), or null. */
export function redisServerVersion(binary: string): string | null {
  const result = spawnSync(binary, ['--version'], {
    encoding: 'utf8',
    timeout: 5000,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return /\bv=(\S+)/.exec(result.stdout ?? '')?.[1] ?? null;
}

/**
 * Starts `redis-server` on `HOST:port` without persistence (`--save '' --appendonly no`)
 * and resolves once it printed "Ready to accept connections".
 */
export async function startRedis(binary: string, port: number): Promise<Service> {
  return startService({
    name: 'redis',
    command: binary,
    args: [
      '--port',
      String(port),
      '--bind',
      HOST,
      '--save',
      '',
      '--appendonly',
      'no',
      '--daemonize',
      'no',
      '--dir',
      tmpdir(),
    ],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    cwd: tmpdir(),
    port,
    ready: /Ready to accept connections/,
    timeoutMs: 10_000,
  });
}

/** One parsed RESP reply: the text of a simple/bulk string, or the number of an integer; null for a null bulk. */
type Reply = { complete: false } | { complete: true; value: string | number | null };

function parseReply(buffer: Buffer): Reply {
  const lineEnd = buffer.indexOf('\r\n');
  if (lineEnd < 0) return { complete: false };
  const type = String.fromCharCode(buffer[0] ?? 0);
  const line = buffer.subarray(1, lineEnd).toString('utf8');
  if (type === '+') return { complete: true, value: line };
  if (type === ':') return { complete: true, value: Number(line) };
  if (type === '-') throw new Error(`redis: ${line}`);
  if (type === '$') {
    const length = Number(line);
    if (length < 0) return { complete: true, value: null };
    const start = lineEnd + 2;
    if (buffer.length < start + length + 2) return { complete: false };
    return { complete: true, value: buffer.subarray(start, start + length).toString('utf8') };
  }
  throw new Error(`redis: unexpected reply type '${type}'`);
}

/** Sends one command to the Redis on `HOST:port` over a fresh connection and returns its reply. */
export async function redisCommand(
  port: number,
  args: readonly string[],
  timeoutMs = 5000,
): Promise<string | number | null> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, HOST);
    let buffer = Buffer.alloc(0);
    let done = false;
    const finish = (error: Error | null, value: string | number | null = null): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(value);
    };
    const timer = setTimeout(
      () => finish(new Error(`redis ${args[0] ?? ''} on port ${port} timed out after ${timeoutMs} ms`)),
      timeoutMs,
    );
    socket.once('connect', () => {
      socket.write(`*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join('')}`);
    });
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      try {
        const reply = parseReply(buffer);
        if (reply.complete) finish(null, reply.value);
      } catch (error) {
        finish(error instanceof Error ? error : new Error(String(error)));
      }
    });
    socket.once('error', (error) => finish(error));
    socket.once('close', () => finish(new Error(`redis on port ${port} closed the connection before answering`)));
  });
}

/** What the summary reads from Redis at one moment. */
export interface RedisStats {
  /** Keys in the database (DBSIZE). */
  keys: number;
  /** `used_memory` of INFO memory, bytes. */
  usedMemoryBytes: number;
  /** `total_commands_processed` of INFO stats (this client's INFO/DBSIZE included). */
  commandsProcessed: number;
}

function infoField(info: string, field: string): number {
  const match = new RegExp(`^${field}:(\\d+)`, 'm').exec(info);
  return match?.[1] === undefined ? 0 : Number(match[1]);
}

/** DBSIZE, used memory and processed commands of the Redis on `HOST:port`. */
export async function redisStats(port: number): Promise<RedisStats> {
  const keys = await redisCommand(port, ['DBSIZE']);
  const memory = await redisCommand(port, ['INFO', 'memory']);
  const stats = await redisCommand(port, ['INFO', 'stats']);
  return {
    keys: typeof keys === 'number' ? keys : 0,
    usedMemoryBytes: typeof memory === 'string' ? infoField(memory, 'used_memory') : 0,
    commandsProcessed: typeof stats === 'string' ? infoField(stats, 'total_commands_processed') : 0,
  };
}
