/**
 * Runs a command-line entry point (`npm start`, `npm run demo`): starts it, stops it
 * cleanly on SIGINT/SIGTERM, and exits 1 with the message when starting fails (a bad
 * setting, a port in use).
 *
 * @param start - starts everything; resolves to the function that stops it again
 */
export function runUntilSignal(start: () => Promise<() => Promise<unknown>>): void {
  start().then(
    (stop) => {
      const shutdown = (): void => {
        stop().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once('SIGINT', shutdown);
      process.once('SIGTERM', shutdown);
    },
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
