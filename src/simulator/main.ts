#!/usr/bin/env node
/**
 * CLI of the StateV REST API simulator: `statev-simulator` (the package's bin), or
 * `node dist/src/simulator/main.js` from a checkout.
 *
 * Usage: `statev-simulator [--version] [--port N] [--host H] [--latency MS] [--rate-limit off|N/SECONDS]
 * [--rate-limit-window rolling|fixed] [--no-retry-after] [--live [--live-interval MS]] [--fail-write N[:STATUS]]`
 *
 * `--fail-write 3:503` fails the third option write (`POST /factory/options`) with a 503
 * (STATUS: 429, 500, 502, 503 or drop; default 503), for trying failure handling by hand.
 *
 * The rate limit is 10 requests per key per rolling 60 s unless `--rate-limit` says otherwise.
 *
 * Prints the base URL (`http://HOST:PORT/req`) as the first stdout line, key hints on stderr,
 * and stops cleanly on SIGINT/SIGTERM.
 */
import { parseArgs } from 'node:util';
import { packageVersion } from '../project-root';
import { DEMO_KEYS } from './fixtures';
import { MERCHANT_KEY } from './fixtures-merchant';
import { DEFAULT_RATE_LIMIT, describeRateLimit, parseRateLimit } from './rate-limit';
import { startSimulator } from './simulator';
import type { SimulatorOptions } from './simulator';

/** Usage text printed for `--help` and on argument errors. */
export const USAGE =
  'Usage: statev-simulator [--version] [--port N] [--host H] [--latency MS] [--rate-limit off|N/SECONDS (default 10/60)] [--rate-limit-window rolling|fixed] [--no-retry-after] [--live [--live-interval MS]] [--fail-write N[:429|500|502|503|drop]]';

/** The simulator's flags, as `node:util` `parseArgs` reads them. */
const FLAGS = {
  port: { type: 'string' },
  host: { type: 'string' },
  latency: { type: 'string' },
  'rate-limit': { type: 'string' },
  live: { type: 'boolean' },
  'live-interval': { type: 'string' },
  'rate-limit-window': { type: 'string' },
  'no-retry-after': { type: 'boolean' },
  'fail-write': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

function nonNegativeInt(flag: string, raw: string): number {
  if (!/^\d+$/.test(raw)) throw new Error(`${flag} must be a non-negative integer, got '${raw}'`);
  return Number(raw);
}

/** `node:util` `parseArgs` with this CLI's wording for its two errors. */
function readFlags(argv: readonly string[]): {
  port?: string;
  host?: string;
  latency?: string;
  'rate-limit'?: string;
  'rate-limit-window'?: string;
  'no-retry-after'?: boolean;
  live?: boolean;
  'live-interval'?: string;
  'fail-write'?: string;
  help?: boolean;
  version?: boolean;
} {
  try {
    return parseArgs({ args: [...argv], options: FLAGS, strict: true, allowPositionals: false }).values;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const flag = /'(-[^' ]+)/.exec(error instanceof Error ? error.message : '')?.[1] ?? '';
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') throw new Error(`${flag} needs a value`);
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL')
      throw new Error(`Unknown argument '${flag || argv.join(' ')}'`);
    throw error;
  }
}

/**
 * Parses the CLI arguments (without `node` and the script path) into {@link SimulatorOptions},
 * with `node:util` `parseArgs`: `--flag value` and `--flag=value`.
 *
 * @throws Error with a readable message on unknown flags or invalid values.
 */
export function parseCliArgs(argv: readonly string[]): SimulatorOptions {
  const values = readFlags(argv);
  const options: SimulatorOptions = {};
  if (values.port !== undefined) {
    const port = nonNegativeInt('--port', values.port);
    if (port > 65535) throw new Error(`--port must be at most 65535, got ${port}`);
    options.port = port;
  }
  if (values.host !== undefined) options.host = values.host;
  if (values.latency !== undefined) options.latencyMs = nonNegativeInt('--latency', values.latency);
  const window = values['rate-limit-window'];
  if (window !== undefined && window !== 'rolling' && window !== 'fixed')
    throw new Error(`--rate-limit-window must be rolling or fixed, got '${window}'`);
  const rateLimit = values['rate-limit'] === undefined ? undefined : parseRateLimit(values['rate-limit']);
  if (rateLimit !== undefined) options.rateLimit = rateLimit;
  if (window !== undefined) {
    const base = options.rateLimit ?? DEFAULT_RATE_LIMIT;
    if (base === 'off') throw new Error('--rate-limit-window needs a rate limit, not --rate-limit off');
    options.rateLimit = { requests: base.requests, windowSeconds: base.windowSeconds, window };
  }
  if (values['no-retry-after'] === true) options.retryAfterHeader = false;
  const liveInterval = values['live-interval'];
  if (liveInterval !== undefined && !values.live) throw new Error('--live-interval needs --live');
  // Live mode: a random data change on a schedule (stock, counter, bookings, bids, rooms).
  if (values.live)
    options.live =
      liveInterval === undefined ? true : { intervalMs: Math.max(1, nonNegativeInt('--live-interval', liveInterval)) };
  const failWrite = values['fail-write'];
  if (failWrite !== undefined) {
    const match = /^(\d+)(?::(429|500|502|503|drop))?$/.exec(failWrite);
    if (!match || Number(match[1]) < 1)
      throw new Error(
        `--fail-write must be N or N:STATUS (N ≥ 1; STATUS 429, 500, 502, 503 or drop), got '${failWrite}'`,
      );
    const status =
      match[2] === undefined ? 503 : match[2] === 'drop' ? 'drop' : (Number(match[2]) as 429 | 500 | 502 | 503);
    options.failWrite = { nth: Number(match[1]), status };
  }
  return options;
}

/** Starts the simulator from `process.argv`, prints the base URL and stops on SIGINT/SIGTERM. */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (argv.includes('--version') || argv.includes('-v')) {
    process.stdout.write(`${packageVersion()}\n`);
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
    `StateV simulator listening on ${simulator.baseUrl} (keys: ${DEMO_KEYS.premium.key}, ${DEMO_KEYS.basic.key}, ${DEMO_KEYS.other.key}, ${MERCHANT_KEY.key}; admin: ${simulator.origin}/__sim/requests)\n` +
      `${describeRateLimit(simulator.rateLimit)}\n`,
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
