/**
 * Command-line flags of `npm run bench` (after `--`), read with `node:util` `parseArgs`.
 */
import { parseArgs } from 'node:util';

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
  /** Keys the metrics-keys scenario makes known before it times scrapes (`--scrape-keys`; default 10000, quick 2000). */
  scrapeKeys: number;
  /** The `redis-server` binary of the replicas scenarios (`--redis-server`; default: found on PATH). */
  redisServer: string | null;
  /** Scenarios to run (`--only a,b`; default all). */
  only: string[] | null;
  /** Scenarios not to run (`--skip a,b`; default none): a run split in parts, as CI's smoke run is. */
  skip: string[];
  /** Attacks of the hostile scenario to run (`--attacks a,b`; default all). */
  attacks: string[] | null;
  /** Requests of the hostile `grants-memo-60kb-variables` attack (`--memo-requests`; default 5120, quick 300). */
  memoRequests: number;
  /** Scenario whose server process runs with `--cpu-prof` (`--profile NAME`; runs only that scenario). */
  profile: string | null;
  /** Extra environment of every gateway process (`--gateway-env NAME=VALUE`, repeatable). */
  gatewayEnv: Record<string, string>;
  /** Project folder whose `dist/src/main.js` is the gateway (`--gateway-root DIR`; default this project). */
  gatewayRoot: string | null;
  /** The peer's folder (`--peer-root DIR`; default `../shared/peer` beside the project). */
  peerRoot: string | null;
  /** First of consecutive fixed ports instead of free ephemeral ones (`--base-port N`). */
  basePort: number | null;
  /** Where the summary JSON goes (`--out FILE`). */
  out: string | null;
  /** `--help`. */
  help: boolean;
}

/** What the parser needs to know about the registered scenarios. */
export interface ScenarioNames {
  /** Every scenario, in the order the runner runs them. */
  all: readonly string[];
  /** Those that `--profile` cannot profile. */
  notProfilable: readonly string[];
}

/** Usage text for `--help` and argument errors. */
export function usage(names: ScenarioNames): string {
  return `Usage: npm run bench -- [flags]

  --latency MS          added latency per simulated upstream request (default 20)
  --quick               short run for CI: 2 s per scenario, 50 keys, 10 replica keys, the rate-limited scenarios at 10 per 6 s (about 6 minutes)
  --duration S          measured seconds per scenario (default 10, --quick 2)
  --warmup S            untimed warm-up seconds before each measurement (default 2, --quick 0.5)
  --keys N              distinct keys of the many-keys scenario (default 500, --quick 50)
  --fill-concurrency N  keys many-keys fills at once before measuring, and keys the
                        replicas scenarios view at once (default 5)
  --replica-keys N      distinct keys of the replicas scenarios (default 50, --quick 10)
  --scrape-keys N       keys metrics-keys makes known before timing /metrics (default
                        10000, --quick 2000)
  --redis-server PATH   redis-server binary for replicas-redis and metrics-keys (default:
                        redis-server on PATH; when missing, the Redis parts are skipped)
  --only A,B            run only these scenarios (${names.all.join(', ')})
  --skip A,B            run every scenario (or every one of --only) but these
  --attacks A,B         run only these attacks of the hostile scenario (names as in its results)
  --memo-requests N     requests of the hostile grants-memo-60kb-variables attack (default
                        5120, --quick 300)
  --profile NAME        run only scenario NAME, its server with --cpu-prof; writes
                        bench/results/NAME.cpuprofile and prints the hottest functions
  --gateway-env K=V     extra environment for every gateway process (repeatable)
  --gateway-root DIR    use DIR/dist/src/main.js as the gateway (before/after comparisons)
  --peer-root DIR       the peer (GraphQL Mesh on Hive Gateway) of the peer scenario (default
                        ../shared/peer; without its packages a full run installs a copy)
  --base-port N         use ports N, N+1, ... (must be free) instead of free ephemeral ports
  --out FILE            summary JSON path (default bench/results/latest.json, or
                        bench/results/partial.json with --only/--profile)
  --help                this text`;
}

const FLAGS = {
  latency: { type: 'string' },
  quick: { type: 'boolean' },
  duration: { type: 'string' },
  warmup: { type: 'string' },
  keys: { type: 'string' },
  'fill-concurrency': { type: 'string' },
  'replica-keys': { type: 'string' },
  'scrape-keys': { type: 'string' },
  'redis-server': { type: 'string' },
  only: { type: 'string' },
  skip: { type: 'string' },
  attacks: { type: 'string' },
  'memo-requests': { type: 'string' },
  profile: { type: 'string' },
  'gateway-env': { type: 'string', multiple: true },
  'gateway-root': { type: 'string' },
  'peer-root': { type: 'string' },
  'base-port': { type: 'string' },
  out: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function number(flag: string, raw: string | undefined, fallback: number, min: number, integer: boolean): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
    throw new Error(`--${flag} must be ${integer ? 'an integer' : 'a number'} >= ${min}, got '${raw}'`);
  }
  return value;
}

/**
 * Parses the flags (without `node` and the script), checking scenario names against `names`.
 *
 * @throws Error with a readable message on unknown flags or bad values.
 */
export function parseBenchArgs(argv: readonly string[], names: ScenarioNames): BenchArgs {
  const { values } = parseArgs({ args: [...argv], options: FLAGS, strict: true, allowPositionals: false });
  const known = (name: string): boolean => names.all.includes(name);
  const list = (text: string): string[] =>
    text
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '');
  const only = values.only === undefined ? null : list(values.only);
  const skip = values.skip === undefined ? [] : list(values.skip);
  for (const [flag, given] of [
    ['--only', only ?? []],
    ['--skip', skip],
  ] as const)
    for (const name of given)
      if (!known(name)) throw new Error(`Unknown scenario '${name}' in ${flag} (known: ${names.all.join(', ')})`);
  const profile = values.profile ?? null;
  if (profile !== null && !known(profile))
    throw new Error(`Unknown scenario '${profile}' for --profile (known: ${names.all.join(', ')})`);
  if (profile !== null && names.notProfilable.includes(profile))
    throw new Error(
      `--profile ${profile} is not supported: it runs several gateway processes (profile one of the single-gateway scenarios)`,
    );
  const gatewayEnv: Record<string, string> = {};
  for (const pair of values['gateway-env'] ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error(`--gateway-env needs NAME=VALUE, got '${pair}'`);
    gatewayEnv[pair.slice(0, at)] = pair.slice(at + 1);
  }
  const quick = values.quick === true;
  const basePort = values['base-port'] === undefined ? null : number('base-port', values['base-port'], 0, 1, true);
  const redisServer = values['redis-server'];
  const parsed: BenchArgs = {
    latencyMs: number('latency', values.latency, 20, 0, true),
    quick,
    durationSeconds: number('duration', values.duration, quick ? 2 : 10, 0.5, false),
    warmupSeconds: number('warmup', values.warmup, quick ? 0.5 : 2, 0, false),
    manyKeys: number('keys', values.keys, quick ? 50 : 500, 1, true),
    fillConcurrency: number('fill-concurrency', values['fill-concurrency'], 5, 1, true),
    replicaKeys: number('replica-keys', values['replica-keys'], quick ? 10 : 50, 1, true),
    scrapeKeys: number('scrape-keys', values['scrape-keys'], quick ? 2000 : 10_000, 1, true),
    redisServer: redisServer === undefined || redisServer.trim() === '' ? null : redisServer,
    only,
    skip,
    attacks:
      values.attacks === undefined
        ? null
        : values.attacks
            .split(',')
            .map((name) => name.trim())
            .filter((name) => name !== ''),
    memoRequests: number('memo-requests', values['memo-requests'], quick ? 300 : 5120, 1, true),
    profile,
    gatewayEnv,
    gatewayRoot: values['gateway-root'] ?? null,
    peerRoot: values['peer-root'] ?? null,
    basePort,
    out: values.out ?? null,
    help: values.help === true,
  };
  return parsed;
}
