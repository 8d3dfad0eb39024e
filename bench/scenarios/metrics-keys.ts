/**
 * metrics-keys: how long `GET /metrics` takes once a gateway knows many keys, on every
 * combination of the per-key budget (off, or the default 10/60) and Redis (off, or a
 * shared one). Each scrape reads every key's budget state, so its cost grows with the keys
 * the process has seen; the target is an answer within 100 ms with 10,000 keys.
 */
import { randomBytes } from 'node:crypto';
import type { Bench, Scenario } from '../lib/bench';
import { log, round } from '../lib/bench';
import { graphqlHeaders, postGraphQL, sleep } from '../lib/http';
import type { LoadResult } from '../lib/load';
import { summarizeLatencies } from '../lib/load';
import { HOST, stopService } from '../lib/processes';
import type { Service } from '../lib/processes';
import { findRedisServer, startRedis } from '../lib/redis';
import { gaugeOf, scrapeMetrics, Scraper } from '../lib/responsiveness';

/** The keys made known: fresh generated keys no other scenario uses. */
const key = (index: number): string => `sim-key-${500_001 + index}`;
/** Operations in flight while the keys are made known. */
const FILL_CONNECTIONS = 32;
/** Scrapes timed once the keys are known, one after another. */
const IDLE_SCRAPES = 30;
const QUERY = JSON.stringify({ query: '{ factories { id } }' });

/** One setting combination. */
interface Combination {
  name: string;
  budget: boolean;
  redis: boolean;
}

const COMBINATIONS: readonly Combination[] = [
  { name: 'budget-off', budget: false, redis: false },
  { name: 'budget-on', budget: true, redis: false },
  { name: 'budget-off-redis', budget: false, redis: true },
  { name: 'budget-on-redis', budget: true, redis: true },
];

/** What one combination measured. */
interface CombinationResult {
  name: string;
  settings: Record<string, string>;
  keys: number;
  fillSeconds: number;
  fillFailures: number;
  firstFillFailure: string | null;
  /** Scrapes every second while the keys were made known. */
  duringFill: {
    scrapes: number;
    failures: number;
    latencyMs: LoadResult['latencyMs'] | null;
    healthzBesideMs: LoadResult['latencyMs'] | null;
  };
  /** {@link IDLE_SCRAPES} scrapes once every key was known. */
  idle: {
    scrapes: number;
    failures: number;
    latencyMs: LoadResult['latencyMs'] | null;
    healthzAfterEachMs: LoadResult['latencyMs'] | null;
    bytes: number;
  };
  /** `statev_upstream_budget_window_requests` after the fill (each key's request is in its window when the budget is on). */
  budgetWindowRequests: number | null;
}

/** Makes `keys` keys known (one operation each), scraping every second meanwhile; then times idle scrapes. */
async function measure(
  bench: Bench,
  gateway: Service,
  combination: Combination,
  settings: Record<string, string>,
  keys: number,
): Promise<CombinationResult> {
  const url = `${gateway.origin}/graphql`;
  const scraper = new Scraper(gateway.origin, 1000);
  const started = performance.now();
  let next = 0;
  let failures = 0;
  let firstFailure: string | null = null;
  const worker = async (): Promise<void> => {
    while (next < keys) {
      const index = next;
      next += 1;
      try {
        const reply = await postGraphQL(url, QUERY, graphqlHeaders(key(index), false), 60_000);
        if (reply.status !== 200 || reply.json.errors !== undefined)
          throw new Error(`HTTP ${reply.status} ${reply.text.slice(0, 200)}`);
      } catch (error) {
        failures += 1;
        firstFailure ??= error instanceof Error ? error.message : String(error);
      }
    }
  };
  await Promise.all(Array.from({ length: FILL_CONNECTIONS }, () => worker()));
  const fillSeconds = (performance.now() - started) / 1000;
  const duringFill = await scraper.stop();
  await bench.settle([gateway]);
  const latencies: number[] = [];
  const healthzLatencies: number[] = [];
  let idleFailures = 0;
  let bytes = 0;
  let windowRequests: number | null = null;
  for (let i = 0; i < IDLE_SCRAPES; i += 1) {
    try {
      const scrape = await scrapeMetrics(gateway.origin);
      if (scrape.status !== 200) throw new Error(`HTTP ${scrape.status}`);
      latencies.push(scrape.ms);
      bytes = scrape.text.length;
      windowRequests = gaugeOf(scrape.text, 'statev_upstream_budget_window_requests');
      // A /healthz right after: what any request waits on this machine now, for comparison.
      const healthzStarted = performance.now();
      const health = await fetch(`${gateway.origin}/healthz`, { signal: AbortSignal.timeout(10_000) });
      await health.arrayBuffer();
      healthzLatencies.push(performance.now() - healthzStarted);
    } catch {
      idleFailures += 1;
    }
    await sleep(100);
  }
  const result: CombinationResult = {
    name: combination.name,
    settings,
    keys,
    fillSeconds: round(fillSeconds, 1),
    fillFailures: failures,
    firstFillFailure: firstFailure,
    duringFill: {
      scrapes: duringFill.scrapes,
      failures: duringFill.failures,
      latencyMs: duringFill.latencyMs,
      healthzBesideMs: duringFill.healthzBesideMs,
    },
    idle: {
      scrapes: latencies.length,
      failures: idleFailures,
      latencyMs: latencies.length === 0 ? null : summarizeLatencies(Float64Array.from(latencies)),
      healthzAfterEachMs:
        healthzLatencies.length === 0 ? null : summarizeLatencies(Float64Array.from(healthzLatencies)),
      bytes,
    },
    budgetWindowRequests: windowRequests,
  };
  log(
    `metrics-keys ${combination.name}: ${keys} keys in ${result.fillSeconds} s (${failures} failed); /metrics idle p50 ${result.idle.latencyMs?.p50 ?? '-'} ms, ` +
      `p99 ${result.idle.latencyMs?.p99 ?? '-'} ms, max ${result.idle.latencyMs?.max ?? '-'} ms (/healthz after each p50 ${result.idle.healthzAfterEachMs?.p50 ?? '-'}, p99 ${result.idle.healthzAfterEachMs?.p99 ?? '-'} ms); ` +
      `during the fill p99 ${duringFill.latencyMs?.p99 ?? '-'} ms (/healthz beside p99 ${duringFill.healthzBesideMs?.p99 ?? '-'} ms)`,
  );
  return result;
}

/**
 * metrics-keys: for each combination of the budget (off; the default 10/60) and Redis
 * (off; a shared `redis-server`), a fresh gateway, `--scrape-keys` keys (default 10,000)
 * made known by one operation each (32 at a time, `/metrics` scraped every second
 * meanwhile), then 30 scrapes timed one after another. Target: every combination's idle
 * p99 under 100 ms. Without a `redis-server` the Redis combinations are skipped.
 */
export const metricsKeys: Scenario = {
  name: 'metrics-keys',
  profilable: false,
  async run(bench) {
    const keys = bench.args.scrapeKeys;
    const binary = findRedisServer(bench.args.redisServer);
    let redis: Service | null = null;
    const results: CombinationResult[] = [];
    const skipped: string[] = [];
    try {
      for (const combination of COMBINATIONS) {
        if (combination.redis && binary === null) {
          skipped.push(`${combination.name}: no redis-server`);
          continue;
        }
        if (combination.redis && redis === null && binary !== null)
          redis = await startRedis(binary, await bench.allocatePort('redis-metrics-keys'));
        const settings: Record<string, string> = {
          UPSTREAM_RATE_LIMIT: combination.budget ? '10/60' : 'off',
          ...(combination.redis && redis
            ? {
                REDIS_URL: `redis://${HOST}:${redis.port}`,
                REDIS_PREFIX: `bench-${combination.name}:`,
                KEY_HASH_SECRET: randomBytes(16).toString('hex'),
              }
            : {}),
        };
        const gateway = await bench.startGateway(`gateway-metrics-keys-${combination.name}`, settings, {
          pinned: true,
          omit: combination.redis ? [] : ['REDIS_URL', 'REDIS_PREFIX'],
        });
        try {
          const { KEY_HASH_SECRET: _secret, ...shown } = settings;
          results.push(await measure(bench, gateway, combination, shown, keys));
        } finally {
          await bench.stopServer(gateway);
        }
      }
    } finally {
      if (redis) await stopService(redis);
    }
    const p99s = results.map((result) => result.idle.latencyMs?.p99 ?? Number.POSITIVE_INFINITY);
    const worstP99Ms = p99s.length === 0 ? null : round(Math.max(...p99s));
    const failures = results.reduce(
      (sum, result) => sum + result.fillFailures + result.duringFill.failures + result.idle.failures,
      0,
    );
    bench.record('metrics-keys', {
      ok: failures === 0 && results.length > 0,
      description: `GET /metrics after ${keys} keys made one operation each, on a fresh gateway per combination of UPSTREAM_RATE_LIMIT (off, 10/60) and Redis (off, on)`,
      keys,
      combinations: results,
      skipped,
      worstIdleP99Ms: worstP99Ms,
      targets: { idleP99Under100Ms: worstP99Ms === null ? null : worstP99Ms < 100 },
    });
  },
};
