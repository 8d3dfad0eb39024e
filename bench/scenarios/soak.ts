import type { Scenario } from '../lib/bench';
import { log, PREMIUM_KEY, round } from '../lib/bench';
import { graphqlHeaders } from '../lib/http';
import { summarizeLatencies } from '../lib/load';
import { Scraper } from '../lib/responsiveness';
import { currentRssMb } from '../lib/rss';

/** Keys the soak rotates through (generated simulator keys, each a premium key of character 1): enough that every scrape reads hundreds of keys' budget state. */
const SOAK_KEYS = Array.from({ length: 200 }, (_, index) => `sim-key-${9000 + index}`);

/** A fragment fan-out document: `levels` fragments each spreading the next four times (answered at once). */
export function fanOut(levels: number): string {
  const parts = ['query SoakFanOut { ...S0 }'];
  for (let i = 0; i < levels - 1; i += 1)
    parts.push(`fragment S${i} on Query { ...S${i + 1} ...S${i + 1} ...S${i + 1} ...S${i + 1} }`);
  parts.push(`fragment S${levels - 1} on Query { __typename }`);
  return parts.join('\n');
}

/** Distinct document texts the soak cycles through: more than fit some caches at the soak's bounds, seen within the first minute. */
const DISTINCT_DOCUMENTS = 3000;

/**
 * The soak gateway's cache bounds: smaller than the defaults, so that every cache is full
 * (and evicting) within the first half of the run, and the last half shows leaks only,
 * not caches still filling up to their bounds.
 */
const SOAK_SETTINGS = {
  CACHE_MAX_BYTES: String(8 * 1024 * 1024),
  RESPONSE_CACHE_MAX_BYTES: String(4 * 1024 * 1024),
  // The per-key budget on (as by default), so every scrape walks each key's budget state, but
  // high enough that the soak's mix never waits for it (the simulator has no limit here).
  UPSTREAM_RATE_LIMIT: '1000/60',
};

/** Unused variables of about 50 KB (under the default MAX_VARIABLES_BYTES). */
const BIG_UNUSED = { unused: 'x'.repeat(50_000) };

/** The soak's mix: the n-th request of the run. Distinct documents and variables keep every per-document cache busy. */
function request(bench: { dashboard: string; small: string }, n: number): { body: string; key: string | null } {
  const key = SOAK_KEYS[n % SOAK_KEYS.length] ?? PREMIUM_KEY;
  switch (n % 6) {
    case 0:
      return { body: bench.dashboard, key };
    case 1:
      // One of DISTINCT_DOCUMENTS texts (they differ by an alias): every document cache fills and evicts.
      return {
        body: JSON.stringify({ query: `query Distinct { d${n % DISTINCT_DOCUMENTS}: factories { id name } }` }),
        key,
      };
    case 2:
      return {
        body: JSON.stringify({
          query: `query Unused { factories { id } } # ${n % DISTINCT_DOCUMENTS}`,
          variables: BIG_UNUSED,
        }),
        key,
      };
    case 3:
      return { body: JSON.stringify({ query: fanOut(16) }), key: null };
    case 4:
      return {
        body: JSON.stringify({
          query: `query Paged($skip: Int!) { factories { bankAccounts { transactions(limit: 5, skip: $skip) { totalTransactions } } } }`,
          variables: { skip: n % 201 },
        }),
        key,
      };
    default:
      return { body: bench.small, key };
  }
}

/** Least-squares slope of (seconds, MB) samples, in MB per minute. */
function slopePerMinute(samples: readonly { seconds: number; rssMb: number }[]): number | null {
  if (samples.length < 2) return null;
  const meanX = samples.reduce((sum, s) => sum + s.seconds, 0) / samples.length;
  const meanY = samples.reduce((sum, s) => sum + s.rssMb, 0) / samples.length;
  let num = 0;
  let den = 0;
  for (const s of samples) {
    num += (s.seconds - meanX) * (s.rssMb - meanY);
    den += (s.seconds - meanX) ** 2;
  }
  return den === 0 ? null : (num / den) * 60;
}

/**
 * soak: a fresh gateway (caches bounded small, see {@link SOAK_SETTINGS}) under a steady
 * mixed load for minutes (quick: 8 s), with 3,000 distinct documents, large unused variables, fragment fan-outs, paging variables and 200 keys,
 * scraped every second at `/metrics` as Prometheus would. It reports the RSS slope over
 * the last half of the run (target within ±1 MB/min: memory flat once the caches are
 * full), the error rate (target 0: an error is a 5xx, a failed connection or
 * INTERNAL_SERVER_ERROR), and the scrapes' latency (p99 target ≤ 100 ms; a failed scrape
 * is an error).
 */
export const soak: Scenario = {
  name: 'soak',
  async run(bench) {
    const seconds = bench.args.quick ? 8 : Math.max(180, bench.args.durationSeconds * 18);
    const gateway = await bench.startGateway('gateway-soak', SOAK_SETTINGS);
    try {
      const url = `${gateway.origin}/graphql`;
      const started = performance.now();
      const deadline = started + seconds * 1000;
      const samples: { seconds: number; rssMb: number }[] = [];
      const sampler = setInterval(() => {
        const rss = currentRssMb(gateway.pid);
        if (rss !== null) samples.push({ seconds: (performance.now() - started) / 1000, rssMb: rss });
      }, 500);
      const scraper = new Scraper(gateway.origin, 1000);
      // The operations' own latency: what a scrape waiting in the same queue is compared with.
      const latencies: number[] = [];
      let sent = 0;
      let errors = 0;
      const firstErrors: string[] = [];
      const worker = async (): Promise<void> => {
        while (performance.now() < deadline) {
          const n = sent;
          sent += 1;
          const { body, key } = request(bench, n);
          try {
            const sentAt = performance.now();
            const response = await fetch(url, {
              method: 'POST',
              headers: graphqlHeaders(key, false),
              body,
              signal: AbortSignal.timeout(30_000),
            });
            const text = await response.text();
            latencies.push(performance.now() - sentAt);
            if (response.status >= 500 || text.includes('"INTERNAL_SERVER_ERROR"'))
              throw new Error(`HTTP ${response.status} ${text.slice(0, 200)}`);
          } catch (error) {
            errors += 1;
            if (firstErrors.length < 5) firstErrors.push(error instanceof Error ? error.message : String(error));
          }
        }
      };
      await Promise.all(Array.from({ length: 16 }, () => worker()));
      clearInterval(sampler);
      const scrapes = await scraper.stop();
      if (scrapes.firstFailure !== null && firstErrors.length < 5) firstErrors.push(`scrape: ${scrapes.firstFailure}`);
      errors += scrapes.failures;
      const lastHalf = samples.filter((sample) => sample.seconds >= seconds / 2);
      const slope = slopePerMinute(lastHalf);
      const errorRate = sent === 0 ? 0 : errors / sent;
      const result = {
        ok: errors === 0,
        description: `mixed load for ${seconds} s, 16 connections, ${SOAK_KEYS.length} keys, CACHE_MAX_BYTES 8 MiB, RESPONSE_CACHE_MAX_BYTES 4 MiB, UPSTREAM_RATE_LIMIT 1000/60: dashboard, ${DISTINCT_DOCUMENTS} distinct documents, 50 KB unused variables, 16-level fragment fan-outs, paging variables; GET /metrics every second`,
        seconds,
        requests: sent,
        requestsPerSecond: round(sent / seconds, 1),
        errors,
        errorRate: round(errorRate, 6),
        firstErrors,
        rssStartMb: samples[0] ? round(samples[0].rssMb, 1) : null,
        rssEndMb: samples.at(-1) ? round(samples.at(-1)?.rssMb ?? 0, 1) : null,
        rssSlopeLastHalfMbPerMinute: slope === null ? null : round(slope, 2),
        scrapes: scrapes.scrapes,
        scrapeFailures: scrapes.failures,
        scrapeLatencyMs: scrapes.latencyMs,
        // A /healthz sent with each scrape: the queue any request waits in under this load.
        healthzBesideScrapesMs: scrapes.healthzBesideMs,
        // How much longer each scrape took than the /healthz sent with it: the scrape's own cost.
        scrapeBeyondHealthzMs: scrapes.beyondHealthzMs,
        operationLatencyMs: latencies.length === 0 ? null : summarizeLatencies(Float64Array.from(latencies)),
        targets: {
          rssSlopeWithin1MbPerMinute: slope === null ? null : Math.abs(slope) <= 1,
          zeroErrors: errors === 0,
          scrapeP99Under100Ms: scrapes.latencyMs === null ? null : scrapes.latencyMs.p99 < 100,
        },
      };
      log(
        `soak: ${sent} requests, ${errors} errors, RSS slope over the last half ${result.rssSlopeLastHalfMbPerMinute} MB/min, ` +
          `${scrapes.scrapes} scrapes of /metrics (p99 ${scrapes.latencyMs?.p99 ?? '-'} ms, max ${scrapes.latencyMs?.max ?? '-'} ms; /healthz beside them p99 ${scrapes.healthzBesideMs?.p99 ?? '-'} ms, scrape beyond it p99 ${scrapes.beyondHealthzMs?.p99 ?? '-'} ms)`,
      );
      bench.record('soak', result);
    } finally {
      await bench.stopServer(gateway);
    }
  },
};
