/** A started entry point, as its start function returns it. */
export interface Started {
  /** Stops everything it started (drains HTTP servers, closes connections). */
  stop(): Promise<unknown>;
  /**
   * How long requests in flight may take to finish once a stop begins, ms (the
   * gateway's `shutdownGracePeriodMs`). A stop still running
   * {@link STOP_DEADLINE_MARGIN_MS} after that ends the process with exit code 1.
   */
  gracePeriodMs: number;
}

/** The parts of `process` {@link runUntilSignal} uses (tests pass their own). */
export interface ProcessHooks {
  /** Registers a listener for every delivery of a signal (default `process.on`). */
  onSignal(signal: NodeJS.Signals, listener: () => void): void;
  /** Ends the process (default `process.exit`). */
  exit(code: number): void;
  /** Reports a line on stderr, with the error and its cause when given (default `console.error`). */
  report(message: string, error?: unknown): void;
}

/** The setting an entry point's server listens on, named when the port cannot be opened. */
export interface PortSetting {
  /** The environment variable, e.g. `PORT` or `SIMULATOR_PORT`. */
  readonly name: string;
  /** The command that starts the entry point, e.g. `npm start`. */
  readonly command: string;
}

/**
 * A listen failure as one line that names the setting and what to do, e.g. `Port 4000
 * (PORT) on 127.0.0.1 is already in use: start on another port with PORT=4001 npm start,
 * or find the process holding it with lsof -i :4000 (or ss -ltnp 'sport = :4000').`;
 * null for any other error. Handles `EADDRINUSE` and `EACCES` (a port below 1024 without
 * the privilege).
 */
export function portErrorMessage(error: unknown, setting: PortSetting): string | null {
  // Not `instanceof Error`: an error from another realm (a vm context, as under Jest) is one too.
  if (
    typeof error !== 'object' ||
    error === null ||
    !('code' in error) ||
    !('syscall' in error) ||
    error.syscall !== 'listen'
  )
    return null;
  const port = 'port' in error && typeof error.port === 'number' ? error.port : null;
  const address = 'address' in error && typeof error.address === 'string' ? ` on ${error.address}` : '';
  if (port === null) return null;
  const other = port >= 1024 && port < 65535 ? port + 1 : 4000;
  const change = `start on another port with ${setting.name}=${other} ${setting.command}`;
  if (error.code === 'EADDRINUSE') {
    return `Port ${port} (${setting.name})${address} is already in use: ${change}, or find the process holding it with lsof -i :${port} (or ss -ltnp 'sport = :${port}').`;
  }
  if (error.code === 'EACCES') {
    return `Port ${port} (${setting.name})${address} may not be opened by this user (ports below 1024 need privileges): ${change}.`;
  }
  return null;
}

/**
 * Runs `start`; a failure to open its port becomes an `Error` whose message is
 * {@link portErrorMessage} (printed as is by {@link runUntilSignal}, without a stack trace).
 * Any other failure passes unchanged.
 */
export async function explainPortErrors<T>(setting: PortSetting, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    const message = portErrorMessage(error, setting);
    throw message === null ? error : new Error(message, { cause: error });
  }
}

/** Time a stop gets on top of the grace period (for closing upstream and Redis connections) before the process is ended. */
export const STOP_DEADLINE_MARGIN_MS = 1000;

/** Node's longest timer, ms (2^31-1): a longer delay fires after 1 ms. */
const LONGEST_TIMER_MS = 2_147_483_647;

const nodeProcess: ProcessHooks = {
  onSignal: (signal, listener) => process.on(signal, listener),
  exit: (code) => process.exit(code),
  report: (message, error) => (error === undefined ? console.error(message) : console.error(message, error)),
};

/**
 * Runs a command-line entry point (`npm start`, `npm run demo`) until SIGINT or SIGTERM.
 *
 * - Starting fails: prints the message; the error's `exitCode` when it has one (a bad
 *   setting's `ConfigError` has 2), else 1 (a port in use).
 * - First signal: runs `stop()`; exit code 0 when it resolves. When it rejects, the
 *   failure is reported with its cause and the exit code is 1.
 * - A stop still running `gracePeriodMs` + {@link STOP_DEADLINE_MARGIN_MS} after the
 *   signal is reported and ended with exit code 1.
 * - Further signals while stopping are reported and otherwise ignored (they do not
 *   kill the process half-way through the drain).
 *
 * @param start - starts everything; resolves to how to stop it again
 * @returns a promise that settles once starting has succeeded or failed
 */
export function runUntilSignal(start: () => Promise<Started>, hooks: ProcessHooks = nodeProcess): Promise<void> {
  return start().then(
    (started) => {
      let stopping = false;
      const shutdown = (signal: NodeJS.Signals): void => {
        if (stopping) {
          hooks.report(`${signal} received while stopping: ignored, the stop goes on.`);
          return;
        }
        stopping = true;
        // At most Node's longest timer: a longer one would fire after 1 ms (both delays may be at the bound).
        const deadlineMs = Math.min(LONGEST_TIMER_MS, started.gracePeriodMs + STOP_DEADLINE_MARGIN_MS);
        const deadline = setTimeout(() => {
          hooks.report(`Stop did not finish within ${deadlineMs} ms: exiting.`);
          hooks.exit(1);
        }, deadlineMs);
        deadline.unref();
        started.stop().then(
          () => {
            clearTimeout(deadline);
            hooks.exit(0);
          },
          (error: unknown) => {
            clearTimeout(deadline);
            hooks.report('Stop failed:', error);
            hooks.exit(1);
          },
        );
      };
      hooks.onSignal('SIGINT', () => shutdown('SIGINT'));
      hooks.onSignal('SIGTERM', () => shutdown('SIGTERM'));
    },
    (error: unknown) => {
      hooks.report(error instanceof Error ? error.message : String(error));
      const exitCode = (error as { exitCode?: unknown } | null)?.exitCode;
      hooks.exit(typeof exitCode === 'number' ? exitCode : 1);
    },
  );
}
