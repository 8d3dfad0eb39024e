/**
 * Child processes of the benchmark (simulator, gateways, floor server): free ports,
 * start with a readiness line, stop by process group, and clean-up on every exit path.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { listenerPort } from '../../scripts/listener-port';

/** A started child process. */
export interface Service {
  /** Name for messages, e.g. `gateway`. */
  readonly name: string;
  /** Process id (also the id of its process group). */
  readonly pid: number;
  /** Port it listens on. */
  readonly port: number;
  /** `http://127.0.0.1:PORT`. */
  readonly origin: string;
  /** The last lines it printed (for error messages). */
  output(): string;
  /** True once it has exited. */
  exited(): boolean;
  /** Resolves when it has exited. */
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

interface Running {
  service: Service;
  child: ChildProcess;
}

const running = new Map<number, Running>();

/** Host everything binds to. */
export const HOST = '127.0.0.1';

/** A port that was free a moment ago, below the kernel's ephemeral range (scripts/listener-port.ts says why). */
export const freePort = (): Promise<number> => listenerPort(HOST);

/**
 * Checks that `port` is free on 127.0.0.1.
 *
 * @throws Error naming the port when it is taken.
 */
export async function assertPortFree(port: number, purpose: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        new Error(
          error.code === 'EADDRINUSE'
            ? `Port ${port} (${purpose}) is busy on ${HOST}. Stop what uses it, or run without --base-port to use free ports.`
            : `Port ${port} (${purpose}) cannot be used: ${error.message}`,
        ),
      );
    });
    server.listen(port, HOST, () => server.close(() => resolve()));
  });
}

/** How to start one service. */
export interface StartOptions {
  name: string;
  /** Executable to run (default: this `node`). */
  command?: string;
  /** Arguments of the command; for `node`: script first, or flags then script. */
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  port: number;
  /** Printed on stdout once the service accepts requests. */
  ready: RegExp;
  timeoutMs?: number;
}

/**
 * Spawns `node ARGS` (or `command ARGS`) in its own process group and resolves once `ready` appears on its
 * stdout. Fails with the child's last output when it exits first or is too slow; a
 * taken port is named as such.
 */
export async function startService(options: StartOptions): Promise<Service> {
  const child = spawn(options.command ?? process.execPath, options.args, {
    cwd: options.cwd,
    env: options.env,
    detached: true, // own process group: stop() kills the group
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  let stdoutText = '';
  const remember = (chunk: Buffer, stdout: boolean): void => {
    const text = chunk.toString('utf8');
    tail = (tail + text).slice(-4000);
    if (stdout && stdoutText.length < 10_000) stdoutText += text;
  };
  child.stdout?.on('data', (chunk: Buffer) => remember(chunk, true));
  child.stderr?.on('data', (chunk: Buffer) => remember(chunk, false));
  let hasExited = false;
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      hasExited = true;
      if (child.pid !== undefined) running.delete(child.pid);
      resolve({ code, signal });
    });
  });
  const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));
  if (child.pid === undefined) throw new Error(`${options.name} could not be started: ${(await spawnError).message}`);

  const service: Service = {
    name: options.name,
    pid: child.pid,
    port: options.port,
    origin: `http://${HOST}:${options.port}`,
    output: () => tail,
    exited: () => hasExited,
    exit,
  };
  running.set(child.pid, { service, child });

  const timeoutMs = options.timeoutMs ?? 30_000;
  const outcome = await new Promise<'ready' | 'exit' | 'timeout'>((resolve) => {
    const timer = setTimeout(() => resolve('timeout'), timeoutMs);
    const check = (): void => {
      if (options.ready.test(stdoutText)) {
        clearTimeout(timer);
        child.stdout?.off('data', check);
        resolve('ready');
      }
    };
    child.stdout?.on('data', check);
    void exit.then(() => {
      clearTimeout(timer);
      resolve(options.ready.test(stdoutText) ? 'ready' : 'exit');
    });
  });
  if (outcome === 'ready' && !hasExited) return service;
  await stopService(service);
  const busy = /EADDRINUSE/.test(tail);
  const reason = busy
    ? `port ${options.port} is busy on ${HOST} (another process took it; run again, or pick free ports with --base-port)`
    : outcome === 'timeout'
      ? `it did not report readiness within ${timeoutMs} ms`
      : 'it exited before it was ready';
  throw new Error(
    `${options.name} failed to start: ${reason}.\n--- last output of ${options.name} ---\n${tail.trim()}\n---`,
  );
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

/**
 * Stops a service: SIGTERM to its process group (the gateway then stops cleanly,
 * which also writes a CPU profile), SIGKILL after `graceMs`.
 */
export async function stopService(service: Service, graceMs = 5000): Promise<void> {
  if (service.exited()) return;
  killGroup(service.pid, 'SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const killed = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      killGroup(service.pid, 'SIGKILL');
      resolve();
    }, graceMs);
  });
  await Promise.race([service.exit.then(() => undefined), killed]);
  clearTimeout(timer);
  await service.exit;
}

/** Stops every service still running (gracefully, then by force). */
export async function stopAll(): Promise<void> {
  await Promise.all([...running.values()].map(({ service }) => stopService(service, 3000)));
}

/** Last resort on process exit: SIGKILL every process group still running (synchronous). */
export function killAllNow(): void {
  for (const pid of running.keys()) killGroup(pid, 'SIGKILL');
  running.clear();
}
