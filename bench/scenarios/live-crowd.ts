import { request } from 'node:http';
import type { ClientRequest } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURE_IDS } from '../../src/simulator';
import type { Scenario } from '../lib/bench';
import { log, ROOT, round } from '../lib/bench';
import { graphqlHeaders, postGraphQL, simRequests, sleep } from '../lib/http';
import { stopService } from '../lib/processes';
import type { Service } from '../lib/processes';
import { currentRssMb, RssSampler } from '../lib/rss';
import { scenarioLimit, startLimitedSimulator } from './rate-limited';

/** Concurrent visitors of the crowd's gateway. */
const VISITORS = 1000;
/** Visitors that connect together; the next batch after the previous one's answers started. */
const BATCH = 100;
/** The server key of the crowd's gateway: fresh (the simulator's log labels it `generated`). */
const CROWD_KEY = 'sim-key-800020';
/** The server key of the one-visitor gateway: fresh too (labelled `premium`), the same character. */
const SOLO_KEY = 'demo-premium-key';
/** The item whose counter price the change sets. */
const ITEM = 'Wasser';
/** The trusted-documents manifest of the example site (npm run codegen). */
const MANIFEST = join(ROOT, 'examples', 'company-site', 'generated', 'persisted-documents.json');
/** A plain read of the counter by the key's holder, bypassing the cache: it stores the new price. */
const FRESH_COUNTER = 'query FreshCounter($id: ID!) { factory(id: $id) { counter { items { item price } } } }';

/** One visitor's page as it arrived over SSE. */
interface Visitor {
  /** The request (destroyed when the visitor leaves). */
  readonly request: ClientRequest;
  /** When its request was sent (ms since the crowd started). */
  readonly openedMs: number;
  /** When the first result came (ms since the crowd started), null before. */
  firstMs: number | null;
  /** When the first complete result (no errors, the company there) came. */
  completeMs: number | null;
  /** The counter price of {@link ITEM} in the latest result. */
  price: number | null;
  /** When the price last changed (`Date.now()`, to compare with the simulator's log). */
  priceAt: number;
  /** Results received. */
  results: number;
  /** The first error code of a result without data (e.g. RATE_LIMITED), if any. */
  refused: string | null;
}

/** The hash of the live page document (LiveCompanyPage) in the example site's manifest. */
function liveDocumentHash(): string {
  const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8')) as Record<string, string>;
  const hash = Object.keys(manifest).find((key) => /\bquery LiveCompanyPage\b/.test(manifest[key] ?? ''));
  if (!hash) throw new Error(`live-crowd: ${MANIFEST} has no LiveCompanyPage (run npm run codegen)`);
  return hash;
}

/** The counter price of `item` in a page result, or null. */
function priceIn(
  result: { data?: { factory?: { counter?: { items?: Array<{ item: string; price: number }> } } | null } | null },
  item: string,
): number | null {
  return result.data?.factory?.counter?.items?.find((entry) => entry.item === item)?.price ?? null;
}

/**
 * Opens one visitor as the example site's EventSource does: a GET of /graphql/stream with
 * the trusted document's hash and the variables (graphql-sse's distinct connections mode),
 * over a socket of its own, read as raw `text/event-stream` (no client library: 1,000 of
 * them stay cheap for the bench process). Resolves once the answer's headers came.
 */
function openVisitor(origin: string, hash: string, started: number): Promise<Visitor> {
  const params = new URLSearchParams({
    query: '',
    extensions: JSON.stringify({ persistedQuery: { version: 1, sha256Hash: hash } }),
    variables: JSON.stringify({ id: FIXTURE_IDS.shop }),
  });
  const url = new URL(`${origin}/graphql/stream?${params}`);
  return new Promise((resolve, reject) => {
    const req = request({
      host: url.hostname,
      port: url.port,
      path: url.pathname + url.search,
      method: 'GET',
      agent: false,
      headers: { accept: 'text/event-stream' },
    });
    const visitor: Visitor = {
      request: req,
      openedMs: performance.now() - started,
      firstMs: null,
      completeMs: null,
      price: null,
      priceAt: 0,
      results: 0,
      refused: null,
    };
    req.on('response', (res) => {
      res.setEncoding('utf8');
      let buffer = '';
      res.on('data', (chunk: string) => {
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (!block.startsWith('event: next')) continue;
          const data = block
            .split('\n')
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).trimStart())
            .join('\n');
          const result = JSON.parse(data) as {
            data?: { factory?: unknown } | null;
            errors?: Array<{ extensions?: { code?: string } }>;
          };
          const now = performance.now();
          visitor.results += 1;
          visitor.firstMs ??= now - started;
          if (!result.data && result.errors) visitor.refused = result.errors[0]?.extensions?.code ?? 'UNKNOWN';
          if (visitor.completeMs === null && !result.errors && result.data?.factory) visitor.completeMs = now - started;
          const price = priceIn(result as Parameters<typeof priceIn>[0], ITEM);
          if (price !== visitor.price) {
            visitor.price = price;
            visitor.priceAt = Date.now();
          }
        }
      });
      res.on('error', () => undefined);
      resolve(visitor);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The `q` quantile of sorted numbers. */
function quantile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? null;
}

/** A gauge's sum over its labels in a /metrics text (-1 when the scrape failed). */
async function gaugeSum(origin: string, name: string): Promise<number> {
  const response = await fetch(`${origin}/metrics`, { signal: AbortSignal.timeout(10_000) }).catch(() => null);
  if (!response) return -1;
  const text = await response.text();
  let sum = 0;
  for (const match of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\d+)`, 'gm'))) sum += Number(match[1]);
  return sum;
}

/** CPU time the process `pid` has used so far (user + system), ms; null without /proc. */
function cpuMs(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** Polls `done` every 250 ms until it holds or `ms` passed; true when it held. */
async function waitFor(done: () => boolean, ms: number): Promise<boolean> {
  const until = performance.now() + ms;
  while (!done()) {
    if (performance.now() > until) return false;
    await sleep(250);
  }
  return true;
}

/**
 * live-crowd: the example company site's live page (examples/company-site/, the trusted
 * document LiveCompanyPage of company-page-live.graphql) in public-site mode, opened at once
 * by 1,000 visitors over Server-Sent Events (raw HTTP GETs as the site's EventSource makes),
 * all from 127.0.0.1: the gateway runs with LIVE_QUERY_SUBSCRIBERS_MAX_PER_ADDRESS=2000 (its
 * default, 200, would refuse the 201st). At the same time a second gateway on another fresh
 * server key serves the page to ONE visitor, on the same simulator (limited to 10 requests
 * per rolling 60 s, `--quick` 6 s, 20 ms latency). Reports: visitors that got the page (first result, and
 * the complete page), refused ones, the crowd key's upstream requests against the one
 * visitor's (target: equal, the crowd shares one execution), the crowd gateway's RSS growth
 * from before the visitors came to its peak (target at most 100 MB), and a counter price
 * change (the simulator's admin endpoint, then a no-cache read of the counter by the key's
 * holder, which stores it): the time from that read to each visitor's new price (target:
 * every visitor within 1 s). Then every visitor leaves: the gateway's open subscriptions
 * and live executions (target 0).
 */
export const liveCrowd: Scenario = {
  name: 'live-crowd',
  profilable: false,
  async run(bench) {
    const LIMIT = scenarioLimit(bench);
    const sim = await startLimitedSimulator(bench, 'simulator-live-crowd');
    const visitors: Visitor[] = [];
    const gateways: Service[] = [];
    try {
      const common = {
        STATEV_BASE_URL: `${sim.origin}/req`,
        UPSTREAM_RATE_LIMIT: `${LIMIT.requests}/${LIMIT.windowSeconds}`,
        TRUSTED_DOCUMENTS: MANIFEST,
      };
      const crowd = await bench.startGateway(
        'gateway-live-crowd',
        { ...common, STATEV_API_KEY: CROWD_KEY, LIVE_QUERY_SUBSCRIBERS_MAX_PER_ADDRESS: String(2 * VISITORS) },
        { pinned: true },
      );
      gateways.push(crowd);
      const solo = await bench.startGateway(
        'gateway-live-crowd-solo',
        { ...common, STATEV_API_KEY: SOLO_KEY },
        { pinned: true },
      );
      gateways.push(solo);
      const hash = liveDocumentHash();
      const maxWaitMs = bench.args.quick ? 150_000 : 200_000;

      const rssBeforeMb = currentRssMb(crowd.pid);
      const cpuBeforeMs = cpuMs(crowd.pid);
      const rss = new RssSampler(crowd.pid);
      const started = performance.now();
      log(`live-crowd: ${VISITORS} SSE visitors of the live page, and one on the solo gateway`);
      const single = await openVisitor(solo.origin, hash, started);
      const openFailures: string[] = [];
      for (let from = 0; from < VISITORS; from += BATCH) {
        const batch = await Promise.allSettled(
          Array.from({ length: Math.min(BATCH, VISITORS - from) }, () => openVisitor(crowd.origin, hash, started)),
        );
        for (const outcome of batch) {
          if (outcome.status === 'fulfilled') visitors.push(outcome.value);
          else openFailures.push(String(outcome.reason));
        }
      }
      const connectedMs = performance.now() - started;
      const allFirst = await waitFor(() => visitors.every((visitor) => visitor.firstMs !== null), 30_000);
      const cpuConnectMs = cpuBeforeMs === null ? null : (cpuMs(crowd.pid) ?? cpuBeforeMs) - cpuBeforeMs;
      const allComplete = await waitFor(
        () =>
          single.completeMs !== null &&
          visitors.every((visitor) => visitor.completeMs !== null || visitor.refused !== null),
        maxWaitMs,
      );
      const rssPeakMb = rss.stop();
      const rssAfterMb = currentRssMb(crowd.pid);
      // Background fill of both keys settles before the log is read.
      await sleep(2000);
      const requests = (await simRequests(sim.origin)).requests;
      const crowdUpstream = requests.filter((entry) => entry.keyLabel === 'generated').length;
      const soloUpstream = requests.filter((entry) => entry.keyLabel === 'premium').length;
      const upstream429 = requests.filter((entry) => entry.status === 429).length;
      const firsts = visitors
        .map((visitor) => visitor.firstMs)
        .filter((ms): ms is number => ms !== null)
        .sort((a, b) => a - b);
      const firstAfterOpen = visitors
        .map((visitor) => (visitor.firstMs === null ? null : visitor.firstMs - visitor.openedMs))
        .filter((ms): ms is number => ms !== null)
        .sort((a, b) => a - b);
      const completes = visitors
        .map((visitor) => visitor.completeMs)
        .filter((ms): ms is number => ms !== null)
        .sort((a, b) => a - b);
      const refused = visitors.filter((visitor) => visitor.refused !== null).length;
      log(
        `live-crowd: ${completes.length}/${VISITORS} complete (last at ${round((completes.at(-1) ?? 0) / 1000, 1)} s), ${refused} refused; upstream ${crowdUpstream} crowd vs ${soloUpstream} one visitor`,
      );

      // A change: a new counter price upstream, fetched by the key holder's no-cache read of the
      // counter (repeated every 3 s while the key's budget is spent: the read then answers from
      // the cache and the fetch follows when the budget allows). Each visitor's delay counts
      // from the simulator's arrival time of the first counter request after the change.
      const newPrice = round((visitors[0]?.price ?? 4.5) + 1.37, 2);
      const changedAt = Date.now();
      await fetch(`${sim.origin}/__sim/change`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ kind: 'counter', factoryId: FIXTURE_IDS.shop, item: ITEM, price: newPrice }),
        signal: AbortSignal.timeout(10_000),
      });
      const body = JSON.stringify({ query: FRESH_COUNTER, variables: { id: FIXTURE_IDS.shop } });
      const everyoneHasIt = (): boolean =>
        visitors.every((visitor) => visitor.price === newPrice || visitor.refused !== null);
      let readAttempts = 0;
      const changeDeadline = performance.now() + LIMIT.windowSeconds * 1000 + 15_000;
      while (!everyoneHasIt() && performance.now() < changeDeadline) {
        readAttempts += 1;
        await postGraphQL(`${crowd.origin}/graphql`, body, graphqlHeaders(CROWD_KEY, true), 10_000).catch(() => null);
        await waitFor(everyoneHasIt, 3000);
      }
      const counterFetch = (await simRequests(sim.origin)).requests.find(
        (entry) =>
          entry.keyLabel === 'generated' &&
          entry.status === 200 &&
          entry.at >= changedAt &&
          entry.route.includes('counter'),
      );
      const fetchedAt = counterFetch?.at ?? null;
      const delays =
        fetchedAt === null
          ? []
          : visitors
              .filter((visitor) => visitor.price === newPrice)
              .map((visitor) => visitor.priceAt - fetchedAt)
              .sort((a, b) => a - b);
      const fanOutMs = delays.length > 0 ? (delays.at(-1) ?? 0) - (delays[0] ?? 0) : null;
      const reached = delays.length === VISITORS;
      log(
        `live-crowd: change reached ${delays.length}/${VISITORS} visitors, the last ${round(delays.at(-1) ?? -1, 0)} ms after the upstream was asked for the counter`,
      );

      // Every visitor leaves.
      for (const visitor of [...visitors, single]) visitor.request.destroy();
      let released = { open: -1, executions: -1 };
      for (let attempt = 0; attempt < 40; attempt += 1) {
        const [open, executions] = await Promise.all([
          gaugeSum(crowd.origin, 'statev_subscriptions_active'),
          gaugeSum(crowd.origin, 'statev_live_query_executions'),
        ]);
        released = { open, executions };
        if (open === 0 && executions === 0) break;
        await sleep(250);
      }

      const everyoneGotThePage = allFirst && allComplete && completes.length === VISITORS && openFailures.length === 0;
      bench.record('live-crowd', {
        ok: everyoneGotThePage && reached,
        description: `${VISITORS} SSE visitors of the example site's live page (public-site mode, LiveCompanyPage), all from 127.0.0.1 (LIVE_QUERY_SUBSCRIBERS_MAX_PER_ADDRESS=${2 * VISITORS}); simulator --rate-limit ${LIMIT.requests}/${LIMIT.windowSeconds} --latency 20; a second gateway serves one visitor`,
        visitors: VISITORS,
        connectedSeconds: round(connectedMs / 1000, 2),
        openFailures: openFailures.length,
        gatewayCpuMsPerVisitorConnect: cpuConnectMs === null ? null : round(cpuConnectMs / VISITORS, 2),
        firstResult: {
          visitors: firsts.length,
          p50Seconds: round((quantile(firsts, 0.5) ?? -1) / 1000, 2),
          maxSeconds: round((firsts.at(-1) ?? -1) / 1000, 2),
          afterOwnRequestP50Ms: round(quantile(firstAfterOpen, 0.5) ?? -1, 0),
          afterOwnRequestP99Ms: round(quantile(firstAfterOpen, 0.99) ?? -1, 0),
        },
        completePage: {
          visitors: completes.length,
          p50Seconds: round((quantile(completes, 0.5) ?? -1) / 1000, 1),
          maxSeconds: round((completes.at(-1) ?? -1) / 1000, 1),
          oneVisitorSeconds: single.completeMs === null ? null : round(single.completeMs / 1000, 1),
        },
        refused,
        upstream: { crowd: crowdUpstream, oneVisitor: soloUpstream, upstream429 },
        crowdUpstreamVsOneVisitor: soloUpstream === 0 ? null : round(crowdUpstream / soloUpstream, 2),
        rssMb: { before: rssBeforeMb, peak: rssPeakMb, afterComplete: rssAfterMb },
        rssGrowthMb: rssBeforeMb === null || rssPeakMb === null ? null : round(rssPeakMb - rssBeforeMb, 1),
        change: {
          price: newPrice,
          readAttempts,
          upstreamAskedSecondsAfterChange: fetchedAt === null ? null : round((fetchedAt - changedAt) / 1000, 1),
          reachedVisitors: delays.length,
          p50Ms: round(quantile(delays, 0.5) ?? -1, 0),
          p99Ms: round(quantile(delays, 0.99) ?? -1, 0),
          lastMs: delays.length > 0 ? round(delays.at(-1) ?? -1, 0) : null,
          fanOutMs: fanOutMs === null ? null : round(fanOutMs, 0),
        },
        afterLeaving: released,
      });
    } finally {
      for (const visitor of visitors) visitor.request.destroy();
      for (const gateway of gateways) await bench.stopServer(gateway);
      await stopService(sim);
    }
  },
};
