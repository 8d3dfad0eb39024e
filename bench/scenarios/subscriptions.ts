import { createClient } from 'graphql-ws';
import type { Client } from 'graphql-ws';
import WebSocket from 'ws';
import type { Scenario } from '../lib/bench';
import { log, round } from '../lib/bench';
import { simRequests, sleep } from '../lib/http';
import { RssSampler } from '../lib/rss';

/** The shop of the simulator's character 1 (every `sim-key-N` reads it). */
const SHOP = '64f1c2a9e4b0a1d2c3f40001';
const COUNTER_ROUTE = 'GET /factory/counter/{id}';
const SUBSCRIPTION = `subscription($id: ID!) { counterChanged(factoryId: $id) { changes { item amountAfter } } }`;
/** Subscriptions per key, all on one WebSocket (SUBSCRIPTIONS_MAX_PER_CONNECTION is 10). */
const PER_KEY = 10;

function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? null;
}

async function activeSubscriptions(origin: string): Promise<number> {
  const text = await (await fetch(`${origin}/metrics`)).text();
  let sum = 0;
  for (const match of text.matchAll(/^statev_subscriptions_active\{[^}]*\} (\d+)/gm)) sum += Number(match[1]);
  return sum;
}

async function change(simOrigin: string, amount: number): Promise<void> {
  const response = await fetch(`${simOrigin}/__sim/change`, {
    method: 'POST',
    body: JSON.stringify({ kind: 'counter', factoryId: SHOP, item: 'Wasser', amount }),
  });
  if (!response.ok) throw new Error(`POST /__sim/change answered ${response.status}: ${await response.text()}`);
}

/**
 * subscriptions: 1,000 `counterChanged` subscribers over 100 keys (10 each on one
 * WebSocket per key; `--quick`: 200 over 20) on a gateway whose counter interval is
 * 2 s (CACHE_TTL_STOCK_SECONDS=2, no per-key budget). The simulator's counter changes
 * every 3 s with a new amount. Reports upstream counter requests per minute against
 * keys × resources ÷ interval (target ≤ 1.05 ×), the latency from each change to each
 * delivered event (p50, p99) against the interval, and the gateway's peak RSS.
 */
export const subscriptions: Scenario = {
  name: 'subscriptions',
  async run(bench) {
    const keys = bench.args.quick ? 20 : 100;
    const intervalSeconds = 2;
    const windowSeconds = bench.args.quick ? 8 : 30;
    const gateway = await bench.startGateway('gateway-subscriptions', {
      CACHE_TTL_STOCK_SECONDS: String(intervalSeconds),
      UPSTREAM_RATE_LIMIT: 'off',
    });
    const clients: Client[] = [];
    const changedAt = new Map<number, number>();
    const latencies: number[] = [];
    let events = 0;
    let errors = 0;
    try {
      const rss = new RssSampler(gateway.pid);
      for (let k = 0; k < keys; k += 1) {
        const client = createClient({
          url: `${gateway.origin.replace(/^http/, 'ws')}/graphql`,
          webSocketImpl: WebSocket,
          connectionParams: { authorization: `Bearer sim-key-${k + 1}` },
          retryAttempts: 0,
        });
        clients.push(client);
        for (let s = 0; s < PER_KEY; s += 1) {
          client.subscribe(
            { query: SUBSCRIPTION, variables: { id: SHOP } },
            {
              next(result) {
                const receivedAt = Date.now();
                if (result.errors) {
                  errors += 1;
                  return;
                }
                const data = result.data as
                  { counterChanged?: { changes: Array<{ item: string; amountAfter: number | null }> } } | undefined;
                const amount = data?.counterChanged?.changes.find((entry) => entry.item === 'Wasser')?.amountAfter;
                const at = amount === null || amount === undefined ? undefined : changedAt.get(amount);
                events += 1;
                if (at !== undefined) latencies.push(receivedAt - at);
              },
              error: () => (errors += 1),
              complete: () => undefined,
            },
          );
        }
      }
      const wanted = keys * PER_KEY;
      for (let i = 0; i < 600 && (await activeSubscriptions(gateway.origin)) < wanted; i += 1) await sleep(100);
      const active = await activeSubscriptions(gateway.origin);
      log(`subscriptions: ${active} of ${wanted} subscribed over ${keys} keys`);

      const windowStart = Date.now();
      let amount = 1000;
      while (Date.now() - windowStart < windowSeconds * 1000) {
        amount += 1;
        changedAt.set(amount, Date.now());
        await change(bench.sim.origin, amount);
        await sleep(intervalSeconds * 1500);
      }
      const windowEnd = Date.now();
      await sleep(intervalSeconds * 1000 + 500); // the last change's events
      const peakRssMb = rss.stop();

      const polls = (await simRequests(bench.sim.origin)).requests.filter(
        (r) => r.route === COUNTER_ROUTE && r.at >= windowStart && r.at < windowEnd,
      ).length;
      const minutes = (windowEnd - windowStart) / 60_000;
      const perMinute = polls / minutes;
      const expected = (keys * 1 * 60) / intervalSeconds;
      latencies.sort((a, b) => a - b);
      const p50 = percentile(latencies, 50);
      const p99 = percentile(latencies, 99);
      const ratio = round(perMinute / expected, 3);
      // Each key polls once per interval, at a phase of its own: a window holds as many of a
      // key's polls as whole intervals fit in it, or one more. The ratio's target (1.05) is judged
      // in the summary; `ok` fails only on more polls than that (8 s in --quick: 4 or 5 a key).
      const mostPolls = keys * (Math.floor(windowSeconds / intervalSeconds) + 1);
      const result = {
        ok: active === wanted && polls <= mostPolls && errors === 0,
        description: `${wanted} counterChanged subscribers over ${keys} keys (${PER_KEY} per key on one WebSocket), interval ${intervalSeconds} s, a counter change every ${intervalSeconds * 1.5} s for ${windowSeconds} s`,
        subscribers: active,
        keys,
        resources: 1,
        intervalSeconds,
        upstreamRequestsPerMinute: round(perMinute, 1),
        expectedPerMinute: expected,
        upstreamRatio: ratio,
        upstreamRatioTarget: 1.05,
        changes: changedAt.size,
        events,
        errors,
        eventLatencyMs: { p50, p99, intervalMs: intervalSeconds * 1000 },
        latencyToInterval: {
          p50: p50 === null ? null : round(p50 / (intervalSeconds * 1000), 2),
          p99: p99 === null ? null : round(p99 / (intervalSeconds * 1000), 2),
        },
        peakRssMb,
      };
      log(
        `subscriptions: ${result.upstreamRequestsPerMinute} upstream/min vs ${expected} (${ratio} x), latency p50 ${p50} ms p99 ${p99} ms (interval ${intervalSeconds * 1000} ms), ${events} events, peak RSS ${peakRssMb} MB`,
      );
      bench.record('subscriptions', result);
    } finally {
      await Promise.all(clients.map((client) => client.dispose()));
      await bench.stopServer(gateway);
    }
  },
};
