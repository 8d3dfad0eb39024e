/**
 * Command-line flags of `npm run bench` (after `--`).
 */

/** Every scenario and baseline the benchmark knows, in the order it runs them. */
export const SCENARIO_NAMES = [
  'warm',
  'warm-10c',
  'small',
  'cold',
  'cold-1c',
  'cold-shared-key',
  'many-keys',
  'warm-no-response-cache',
  'naive',
  'floor',
  'floor-10c',
  'replicas',
] as const;

/** One scenario name. */
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

/** The parsed flags. */
export interface BenchArgs {
  /** Added latency of every simulated upstream request, ms (`--latency`, default 20). */
  latencyMs: number;
  /** Short run for CI (`--quick`). */
  quick: boolean;
  /** Measured seconds per scenario (`--duration`; default 10, quick 2). */
  durationSeconds: number;
  /** Untimed warm-up seconds before each measurement (`--warmup`; default 2, quick 0.5). */
  warmupSeconds: number;
  /** Keys of the many-keys scenario (`--keys`; default 500, quick 50). */
  manyKeys: number;
  /** Keys many-keys fills at once, each with its first (cold) dashboard (`--fill-concurrency`, default 5); also the replicas' first views. */
  fillConcurrency: number;
  /** Distinct keys of the replicas scenarios (`--replica-keys`; default 50, quick 10). */
  replicaKeys: number;
  /** The `redis-server` binary of the replicas scenarios (`--redis-server`; default: found on PATH). */
  redisServer: string | null;
  /** Scenarios to run (`--only a,b`; default all). */
  only: ScenarioName[] | null;
  /** Scenario whose server process runs with `--cpu-prof` (`--profile NAME`; runs only that scenario). */
  profile: ScenarioName | null;
  /** Extra environment of every gateway process (`--gateway-env NAME=VALUE`, repeatable). */
  gatewayEnv: Record<string, string>;
  /** Project folder whose `dist/src/main.js` is the gateway (`--gateway-root DIR`; default this project). */
  gatewayRoot: string | null;
  /** First of consecutive fixed ports instead of free ephemeral ones (`--base-port N`). */
  basePort: number | null;
  /** Where the summary JSON goes (`--out FILE`). */
  out: string | null;
  /** `--help`. */
  help: boolean;
}

/** Usage text for `--help` and argument errors. */
export const USAGE = `Usage: npm run bench -- [flags]

  --latency MS          added latency per simulated upstream request (default 20)
  --quick               short run for CI: 2 s per scenario, 50 keys, 10 replica keys (< 2 minutes)
  --duration S          measured seconds per scenario (default 10, --quick 2)
  --warmup S            untimed warm-up seconds before each measurement (default 2, --quick 0.5)
  --keys N              distinct keys of the many-keys scenario (default 500, --quick 50)
  --fill-concurrency N  keys many-keys fills at once before measuring, and keys the
                        replicas scenarios view at once (default 5)
  --replica-keys N      distinct keys of the replicas scenarios (default 50, --quick 10)
  --redis-server PATH   redis-server binary for replicas-redis (default: redis-server
                        on PATH; when missing, that half is skipped)
  --only A,B            run only these scenarios (${SCENARIO_NAMES.join(', ')})
  --profile NAME        run only scenario NAME, its server with --cpu-prof; writes
                        bench/results/NAME.cpuprofile and prints the hottest functions
  --gateway-env K=V     extra environment for every gateway process (repeatable)
  --gateway-root DIR    use DIR/dist/src/main.js as the gateway (before/after comparisons)
  --base-port N         use ports N, N+1, ... (must be free) instead of free ephemeral ports
  --out FILE            summary JSON path (default bench/results/latest.json, or
                        bench/results/partial.json with --only/--profile)
  --help                this text`;

function isScenario(name: string): name is ScenarioName {
  return (SCENARIO_NAMES as readonly string[]).includes(name);
}

function number(flag: string, raw: string, min: number, integer: boolean): number {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
    throw new Error(`${flag} must be ${integer ? 'an integer' : 'a number'} >= ${min}, got '${raw}'`);
  }
  return value;
}

/**
 * Parses the flags (without `node` and the script).
 *
 * @throws Error with a readable message on unknown flags or bad values.
 */
export function parseArgs(argv: readonly string[]): BenchArgs {
  const seen = new Map<string, string>();
  const gatewayEnv: Record<string, string> = {};
  let quick = false;
  let help = false;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] ?? '';
    const eq = arg.indexOf('=');
    const flag = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    const inline = arg.startsWith('--') && eq > 0 ? arg.slice(eq + 1) : undefined;
    const value = (): string => {
      if (inline !== undefined) return inline;
      i += 1;
      const next = argv[i];
      if (next === undefined) throw new Error(`${flag} needs a value`);
      return next;
    };
    switch (flag) {
      case '--quick':
        quick = true;
        break;
      case '--help':
      case '-h':
        help = true;
        break;
      case '--gateway-env': {
        const pair = value();
        const at = pair.indexOf('=');
        if (at <= 0) throw new Error(`--gateway-env needs NAME=VALUE, got '${pair}'`);
        gatewayEnv[pair.slice(0, at)] = pair.slice(at + 1);
        break;
      }
      case '--latency':
      case '--duration':
      case '--warmup':
      case '--keys':
      case '--fill-concurrency':
      case '--replica-keys':
      case '--redis-server':
      case '--only':
      case '--profile':
      case '--gateway-root':
      case '--base-port':
      case '--out':
        seen.set(flag, value());
        break;
      default:
        throw new Error(`Unknown argument '${arg}'`);
    }
  }
  const get = (flag: string): string | undefined => seen.get(flag);
  const only = get('--only');
  const onlyNames = only === undefined ? null : only.split(',').map((name) => name.trim()).filter((name) => name !== '');
  for (const name of onlyNames ?? []) if (!isScenario(name)) throw new Error(`Unknown scenario '${name}' in --only (known: ${SCENARIO_NAMES.join(', ')})`);
  const profile = get('--profile');
  if (profile !== undefined && !isScenario(profile)) throw new Error(`Unknown scenario '${profile}' for --profile (known: ${SCENARIO_NAMES.join(', ')})`);
  if (profile === 'replicas') throw new Error('--profile replicas is not supported: it runs four gateway processes (profile one of the single-gateway scenarios)');
  const raw = (flag: string): string | undefined => get(flag);
  const latency = raw('--latency');
  const duration = raw('--duration');
  const warmup = raw('--warmup');
  const keys = raw('--keys');
  const basePort = raw('--base-port');
  const fill = raw('--fill-concurrency');
  const replicaKeys = raw('--replica-keys');
  const redisServer = raw('--redis-server');
  const parsed: BenchArgs = {
    latencyMs: latency === undefined ? 20 : number('--latency', latency, 0, true),
    quick,
    durationSeconds: duration === undefined ? (quick ? 2 : 10) : number('--duration', duration, 0.5, false),
    warmupSeconds: warmup === undefined ? (quick ? 0.5 : 2) : number('--warmup', warmup, 0, false),
    manyKeys: keys === undefined ? (quick ? 50 : 500) : number('--keys', keys, 1, true),
    fillConcurrency: fill === undefined ? 5 : number('--fill-concurrency', fill, 1, true),
    replicaKeys: replicaKeys === undefined ? (quick ? 10 : 50) : number('--replica-keys', replicaKeys, 1, true),
    redisServer: redisServer === undefined || redisServer.trim() === '' ? null : redisServer,
    only: onlyNames === null ? null : (onlyNames as ScenarioName[]),
    profile: profile === undefined ? null : (profile as ScenarioName),
    gatewayEnv,
    gatewayRoot: raw('--gateway-root') ?? null,
    basePort: basePort === undefined ? null : number('--base-port', basePort, 1, true),
    out: raw('--out') ?? null,
    help,
  };
  // simulator, gateway, many-keys, no-response-cache, naive, floor, 2 + 2 replicas, redis
  if (parsed.basePort !== null && parsed.basePort + 11 > 65535) throw new Error('--base-port must leave room for 11 ports below 65536');
  return parsed;
}
