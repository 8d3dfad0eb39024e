import type { Bench, Scenario } from '../lib/bench';
import { log, round } from '../lib/bench';
import { graphqlHeaders, postGraphQL, simRequests, simReset } from '../lib/http';
import { measureLoad } from '../lib/measure';
import type { LoadScenarioResult } from '../lib/measure';
import type { Service } from '../lib/processes';
import { currentRssMb } from '../lib/rss';

/** Keys of the many-keys scenario. */
const manyKey = (index: number): string => `sim-key-${index + 1}`;

/**
 * Fills the caches with each key's first (cold) operation, `--fill-concurrency`
 * (default 5) keys at a time, before the measurement. A cold dashboard keeps up to
 * UPSTREAM_CONCURRENCY_PER_KEY (6) upstream requests in flight: 5 keys x 6 fit in the
 * gateway's upstream connections. (Many more cold keys at once wait longer than
 * UPSTREAM_PATIENCE_MS (then UPSTREAM_QUEUE_TIMEOUT_MS) for their slots and fail with RATE_LIMITED: see bench/README.md.)
 */
async function fillKeys(
  bench: Bench,
  gateway: Service,
  keys: readonly string[],
): Promise<NonNullable<LoadScenarioResult['fill']>> {
  await bench.settle([gateway]);
  await simReset(bench.sim.origin);
  const started = performance.now();
  let next = 0;
  const failures: string[] = [];
  const worker = async (): Promise<void> => {
    while (next < keys.length) {
      const key = keys[next] ?? '';
      next += 1;
      const reply = await postGraphQL(`${gateway.origin}/graphql`, bench.dashboard, graphqlHeaders(key, false), 60_000);
      if (reply.status !== 200 || reply.json.errors !== undefined)
        failures.push(`${key}: HTTP ${reply.status} ${reply.text.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(bench.args.fillConcurrency, keys.length) }, () => worker()));
  const seconds = (performance.now() - started) / 1000;
  if (failures.length > 0)
    throw new Error(`many-keys: ${failures.length} of ${keys.length} first operations failed, e.g. ${failures[0]}`);
  await bench.settle([gateway]);
  const upstreamRequests = (await simRequests(bench.sim.origin)).count;
  const rssNow = currentRssMb(gateway.pid);
  log(`many-keys: filled ${keys.length} keys in ${seconds.toFixed(1)} s (${upstreamRequests} upstream requests)`);
  return {
    keys: keys.length,
    seconds: round(seconds, 1),
    operationsPerSecond: round(keys.length / seconds, 1),
    upstreamRequests,
    upstreamPerKey: round(upstreamRequests / keys.length, 2),
    rssAfterFillMb: rssNow === null ? null : round(rssNow, 1),
  };
}

/** many-keys: `--keys` distinct keys rotating per request on a fresh gateway, whose peak RSS is its own. */
export const manyKeys: Scenario = {
  name: 'many-keys',
  async run(bench) {
    const gateway = await bench.startGateway('gateway-many-keys');
    try {
      const keys = Array.from({ length: bench.args.manyKeys }, (_, index) => manyKey(index));
      await measureLoad(bench, {
        server: gateway,
        serverLabel: 'gateway (defaults, fresh process)',
        gateway: true,
        name: 'many-keys',
        description: `dashboard, ${keys.length} distinct keys rotating per request, 50 connections (after each key's first, cold operation)`,
        query: 'dashboard',
        connections: 50,
        noCache: false,
        keys: `${manyKey(0)}..${manyKey(keys.length - 1)}, rotating`,
        rotateKeys: keys,
        prepare: () => fillKeys(bench, gateway, keys),
      });
    } finally {
      await bench.stopServer(gateway);
    }
  },
};
