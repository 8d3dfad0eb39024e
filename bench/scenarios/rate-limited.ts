import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURE_IDS } from '../../src/simulator';
import type { Bench, Scenario } from '../lib/bench';
import { log, ROOT, round } from '../lib/bench';
import { graphqlHeaders, postGraphQL, simRequests, simReset, sleep } from '../lib/http';
import type { GraphQLReply } from '../lib/http';
import { HOST, startService, stopService } from '../lib/processes';
import type { Service } from '../lib/processes';

/** The scenario's key: a fresh generated premium key, used by no other scenario. */
const RATE_LIMITED_KEY = 'sim-key-800001';
/**
 * Keys that warm the gateway up before the measurement (a running gateway has served other
 * keys): the simulator's demo keys, whose requests its log labels apart from the measured
 * key's (`generated`), so their background fill never counts.
 */
const WARM_UP_KEYS = ['demo-premium-key', 'demo-other-key'];
/**
 * The upstream's limit (and the gateway's default budget) for the rate-limited scenarios:
 * 10 requests per 60 s; `--quick` compresses time by 10 (10 per 6 s), as steady-views does,
 * so CI's smoke run waits out 6 s windows instead of minutes. Floors scale with it.
 */
export function scenarioLimit(bench: Bench): { requests: number; windowSeconds: number } {
  return { requests: 10, windowSeconds: bench.args.quick ? 6 : 60 };
}
/** Added latency of the scenario's own simulator, ms. */
const LATENCY_MS = 20;
/** Dependent upstream round trips on the company page's critical path. */
const CRITICAL_PATH_ROUND_TRIPS = 3;
/** Seconds between views until the page is complete. */
const VIEW_INTERVAL_MS = 2000;
/** Views per second once complete (300 per minute). */
const STREAM_PER_SECOND = 5;
/** How long one view may take before it counts as failed, ms. */
const VIEW_TIMEOUT_MS = 10_000;

/**
 * The README company page: the first GraphQL block of docs/example.md (a company with
 * counter, inventory, offers, vehicles and option slots, plus the buildings with rooms and
 * tenants), so the scenario measures the page the docs show.
 *
 * @throws Error when docs/example.md has no GraphQL block.
 */
export function companyPage(): string {
  const text = readFileSync(join(ROOT, 'docs', 'example.md'), 'utf8');
  const block = /```graphql\n([\s\S]*?)```/.exec(text)?.[1];
  if (block === undefined) throw new Error('rate-limited: docs/example.md has no ```graphql block (the company page)');
  return block;
}

/** Non-null leaves of a GraphQL `data` value (array elements counted one by one). */
function leaves(value: unknown): number {
  if (value === null || value === undefined) return 0;
  if (Array.isArray(value)) return value.reduce((sum: number, item: unknown) => sum + leaves(item), 0);
  if (typeof value === 'object')
    return Object.values(value).reduce((sum: number, item: unknown) => sum + leaves(item), 0);
  return 1;
}

/** Error codes of a reply (empty when it has none). */
function errorCodes(reply: GraphQLReply): string[] {
  return (reply.json.errors ?? []).map((error) => {
    const code = (error as { extensions?: { code?: unknown } }).extensions?.code;
    return typeof code === 'string' ? code : 'UNKNOWN';
  });
}

/** The largest number of `times` (ms) inside any window of `windowMs`. */
function busiestWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end += 1) {
    while ((sorted[end] ?? 0) - (sorted[start] ?? 0) >= windowMs) start += 1;
    best = Math.max(best, end - start + 1);
  }
  return best;
}

/**
 * Starts a simulator of the scenario's own, in its own process, limiting every key to
 * {@link scenarioLimit} and adding {@link LATENCY_MS} per request (rate-limited and live-page).
 */
export async function startLimitedSimulator(bench: Bench, name: string): Promise<Service> {
  const LIMIT = scenarioLimit(bench);
  const simPort = await bench.allocatePort(name);
  return startService({
    name,
    args: [
      join(ROOT, 'dist', 'src', 'simulator', 'main.js'),
      '--port',
      String(simPort),
      '--host',
      HOST,
      '--latency',
      String(LATENCY_MS),
      '--rate-limit',
      `${LIMIT.requests}/${LIMIT.windowSeconds}`,
    ],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'production' },
    cwd: ROOT,
    port: simPort,
    ready: /^http:\/\/\S+\/req$/m,
  });
}

/**
 * rate-limited: the README company page (docs/example.md's worked example, with buildings)
 * on a simulator of its own that limits every key to 10 requests per rolling 60 s (`--quick`: 6 s, {@link scenarioLimit}) and adds
 * 20 ms per request, through a gateway with its defaults (`UPSTREAM_RATE_LIMIT=10/60`,
 * patience 1500 ms, background fill). After two other keys have warmed the gateway up, a fresh key views the page every 2 s until the first
 * complete answer (no errors), then 300 views per minute for a short phase (15 s, full run
 * 30 s). Reports the time to the first complete answer against the floor (10 requests at
 * once, the next 10 when the window has passed: ceil(distinct / 10 - 1) x 60 s), upstream
 * 429s, upstream requests per key in the busiest 60 s, the share of the complete answer's
 * fields present in the first view, errors once complete, and the first view's latency
 * against 3 dependent round trips x 20 ms. `ok` is false only on a broken run: no complete
 * answer, an error once complete, or an upstream 429.
 */
export const rateLimited: Scenario = {
  name: 'rate-limited',
  profilable: false,
  async run(bench) {
    const LIMIT = scenarioLimit(bench);
    const sim = await startLimitedSimulator(bench, 'simulator-rate-limited');
    try {
      const gateway = await bench.startGateway(
        'gateway-rate-limited',
        { STATEV_BASE_URL: `${sim.origin}/req`, UPSTREAM_RATE_LIMIT: `${LIMIT.requests}/${LIMIT.windowSeconds}` },
        { pinned: true },
      );
      try {
        const query = companyPage();
        const body = JSON.stringify({ query, variables: { id: FIXTURE_IDS.shop } });
        const url = `${gateway.origin}/graphql`;
        const headers = graphqlHeaders(RATE_LIMITED_KEY, false);
        const maxWaitMs = bench.args.quick ? 80_000 : 200_000;

        // A running gateway has served other keys: its code is compiled and warm. The first view of a
        // fresh process pays about 100 ms of that once (reported as coldProcessFirstViewMs, from the
        // first warm-up view); the measured key is fresh either way. The simulator's log starts after.
        let coldProcessFirstViewMs: number | null = null;
        for (const warmKey of WARM_UP_KEYS) {
          const sentAt = performance.now();
          await postGraphQL(url, body, graphqlHeaders(warmKey, false), VIEW_TIMEOUT_MS);
          coldProcessFirstViewMs ??= performance.now() - sentAt;
        }
        await simReset(sim.origin);

        // Views every 2 s until the first complete answer.
        const started = performance.now();
        let first: { reply: GraphQLReply; ms: number } | null = null;
        let complete: GraphQLReply | null = null;
        let views = 0;
        const firstErrorCodes: Record<string, number> = {};
        const viewFailures: string[] = [];
        while (complete === null && performance.now() - started < maxWaitMs) {
          const tick = sleep(VIEW_INTERVAL_MS);
          const sent = performance.now();
          let reply: GraphQLReply;
          try {
            reply = await postGraphQL(url, body, headers, VIEW_TIMEOUT_MS);
          } catch (error) {
            // A view that does not answer in time is counted, and the next view goes on.
            viewFailures.push(
              `view ${views + 1} at ${round((sent - started) / 1000, 1)} s: ${error instanceof Error ? error.message : String(error)}`,
            );
            views += 1;
            continue;
          }
          views += 1;
          if (first === null) {
            first = { reply, ms: performance.now() - sent };
            for (const code of errorCodes(reply)) firstErrorCodes[code] = (firstErrorCodes[code] ?? 0) + 1;
          }
          if (reply.status === 200 && reply.json.errors === undefined && reply.json.data) complete = reply;
          else await tick;
        }
        const completeSeconds = complete === null ? null : (performance.now() - started) / 1000;

        // 300 views per minute once complete.
        const streamSeconds = bench.args.quick ? 15 : 30;
        const stream = { views: 0, errors: 0, firstErrors: [] as string[] };
        if (complete !== null) {
          const pending: Promise<void>[] = [];
          const streamStart = performance.now();
          for (let i = 0; i < streamSeconds * STREAM_PER_SECOND; i += 1) {
            const due = streamStart + (i * 1000) / STREAM_PER_SECOND;
            const wait = due - performance.now();
            if (wait > 0) await sleep(wait);
            pending.push(
              postGraphQL(url, body, headers, 30_000)
                .then((reply) => {
                  if (reply.status !== 200 || reply.json.errors !== undefined)
                    throw new Error(`HTTP ${reply.status} ${reply.text.slice(0, 200)}`);
                })
                .catch((error: unknown) => {
                  stream.errors += 1;
                  if (stream.firstErrors.length < 5)
                    stream.firstErrors.push(error instanceof Error ? error.message : String(error));
                })
                .finally(() => {
                  stream.views += 1;
                }),
            );
          }
          await Promise.all(pending);
        }

        const log429 = (await simRequests(sim.origin)).requests.filter((request) => request.keyLabel === 'generated');
        const upstream429 = log429.filter((request) => request.status === 429).length;
        const distinct = new Set(
          log429.filter((request) => request.status !== 429).map((request) => `${request.method} ${request.path}`),
        ).size;
        const floorSeconds = Math.max(0, Math.ceil(distinct / LIMIT.requests - 1)) * LIMIT.windowSeconds;
        const busiest = busiestWindow(
          log429.map((request) => request.at),
          LIMIT.windowSeconds * 1000,
        );
        const firstShare =
          complete === null || first === null
            ? null
            : leaves(first.reply.json.data) / Math.max(1, leaves(complete.json.data));
        const firstViewMs = first?.ms ?? null;
        const criticalPathMs = CRITICAL_PATH_ROUND_TRIPS * LATENCY_MS;
        const completeVsFloor = completeSeconds === null || floorSeconds === 0 ? null : completeSeconds / floorSeconds;

        const result = {
          ok: complete !== null && stream.errors === 0 && upstream429 === 0,
          description: `company page on a fresh key, simulator at ${LIMIT.requests}/${LIMIT.windowSeconds} s per key with ${LATENCY_MS} ms latency, gateway defaults (UPSTREAM_RATE_LIMIT=${LIMIT.requests}/${LIMIT.windowSeconds}); a view every ${VIEW_INTERVAL_MS / 1000} s until complete, then ${STREAM_PER_SECOND * 60} views per minute for ${streamSeconds} s`,
          viewsUntilComplete: views,
          viewFailuresUntilComplete: viewFailures,
          completeSeconds: completeSeconds === null ? null : round(completeSeconds, 1),
          distinctUpstreamRequests: distinct,
          floorSeconds,
          completeVsFloor: completeVsFloor === null ? null : round(completeVsFloor, 2),
          upstreamRequests: log429.length,
          upstream429,
          upstreamPerKeyBusiestMinute: busiest,
          firstView: {
            latencyMs: firstViewMs === null ? null : round(firstViewMs, 1),
            criticalPathMs,
            latencyVsCriticalPath: firstViewMs === null ? null : round(firstViewMs / criticalPathMs, 2),
            fieldShare: firstShare === null ? null : round(firstShare, 2),
            errorCodes: firstErrorCodes,
            coldProcessFirstViewMs: coldProcessFirstViewMs === null ? null : round(coldProcessFirstViewMs, 1),
          },
          stream: {
            seconds: streamSeconds,
            views: stream.views,
            errors: stream.errors,
            firstErrors: stream.firstErrors,
          },
          targets: {
            completeWithin115PercentOfFloor: completeVsFloor !== null && completeVsFloor <= 1.15,
            zeroUpstream429: upstream429 === 0,
            atMostTenPerKeyPerMinute: busiest <= LIMIT.requests,
            zeroErrorsOnceComplete: complete !== null && stream.errors === 0,
            firstViewWithin130PercentOfCriticalPath: firstViewMs !== null && firstViewMs <= 1.3 * criticalPathMs,
          },
        };
        log(
          `rate-limited: complete after ${result.completeSeconds ?? '-'} s (${views} views; floor ${floorSeconds} s for ${distinct} requests), ${upstream429} upstream 429s, busiest minute ${busiest} requests, first view ${result.firstView.latencyMs ?? '-'} ms with ${result.firstView.fieldShare ?? '-'} of the fields, ${stream.errors} errors in ${stream.views} views once complete`,
        );
        bench.record('rate-limited', result);
      } finally {
        await bench.stopServer(gateway);
      }
    } finally {
      await stopService(sim);
    }
  },
};
