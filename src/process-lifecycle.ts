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

/** Time a stop gets on top of the grace period (for closing upstream and Redis connections) before the process is ended. */
export const STOP_DEADLINE_MARGIN_MS = 1000;

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
        const deadlineMs = started.gracePeriodMs + STOP_DEADLINE_MARGIN_MS;
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
