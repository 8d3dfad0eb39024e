import type { Scenario } from '../lib/bench';
import { HOST, startService } from '../lib/processes';
import { join } from 'node:path';
import { CACHE_FILES, ROOT, log, round } from '../lib/bench';
import { graphqlHeaders, postGraphQL, simRequests, simReset, sleep } from '../lib/http';
import type { GraphQLReply } from '../lib/http';
import { DEFAULT_CONFIG, TTL_SETTINGS } from '../../src/config';

/** The steady-views scenario's key: fresh, used by no other scenario. */
const STEADY_KEY = 'sim-key-600001';
/** The simulator's 24/7 shop (docs/example.md). */
const SHOP_ID = '64f1c2a9e4b0a1d2c3f40001';
/** docs/example.md's company page. */
const COMPANY_PAGE = `query CompanyPage($id: ID!) {
  factory(id: $id) {
    name isOpen
    counter { items { item price amount } }
    inventory { totalWeight items { item amount } }
    sellOffers { item pricePerUnit availableAmount }
    vehicles { name numberPlate }
    options { slot title data lastUpdated }
  }
  buildings { label rooms { name rent occupied tenant { tenantName lastPayDate } } }
}`;
/** Views per minute (one every 200 ms). */
const VIEWS_PER_MINUTE = 300;
/** Freshness windows of the gateway's defaults (`CACHE_TTL_*_SECONDS`, docs/configuration.md). */
const DEFAULT_TTLS = DEFAULT_CONFIG.cacheTtlSeconds;

/** The value at quantile `q` (0..1) of sorted numbers, or null when there are none. */
function quantile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? null;
}

/** The `extensions.code` of every GraphQL error of a reply. */
function errorCodes(reply: GraphQLReply): string[] {
  return (reply.json.errors ?? []).map((error) => {
    const code = (error as { extensions?: { code?: unknown } }).extensions?.code;
    return typeof code === 'string' ? code : 'UNKNOWN';
  });
}

/** `extensions.upstream.maxAgeSeconds` of a reply, if any. */
function maxAge(reply: GraphQLReply): number | null {
  const upstream = reply.json.extensions?.['upstream'] as { maxAgeSeconds?: unknown } | undefined;
  return typeof upstream?.maxAgeSeconds === 'number' ? upstream.maxAgeSeconds : null;
}

/**
 * steady-views: 300 views per minute of docs/example.md's company page on one fresh key,
 * against its own simulator with the real limit (`--rate-limit 10/60`) and a gateway on its
 * defaults (`UPSTREAM_RATE_LIMIT=10/60`, refresh-ahead, patience, background fill). The
 * first complete view is awaited (the fill time is reported), then the views run for
 * 5 minutes. `--quick` compresses time by 10: a 10/6 limit on both sides, every freshness
 * window divided by 10, 15 s of views. Reports errors and `RATE_LIMITED` answers (target 0
 * each), p50/p99 of `extensions.upstream.maxAgeSeconds` against the freshness windows, and
 * upstream requests per minute from the simulator's log (≤ the budget). `ok` is false only
 * for a broken run (errors, upstream 429s), not for a missed target.
 */
export const steadyViews: Scenario = {
  name: 'steady-views',
  profilable: false,
  async run(bench) {
    const scale = bench.args.quick ? 10 : 1;
    const limit = { requests: 10, windowSeconds: 60 / scale };
    const measureSeconds = bench.args.quick ? 15 : 300;
    const ttls = Object.fromEntries(
      Object.entries(DEFAULT_TTLS).map(([kind, seconds]) => [kind, seconds / scale]),
    ) as Record<keyof typeof DEFAULT_TTLS, number>;
    const rateLimit = `${limit.requests}/${limit.windowSeconds}`;

    const simPort = await bench.allocatePort('simulator-limited');
    const sim = await startService({
      name: 'simulator-limited',
      args: [
        join(ROOT, 'dist', 'src', 'simulator', 'main.js'),
        '--port',
        String(simPort),
        '--host',
        HOST,
        '--latency',
        String(bench.args.latencyMs),
        '--rate-limit',
        rateLimit,
      ],
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'production' },
      cwd: ROOT,
      port: simPort,
      ready: /^http:\/\/\S+\/req$/m,
    });
    let gateway: Awaited<ReturnType<typeof bench.startGateway>> | null = null;
    try {
      const settings: Record<string, string> = {
        STATEV_BASE_URL: `${sim.origin}/req`,
        // Equal windows: the gateway starts a request's window when its answer arrived (plus 250 ms),
        // so the simulator's window, started at the arrival, has always passed when it sends again.
        UPSTREAM_RATE_LIMIT: rateLimit,
        CACHE_FILE: join(CACHE_FILES, 'steady-views'),
        ...(scale === 1
          ? {}
          : Object.fromEntries(
              Object.entries(ttls).map(([kind, seconds]) => [
                TTL_SETTINGS[kind as keyof typeof DEFAULT_TTLS],
                String(seconds),
              ]),
            )),
      };
      gateway = await bench.startGateway('gateway-steady-views', settings, { pinned: true });
      const url = `${gateway.origin}/graphql`;
      const body = JSON.stringify({ query: COMPANY_PAGE, variables: { id: SHOP_ID }, operationName: 'CompanyPage' });
      const headers = graphqlHeaders(STEADY_KEY, false);

      // The first fill: views one after another until one is complete.
      const fillStarted = performance.now();
      const fillLimitMs = (bench.args.quick ? 60 : 900) * 1000;
      let fillViews = 0;
      for (;;) {
        fillViews += 1;
        const reply = await postGraphQL(url, body, headers, 60_000);
        if (reply.status === 200 && reply.json.errors === undefined && reply.json.data) break;
        const codes = errorCodes(reply);
        if (reply.status !== 200 || codes.some((code) => code !== 'RATE_LIMITED'))
          throw new Error(`steady-views: a fill view failed: HTTP ${reply.status} ${reply.text.slice(0, 300)}`);
        if (performance.now() - fillStarted > fillLimitMs)
          throw new Error(`steady-views: no complete view within ${fillLimitMs / 1000} s`);
        await sleep(60_000 / VIEWS_PER_MINUTE);
      }
      const fillSeconds = (performance.now() - fillStarted) / 1000;
      log(`steady-views: first complete view after ${round(fillSeconds, 1)} s (${fillViews} views)`);

      // The measurement: one view every 200 ms, each on its own (a slow answer does not delay the next).
      await simReset(sim.origin);
      const counts = { views: 0, complete: 0, errors: 0, rateLimited: 0 };
      const ages: number[] = [];
      const firstErrors: string[] = [];
      const inFlight = new Set<Promise<void>>();
      const view = async (): Promise<void> => {
        try {
          const reply = await postGraphQL(url, body, headers, 30_000);
          counts.views += 1;
          const codes = errorCodes(reply);
          const age = maxAge(reply);
          if (age !== null) ages.push(age);
          if (codes.length > 0 && codes.every((code) => code === 'RATE_LIMITED') && reply.status === 200)
            counts.rateLimited += 1;
          else if (reply.status !== 200 || codes.length > 0) {
            counts.errors += 1;
            if (firstErrors.length < 5) firstErrors.push(`HTTP ${reply.status} ${reply.text.slice(0, 200)}`);
          } else counts.complete += 1;
        } catch (error) {
          counts.views += 1;
          counts.errors += 1;
          if (firstErrors.length < 5) firstErrors.push(error instanceof Error ? error.message : String(error));
        }
      };
      const started = performance.now();
      const intervalMs = 60_000 / VIEWS_PER_MINUTE;
      for (let i = 0; performance.now() - started < measureSeconds * 1000; i += 1) {
        const one = view().finally(() => inFlight.delete(one));
        inFlight.add(one);
        const next = started + (i + 1) * intervalMs;
        await sleep(Math.max(0, next - performance.now()));
      }
      const measuredSeconds = (performance.now() - started) / 1000;
      await Promise.all(inFlight);
      const { requests } = await simRequests(sim.origin);
      const upstream = requests.length;
      const upstream429 = requests.filter((request) => request.status === 429).length;
      const budgetPerMinute = (limit.requests * 60) / limit.windowSeconds;
      const upstreamPerMinute = upstream / (measuredSeconds / 60);
      const sorted = [...ages].sort((a, b) => a - b);
      const p50 = quantile(sorted, 0.5);
      const p99 = quantile(sorted, 0.99);
      const shortest = Math.min(...Object.values(ttls));
      const longest = Math.max(...Object.values(ttls));

      const result = {
        ok: counts.errors === 0 && upstream429 === 0,
        description: `${VIEWS_PER_MINUTE} company-page views per minute on one fresh key for ${measureSeconds} s after the first complete view; simulator --rate-limit ${rateLimit}, gateway UPSTREAM_RATE_LIMIT=${rateLimit}${scale === 1 ? ', default freshness windows' : `, time compressed ${scale}x (budget window and every CACHE_TTL_*_SECONDS divided by ${scale})`}`,
        timeScale: scale,
        rateLimit,
        freshnessSeconds: ttls,
        fillSeconds: round(fillSeconds, 1),
        fillViews,
        measuredSeconds: round(measuredSeconds, 1),
        views: counts.views,
        completeViews: counts.complete,
        errors: counts.errors,
        rateLimitedAnswers: counts.rateLimited,
        firstErrors,
        maxAgeSeconds: { p50, p99, max: sorted.at(-1) ?? null },
        ageP99VsShortestWindow: p99 === null ? null : round(p99 / shortest, 2),
        ageP99VsLongestWindow: p99 === null ? null : round(p99 / longest, 2),
        upstreamRequests: upstream,
        upstream429,
        upstreamPerMinute: round(upstreamPerMinute, 2),
        budgetPerMinute,
        upstreamPerMinuteVsBudget: round(upstreamPerMinute / budgetPerMinute, 2),
        targets: {
          zeroErrors: counts.errors === 0,
          zeroRateLimited: counts.rateLimited === 0,
          ageP99WithinLongestWindow: p99 !== null && p99 <= longest,
          upstreamWithinBudget: upstreamPerMinute <= budgetPerMinute,
        },
      };
      log(
        `steady-views: ${counts.views} views, ${counts.errors} errors, ${counts.rateLimited} RATE_LIMITED, age p50 ${p50} s p99 ${p99} s, ${result.upstreamPerMinute} upstream/min (budget ${budgetPerMinute})`,
      );
      bench.record('steady-views', result);
    } finally {
      if (gateway) await bench.stopServer(gateway);
      await bench.stopServer(sim);
    }
  },
};
