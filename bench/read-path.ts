/**
 * The economy's read path alone, in one process: the CPU time of one dashboard's upstream
 * reads (86 fresh cached answers, as `bench/queries/dashboard.graphql` reads them: 80 option
 * slots of 4 companies and 6 counters) through `fetchMapped`, a session per operation, with
 * the gateway's metrics events (`GatewayMetrics.economyEvents`) and refresh-ahead on. No
 * HTTP, no execution: what the per-read code costs, with less noise than a load test on a
 * shared machine.
 *
 * Usage: `node dist/bench/read-path.js [--against DIR] [--rounds N] [--operations N]`
 * (after `npm run build && npx tsc -p bench/tsconfig.json`). `--against DIR` runs the same
 * reads on the build in `DIR/dist` too (a checkout of another commit, built), rounds
 * alternated in the same process. Prints µs of CPU (user + system) per operation, the median
 * and the least over the rounds, for each build.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Endpoint, PathParams } from '../src/upstream/endpoints';
import type { UpstreamCache } from '../src/economy/cache/upstream-cache';

type EconomyModule = typeof import('../src/economy/upstream-economy');
type SessionModule = typeof import('../src/economy/upstream-session');
type MetricsModule = typeof import('../src/observability/metrics');
type EndpointsModule = typeof import('../src/upstream/endpoints');
type FetchMappedModule = typeof import('../src/domains/shared/fetch-mapped');
type ConfigModule = typeof import('../src/config/gateway-config');

/** One operation's reads on the build whose compiled `src/` is in `srcRoot`. */
function operationOf(srcRoot: string): () => void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the build is chosen at run time (--against)
  const load = <T>(file: string): T => require(path.join(srcRoot, file)) as T;
  const { UpstreamEconomy } = load<EconomyModule>('economy/upstream-economy.js');
  const { UpstreamSession } = load<SessionModule>('economy/upstream-session.js');
  const { GatewayMetrics } = load<MetricsModule>('observability/metrics.js');
  const { ENDPOINTS, buildPath } = load<EndpointsModule>('upstream/endpoints.js');
  const { fetchMapped } = load<FetchMappedModule>('domains/shared/fetch-mapped.js');
  const { DEFAULT_CONFIG } = load<ConfigModule>('config/gateway-config.js');
  const metrics = new GatewayMetrics({ defaultMetrics: false });
  const hour = 3600;
  const economy = new UpstreamEconomy(
    {} as never, // never sends: every read is a fresh cached answer
    {
      cacheEnabled: true,
      cacheMaxBytes: DEFAULT_CONFIG.cacheMaxBytes,
      ttlSeconds: { lists: hour, details: hour, options: hour, bankAccounts: hour, stock: hour, activity: hour },
      staleMaxAgeSeconds: hour,
      defaultBackoffSeconds: 60,
      retryDelayMs: 0,
      rateLimit: null,
      concurrencyPerKey: 6,
      patienceMs: 0,
      backgroundFill: false,
      refreshAhead: { share: 0.7, idleSeconds: 600, tickMs: 1e9 },
    },
    metrics.economyEvents(),
  );
  const keyId = '0123456789abcdef0123456789abcdef';
  // Ids as an answer's JSON gives them (each its own string, as in a decoded body).
  const ids = Array.from({ length: 6 }, (_, i) => JSON.parse(`"company-${i}-0123456789"`) as string);
  // Each read's parameters made anew, as a domain's fetch function makes them.
  const reads: Array<[Endpoint, () => PathParams]> = [];
  for (let company = 0; company < 4; company += 1)
    for (let slot = 1; slot <= 20; slot += 1)
      reads.push([ENDPOINTS.factoryOption, () => ({ id: ids[company] as string, slot })]);
  for (const id of ids) reads.push([ENDPOINTS.factoryCounter, () => ({ id })]);
  // The process cache itself (an UpstreamCache), filled as fetches would fill it.
  const cache = economy.persistable() as unknown as UpstreamCache;
  for (const [endpoint, params] of reads)
    cache.set(
      `${keyId}|${buildPath(endpoint, params())}`,
      { kind: 'body', body: { title: 'a', data: [1, 2, 3] }, storedAt: Date.now(), bytes: 0 },
      hour * 1000,
    );
  const map = (body: unknown): unknown => body;
  return () => {
    const session = new UpstreamSession(economy, 'bench-key', keyId);
    for (const [endpoint, params] of reads) {
      const value = fetchMapped(session, endpoint, params(), map);
      if (value instanceof Promise) throw new Error('read-path: a read was not a fresh cached answer');
    }
  };
}

function main(): void {
  const { values } = parseArgs({
    options: {
      against: { type: 'string' },
      rounds: { type: 'string', default: '24' },
      operations: { type: 'string', default: '2000' },
    },
  });
  const builds = [{ name: 'this build', srcRoot: path.join(__dirname, '..', 'src') }];
  if (values.against) builds.push({ name: values.against, srcRoot: path.resolve(values.against, 'dist', 'src') });
  const runs = builds.map((build) => ({
    ...build,
    operation: operationOf(build.srcRoot),
    perOperation: [] as number[],
  }));
  const rounds = Number(values.rounds);
  const operations = Number(values.operations);
  const warmRounds = 4;
  for (let round = 0; round < rounds + warmRounds; round += 1) {
    for (const run of round % 2 === 0 ? runs : [...runs].reverse()) {
      const start = process.cpuUsage();
      for (let i = 0; i < operations; i += 1) run.operation();
      const used = process.cpuUsage(start);
      if (round >= warmRounds) run.perOperation.push((used.user + used.system) / operations);
    }
  }
  for (const run of runs) {
    const sorted = [...run.perOperation].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)] ?? NaN;
    console.log(
      `${run.name}: ${median.toFixed(1)} µs per operation (median of ${sorted.length} rounds), least ${(sorted[0] ?? NaN).toFixed(1)} µs`,
    );
  }
}

main();
