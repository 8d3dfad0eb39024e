/**
 * CLI of the StateV REST API simulator.
 *
 * Usage: `node dist/src/simulator/main.js [--port N] [--host H] [--latency MS] [--rate-limit N/SECONDS]`
 *
 * Prints the base URL (`http://HOST:PORT/req`) as the first stdout line, key hints on stderr,
 * and stops cleanly on SIGINT/SIGTERM.
 */
import { DEMO_KEYS } from './fixtures';
import { startSimulator } from './simulator';
import type { SimulatorOptions } from './simulator';

/** Usage text printed for `--help` and on argument errors. */
export const USAGE = 'Usage: main.js [--port N] [--host H] [--latency MS] [--rate-limit N/SECONDS]';

/**
 * Parses the CLI arguments (without `node` and the script path) into {@link SimulatorOptions}.
 * Accepts `--flag value` and `--flag=value`.
 *
 * @throws Error with a readable message on unknown flags or invalid values.
 */
export function parseCliArgs(argv: readonly string[]): SimulatorOptions {
  const options: SimulatorOptions = {};
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] ?? '';
    const eq = arg.indexOf('=');
    const flag = eq >= 0 ? arg.slice(0, eq) : arg;
    const inline = eq >= 0 ? arg.slice(eq + 1) : undefined;
    const value = (): string => {
      if (inline !== undefined) return inline;
      i += 1;
      const next = argv[i];
      if (next === undefined) throw new Error(`${flag} needs a value`);
      return next;
    };
    const nonNegativeInt = (raw: string): number => {
      if (!/^\d+$/.test(raw)) throw new Error(`${flag} must be a non-negative integer, got '${raw}'`);
      return Number(raw);
    };
    switch (flag) {
      case '--port': {
        const port = nonNegativeInt(value());
        if (port > 65535) throw new Error(`--port must be at most 65535, got ${port}`);
        options.port = port;
        break;
      }
      case '--host':
        options.host = value();
        break;
      case '--latency':
        options.latencyMs = nonNegativeInt(value());
        break;
      case '--rate-limit': {
        const raw = value();
        const parts = /^(\d+)\/(\d+(?:\.\d+)?)$/.exec(raw);
        if (parts === null) throw new Error(`--rate-limit must look like N/SECONDS, got '${raw}'`);
        const requests = Number(parts[1]);
        const windowSeconds = Number(parts[2]);
        if (requests < 1 || windowSeconds <= 0) throw new Error(`--rate-limit needs N ≥ 1 and SECONDS > 0, got '${raw}'`);
        options.rateLimit = { requests, windowSeconds };
        break;
      }
      default:
        throw new Error(`Unknown argument '${arg}'`);
    }
  }
  return options;
}

/** Starts the simulator from `process.argv`, prints the base URL and stops on SIGINT/SIGTERM. */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  let options: SimulatorOptions;
  try {
    options = parseCliArgs(argv);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  const simulator = await startSimulator(options);
  process.stdout.write(`${simulator.baseUrl}\n`);
  process.stderr.write(
    `StateV simulator listening on ${simulator.baseUrl} (keys: ${DEMO_KEYS.premium.key}, ${DEMO_KEYS.basic.key}, ${DEMO_KEYS.other.key}; admin: ${simulator.origin}/__sim/requests)\n`,
  );
  const stop = (): void => {
    void simulator.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
