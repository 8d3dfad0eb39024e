import { createClient } from 'graphql-ws';
import type { Client } from 'graphql-ws';
import WebSocket from 'ws';
import { FIXTURE_IDS } from '../../src/simulator';
import type { Scenario } from '../lib/bench';
import { log, round } from '../lib/bench';
import { graphqlHeaders, postGraphQL, simRequests, simReset, sleep } from '../lib/http';
import { stopService } from '../lib/processes';
import { companyPage, scenarioLimit, startLimitedSimulator } from './rate-limited';
import { currentRssMb, GC_ON_SIGNAL_FLAGS, heapAfterGcMb, RssSampler } from '../lib/rss';
import { measureLiveRerun } from './live-rerun';

/** The live query's key: a fresh generated premium key (the simulator's log labels it `generated`). */
const LIVE_KEY = 'sim-key-800002';
/** The plain query's key, viewed at the same time: fresh too (the log labels it `premium`), same character and page. */
const PLAIN_KEY = 'demo-premium-key';
/** Added latency of the scenario's simulator (rate-limited's), ms. */
const LATENCY_MS = 20;
/** Seconds between the plain query's views until its page is complete. */
const VIEW_INTERVAL_MS = 2000;
/** Live queries opened then closed per round, and rounds, of the memory phase (10,000 in all). */
const PER_ROUND = 1000;
const ROUNDS = 10;
/** The memory phase's live query: the shop's counter (one cached resource), so the phase measures what live queries hold, not page execution. */
const COUNTER = `query Counter($id: ID!) @live { factory(id: $id) { counter { items { item price amount } } } }`;
/** WebSockets the memory phase spreads each round over. */
const SOCKETS = 10;

/** Open live queries on the gateway (its `statev_subscriptions_active` gauge: a live query counts as a subscription). */
async function activeSubscriptions(origin: string): Promise<number> {
  const response = await fetch(`${origin}/metrics`, { signal: AbortSignal.timeout(10_000) }).catch(() => null);
  if (!response) return -1;
  const text = await response.text();
  let sum = 0;
  for (const match of text.matchAll(/^statev_subscriptions_active\{[^}]*\} (\d+)/gm)) sum += Number(match[1]);
  return sum;
}

function wsClient(origin: string, key: string): Client {
  return createClient({
    url: `${origin.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${key}` },
    retryAttempts: 0,
  });
}

/**
 * live-page: the README company page (docs/example.md) as ONE live query (`@live`, over
 * graphql-ws) on a fresh key, on a simulator of its own limited to 10 requests per
 * rolling 60 s (`--quick`: 6 s) with 20 ms latency, through a gateway with its defaults. At the same time a
 * second fresh key views the same page as a plain query every 2 s until complete (the
 * client loop a live query replaces). Reports the time to the first live result, the
 * time to the complete live result against the floor, the live results sent, the live
 * key's upstream requests against the plain key's (target: equal), and upstream 429s
 * (target 0). Then 10,000 live queries of the (now cached) page are opened and closed, in
 * rounds of 1,000 over 10 WebSockets: after each round the gateway's heap used after a
 * full collection (flat: the last round within 10 % of the first; the gateway runs with
 * {@link GC_ON_SIGNAL_FLAGS}), and its RSS, with the peak RSS (reported, not a target:
 * RSS also holds heap pages V8 and the allocator keep after a collection). Last, the CPU
 * of a live query's re-run after one changed resource against a plain execution of the
 * same document (`live-page-rerun`, on a simulator and gateway of its own: see
 * {@link measureLiveRerun}).
 */
export const livePage: Scenario = {
  name: 'live-page',
  profilable: false,
  async run(bench) {
    const LIMIT = scenarioLimit(bench);
    const sim = await startLimitedSimulator(bench, 'simulator-live-page');
    try {
      const gateway = await bench.startGateway(
        'gateway-live-page',
        {
          STATEV_BASE_URL: `${sim.origin}/req`,
          UPSTREAM_RATE_LIMIT: `${LIMIT.requests}/${LIMIT.windowSeconds}`,
          SUBSCRIPTIONS_MAX_PER_KEY: String(PER_ROUND),
          SUBSCRIPTIONS_MAX_PER_CONNECTION: String(PER_ROUND),
          // Every live query comes from 127.0.0.1.
          LIVE_QUERY_SUBSCRIBERS_MAX_PER_ADDRESS: String(PER_ROUND),
        },
        { pinned: true, nodeFlags: GC_ON_SIGNAL_FLAGS },
      );
      const clients: Client[] = [];
      try {
        const query = companyPage();
        const liveQuery = query.replace('query CompanyPage($id: ID!)', 'query CompanyPage($id: ID!) @live');
        const variables = { id: FIXTURE_IDS.shop };
        const maxWaitMs = bench.args.quick ? 80_000 : 200_000;
        await simReset(sim.origin);
        log('live-page: live page and plain loop start');

        // The live page and the plain page's client loop, at the same time, on two fresh keys.
        const started = performance.now();
        const live = wsClient(gateway.origin, LIVE_KEY);
        clients.push(live);
        const liveResults: Array<{ ms: number; errors: number }> = [];
        let liveDone: () => void = () => undefined;
        const liveComplete = new Promise<void>((resolve) => (liveDone = resolve));
        const stopLive = live.subscribe(
          { query: liveQuery, variables },
          {
            next: (result) => {
              liveResults.push({ ms: performance.now() - started, errors: result.errors?.length ?? 0 });
              if (result.data && !result.errors) liveDone();
            },
            error: () => liveDone(),
            complete: () => liveDone(),
          },
        );
        const plain = (async (): Promise<number | null> => {
          const body = JSON.stringify({ query, variables });
          while (performance.now() - started < maxWaitMs) {
            const tick = sleep(VIEW_INTERVAL_MS);
            const reply = await postGraphQL(
              `${gateway.origin}/graphql`,
              body,
              graphqlHeaders(PLAIN_KEY, false),
              10_000,
            ).catch(() => null);
            if (reply && reply.status === 200 && reply.json.errors === undefined && reply.json.data)
              return performance.now() - started;
            await tick;
          }
          return null;
        })();
        await Promise.race([liveComplete, sleep(maxWaitMs)]);
        const plainCompleteMs = await plain;
        stopLive();
        // Background fill and refresh-ahead of both keys settle before the log is read.
        await sleep(1000);
        const requests = (await simRequests(sim.origin)).requests;
        const liveRequests = requests.filter((request) => request.keyLabel === 'generated');
        const plainRequests = requests.filter((request) => request.keyLabel === 'premium');
        const upstream429 = requests.filter((request) => request.status === 429).length;
        const distinct = new Set(
          liveRequests
            .filter((request) => request.status !== 429)
            .map((request) => `${request.method} ${request.path}`),
        ).size;
        const floorSeconds = Math.max(0, Math.ceil(distinct / LIMIT.requests - 1)) * LIMIT.windowSeconds;
        const complete = liveResults.find((result) => result.errors === 0);
        const completeSeconds = complete === undefined ? null : complete.ms / 1000;
        const completeVsFloor = completeSeconds === null || floorSeconds === 0 ? null : completeSeconds / floorSeconds;
        const upstreamVsPlain = plainRequests.length === 0 ? null : liveRequests.length / plainRequests.length;

        log(
          `live-page: page phase done: results at ${liveResults.map((entry) => `${round(entry.ms / 1000, 1)} s (${entry.errors} errors)`).join(', ')}; upstream ${liveRequests.length} live vs ${plainRequests.length} plain, ${upstream429} 429s; memory phase starts`,
        );
        // Memory: 10,000 live queries of the cached counter opened and closed, 1,000 at a time.
        const rss = new RssSampler(gateway.pid);
        const rssBeforeMb = currentRssMb(gateway.pid);
        const heapBeforeMb = await heapAfterGcMb(gateway);
        const rssAfterRoundMb: Array<number | null> = [];
        const heapAfterRoundMb: Array<number | null> = [];
        let opened = 0;
        let firstResults = 0;
        let refusals = 0;
        let stalledRound: number | null = null;
        for (let round_ = 0; round_ < ROUNDS; round_ += 1) {
          const sockets = Array.from({ length: SOCKETS }, () => wsClient(gateway.origin, LIVE_KEY));
          const stops: Array<() => void> = [];
          const firsts: Array<Promise<void>> = [];
          for (let i = 0; i < PER_ROUND; i += 1) {
            const socket = sockets[i % SOCKETS];
            if (!socket) continue;
            firsts.push(
              new Promise<void>((resolve) => {
                let seen = false;
                stops.push(
                  socket.subscribe(
                    { query: COUNTER, variables },
                    {
                      next: (result) => {
                        if (!seen) {
                          seen = true;
                          if (
                            result.errors?.some(
                              (error) => error.extensions?.code === 'RATE_LIMITED' && error.extensions.setting,
                            )
                          )
                            refusals += 1;
                          else firstResults += 1;
                        }
                        resolve();
                      },
                      error: () => resolve(),
                      complete: () => resolve(),
                    },
                  ),
                );
              }),
            );
            opened += 1;
          }
          // A round whose first results do not all come within a minute ends the phase (reported as stalled).
          const settled = await Promise.race([Promise.all(firsts).then(() => true), sleep(60_000).then(() => false)]);
          if (!settled) stalledRound ??= round_ + 1;
          for (const stop of stops) stop();
          await Promise.all(sockets.map((socket) => socket.dispose()));
          for (let i = 0; i < 100 && (await activeSubscriptions(gateway.origin)) > 0; i += 1) await sleep(50);
          heapAfterRoundMb.push(await heapAfterGcMb(gateway));
          rssAfterRoundMb.push(currentRssMb(gateway.pid));
          log(
            `live-page: round ${round_ + 1}: ${opened} opened and closed, heap after GC ${round(heapAfterRoundMb[heapAfterRoundMb.length - 1] ?? 0, 1)} MB, RSS ${round(rssAfterRoundMb[rssAfterRoundMb.length - 1] ?? 0, 1)} MB`,
          );
          if (stalledRound !== null) break;
        }
        const peakRssMb = rss.stop();
        const activeAfter = await activeSubscriptions(gateway.origin);
        const firstRound = rssAfterRoundMb[0] ?? null;
        const lastRound = rssAfterRoundMb[rssAfterRoundMb.length - 1] ?? null;
        const rssGrowth = firstRound === null || lastRound === null ? null : lastRound / firstRound;
        const firstHeap = heapAfterRoundMb[0] ?? null;
        const lastHeap = heapAfterRoundMb[heapAfterRoundMb.length - 1] ?? null;
        const heapGrowth = firstHeap === null || lastHeap === null ? null : lastHeap / firstHeap;

        const result = {
          ok: complete !== undefined && upstream429 === 0 && activeAfter === 0,
          description: `company page as one live query on a fresh key (graphql-ws), simulator at ${LIMIT.requests}/${LIMIT.windowSeconds} s per key with ${LATENCY_MS} ms latency, gateway defaults; the plain page viewed every ${VIEW_INTERVAL_MS / 1000} s on another fresh key at the same time; then ${ROUNDS * PER_ROUND} live queries of the cached counter opened and closed, ${PER_ROUND} at a time over ${SOCKETS} WebSockets`,
          firstResultMs: liveResults[0] === undefined ? null : round(liveResults[0].ms, 1),
          firstResultErrors: liveResults[0]?.errors ?? null,
          completeSeconds: completeSeconds === null ? null : round(completeSeconds, 1),
          plainCompleteSeconds: plainCompleteMs === null ? null : round(plainCompleteMs / 1000, 1),
          floorSeconds,
          completeVsFloor: completeVsFloor === null ? null : round(completeVsFloor, 2),
          resultsSent: liveResults.length,
          resultTimesSeconds: liveResults.map((entry) => round(entry.ms / 1000, 1)),
          upstreamRequests: liveRequests.length,
          plainUpstreamRequests: plainRequests.length,
          upstreamVsPlain: upstreamVsPlain === null ? null : round(upstreamVsPlain, 2),
          upstream429,
          memory: {
            liveQueriesOpenedAndClosed: opened,
            firstResults,
            refusals,
            stalledRound,
            activeAfter,
            rssBeforeMb: rssBeforeMb === null ? null : round(rssBeforeMb, 1),
            rssAfterRoundMb: rssAfterRoundMb.map((value) => (value === null ? null : round(value, 1))),
            peakRssMb,
            heapAfterGcBeforeMb: heapBeforeMb === null ? null : round(heapBeforeMb, 1),
            heapAfterGcRoundMb: heapAfterRoundMb.map((value) => (value === null ? null : round(value, 1))),
            heapLastRoundVsFirst: heapGrowth === null ? null : round(heapGrowth, 3),
            lastRoundVsFirst: rssGrowth === null ? null : round(rssGrowth, 3),
          },
          targets: {
            completeWithin115PercentOfFloor: completeVsFloor !== null && completeVsFloor <= 1.15,
            upstreamEqualsPlain: upstreamVsPlain === 1,
            zeroUpstream429: upstream429 === 0,
            heapFlat: heapGrowth !== null && heapGrowth <= 1.1,
          },
        };
        log(
          `live-page: first result ${result.firstResultMs ?? '-'} ms (${result.firstResultErrors ?? '-'} errors), complete after ${result.completeSeconds ?? '-'} s (floor ${floorSeconds} s; plain loop ${result.plainCompleteSeconds ?? '-'} s), ${liveResults.length} results, upstream ${liveRequests.length} vs plain ${plainRequests.length}, ${upstream429} 429s; ${opened} live queries opened and closed: RSS ${result.memory.rssBeforeMb ?? '-'} MB before, ${result.memory.rssAfterRoundMb.join('/')} MB after each round, peak ${peakRssMb ?? '-'} MB; heap after GC ${result.memory.heapAfterGcBeforeMb ?? '-'} MB before, ${result.memory.heapAfterGcRoundMb.join('/')} MB after each round`,
        );
        bench.record('live-page', result);
      } finally {
        await Promise.all(clients.map((client) => client.dispose()));
        await bench.stopServer(gateway);
      }
    } finally {
      await stopService(sim);
    }
    await measureLiveRerun(bench);
  },
};
