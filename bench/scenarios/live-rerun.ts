import { join } from 'node:path';
import { createClient } from 'graphql-ws';
import type { Client } from 'graphql-ws';
import WebSocket from 'ws';
import { FIXTURE_IDS } from '../../src/simulator';
import type { Bench } from '../lib/bench';
import { log, PREMIUM_KEY, ROOT, round } from '../lib/bench';
import { cpuTimeMs } from '../lib/cpu';
import { graphqlHeaders, postGraphQL } from '../lib/http';
import { HOST, startService, stopService } from '../lib/processes';
import { companyPage } from './rate-limited';

/** Live queries of the page open at once (each under its own operation name, so none shares another's execution). */
const QUERIES = 20;
/** The counter item whose price each change sets. */
const ITEM = 'Wasser';
/** A plain read of the counter by the key's holder, bypassing the cache: it stores the new price (and so re-runs the live queries). */
const FRESH_COUNTER = 'query FreshCounter($id: ID!) { factory(id: $id) { counter { items { item price } } } }';
/** Unmeasured changes before the measured ones (the plain phase's warm-up runs as many executions). */
const WARM_UP_CHANGES = 5;
/** Plain executions of the page in flight at once in the plain phase. */
const PLAIN_CONCURRENCY = 4;

/** The figures of the re-run measurement (recorded as `live-page-rerun`). */
interface RerunResult {
  ok: boolean;
  description: string;
  liveQueries: number;
  changes: number;
  reRuns: number;
  plainExecutions: number;
  /** Gateway CPU of the change phase with the live queries open, ms. */
  changePhaseCpuMs: number | null;
  /** Gateway CPU of the same changes with no live query open (the trigger reads alone), ms. */
  triggerOnlyCpuMs: number | null;
  /** (change phase − trigger reads alone) / re-runs, ms. */
  rerunCpuMs: number | null;
  /** Gateway CPU per plain execution of the same document over HTTP (no response cache, warm upstream cache), ms. */
  plainCpuMs: number | null;
  /** {@link rerunCpuMs} / {@link plainCpuMs}: target at most 1.2. */
  rerunVsPlainCpu: number | null;
}

/** The counter price of {@link ITEM} in a page result, or null. */
function priceIn(data: unknown): number | null {
  const items = (
    data as { factory?: { counter?: { items?: Array<{ item: string; price: number }> } | null } | null } | null
  )?.factory?.counter?.items;
  return items?.find((entry) => entry.item === ITEM)?.price ?? null;
}

/** Sets the counter price of {@link ITEM} on the simulator. */
async function changePrice(simOrigin: string, price: number): Promise<void> {
  const response = await fetch(`${simOrigin}/__sim/change`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ kind: 'counter', factoryId: FIXTURE_IDS.shop, item: ITEM, price }),
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok) throw new Error(`live-page-rerun: the simulator refused the price change (${response.status})`);
}

/**
 * The re-run cost of a live query, measured after the live page: what one live query's
 * re-run after one changed resource costs the gateway in CPU, against a plain execution of
 * the same document. On a simulator and a gateway of its own (no rate limit, no latency,
 * `RESPONSE_CACHE_ENABLED=false` so that every plain request executes, as in
 * warm-no-response-cache, `LIVE_QUERY_THROTTLE_MS=0`), so that every read is a fresh cache
 * hit on both sides, on one process and one key:
 * 1. the company page is read once (cached), then {@link QUERIES} live queries of it are
 *    opened on one key, each under an operation name of its own (identical live operations
 *    of a key share one execution), and their first results awaited;
 * 2. `changes` times: a new counter price on the simulator, then the key holder's
 *    `no-cache` read of the counter, which stores it and re-runs every live query; the
 *    next change waits until all have sent the new price. The gateway's CPU over these is
 *    the phase's; one change first, unmeasured, warms the re-run path;
 * 3. the live queries closed, the same changes and reads again: the trigger reads' own CPU,
 *    taken off the phase's (the re-runs' CPU = difference / re-runs);
 * 4. the same document (without `@live`) executed as a plain query over HTTP as many times
 *    as there were re-runs (a `no-cache` request would skip the warm upstream cache too):
 *    only execution over the cached answers, as in a re-run.
 */
export async function measureLiveRerun(bench: Bench): Promise<void> {
  const changes = bench.args.quick ? 10 : 30;
  const simPort = await bench.allocatePort('simulator-live-rerun');
  const sim = await startService({
    name: 'simulator-live-rerun',
    args: [
      join(ROOT, 'dist', 'src', 'simulator', 'main.js'),
      '--port',
      String(simPort),
      '--host',
      HOST,
      '--latency',
      '0',
      '--rate-limit',
      'off',
    ],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'production' },
    cwd: ROOT,
    port: simPort,
    ready: /^http:\/\/\S+\/req$/m,
  });
  try {
    const gateway = await bench.startGateway(
      'gateway-live-rerun',
      {
        STATEV_BASE_URL: `${sim.origin}/req`,
        // Every plain request executes (as in warm-no-response-cache); live queries never use that cache.
        RESPONSE_CACHE_ENABLED: 'false',
        LIVE_QUERY_THROTTLE_MS: '0',
        SUBSCRIPTIONS_MAX_PER_KEY: String(QUERIES),
        SUBSCRIPTIONS_MAX_PER_CONNECTION: String(QUERIES),
      },
      { pinned: true },
    );
    const client: Client = createClient({
      url: `${gateway.origin.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${PREMIUM_KEY}` },
      retryAttempts: 0,
    });
    try {
      const query = companyPage();
      const url = `${gateway.origin}/graphql`;
      const page = await postGraphQL(
        url,
        JSON.stringify({ query, variables: { id: FIXTURE_IDS.shop } }),
        graphqlHeaders(PREMIUM_KEY, false),
      );
      let price = priceIn(page.json.data);
      if (page.status !== 200 || page.json.errors !== undefined || price === null)
        throw new Error(`live-page-rerun: the page's first read failed (${page.status})`);

      // The live queries; `prices` holds each one's latest counter price.
      const prices: Array<number | null> = Array.from({ length: QUERIES }, () => null);
      let waiter: { want: number; resolve: () => void } | null = null;
      const check = (): void => {
        if (waiter && prices.every((value) => value === waiter?.want)) waiter.resolve();
      };
      const stops = prices.map((_, index) =>
        client.subscribe(
          // Its own operation name: identical live operations of a key would share one execution.
          {
            query: query.replace('query CompanyPage($id: ID!)', `query CompanyPageLive${index}($id: ID!) @live`),
            variables: { id: FIXTURE_IDS.shop },
          },
          {
            next: (result) => {
              prices[index] = result.errors === undefined ? priceIn(result.data) : null;
              check();
            },
            error: () => undefined,
            complete: () => undefined,
          },
        ),
      );
      /** Resolves once every live query has sent `want` (false after 20 s). */
      const allAt = (want: number): Promise<boolean> =>
        new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), 20_000);
          waiter = {
            want,
            resolve: () => {
              clearTimeout(timer);
              waiter = null;
              resolve(true);
            },
          };
          check();
        });
      const counterBody = JSON.stringify({ query: FRESH_COUNTER, variables: { id: FIXTURE_IDS.shop } });
      const change = async (): Promise<number> => {
        price = round(price === null ? 5 : price + 0.01, 2);
        await changePrice(sim.origin, price);
        await postGraphQL(url, counterBody, graphqlHeaders(PREMIUM_KEY, true), 10_000);
        return price;
      };

      let ok = await allAt(price);
      // Unmeasured changes first: each live document is compiled on its second run, and V8 optimizes what it runs often.
      for (let i = 0; i < WARM_UP_CHANGES && ok; i += 1) ok = await allAt(await change());
      const phaseBefore = cpuTimeMs(gateway.pid);
      for (let i = 0; i < changes && ok; i += 1) ok = await allAt(await change());
      const phaseAfter = cpuTimeMs(gateway.pid);
      for (const stop of stops) stop();

      // The trigger reads alone (no live query open): their CPU is taken off the phase's.
      await change();
      const triggerBefore = cpuTimeMs(gateway.pid);
      for (let i = 0; i < changes; i += 1) await change();
      const triggerAfter = cpuTimeMs(gateway.pid);

      // Plain executions of the same document (the gateway has no whole-response cache).
      const plainRuns = changes * QUERIES;
      const plainBody = JSON.stringify({ query, variables: { id: FIXTURE_IDS.shop } });
      let next = 0;
      let plainErrors = 0;
      const plainOne = async (): Promise<void> => {
        next += 1;
        const reply = await postGraphQL(url, plainBody, graphqlHeaders(PREMIUM_KEY, false));
        if (reply.status !== 200 || reply.json.errors !== undefined || priceIn(reply.json.data) !== price) {
          plainErrors += 1;
          if (plainErrors === 1)
            log(
              `live-page-rerun: a plain execution failed: ${reply.status} ${JSON.stringify(reply.json.errors ?? priceIn(reply.json.data)).slice(0, 300)}`,
            );
        }
      };
      const plainLoop = async (runs: number): Promise<void> => {
        const worker = async (): Promise<void> => {
          while (next < runs) await plainOne();
        };
        await Promise.all(Array.from({ length: PLAIN_CONCURRENCY }, worker));
      };
      // A warm-up as long as the live phase's (the second execution compiles the document).
      await plainLoop(WARM_UP_CHANGES * QUERIES);
      next = 0;
      const plainBefore = cpuTimeMs(gateway.pid);
      await plainLoop(plainRuns);
      const plainAfter = cpuTimeMs(gateway.pid);

      const reRuns = changes * QUERIES;
      const changePhaseCpuMs = phaseBefore === null || phaseAfter === null ? null : phaseAfter - phaseBefore;
      const triggerOnlyCpuMs = triggerBefore === null || triggerAfter === null ? null : triggerAfter - triggerBefore;
      const rerunCpuMs =
        changePhaseCpuMs === null || triggerOnlyCpuMs === null
          ? null
          : Math.max(0, changePhaseCpuMs - triggerOnlyCpuMs) / reRuns;
      const plainCpuMs = plainBefore === null || plainAfter === null ? null : (plainAfter - plainBefore) / plainRuns;
      const result: RerunResult = {
        ok: ok && plainErrors === 0,
        description: `${QUERIES} live queries of the company page (graphql-ws, each under its own operation name), ${changes} counter price changes each stored by a no-cache read and awaited in every live query (${WARM_UP_CHANGES} more first, unmeasured); the trigger reads' CPU measured alone and taken off; then ${plainRuns} plain executions of the same document over HTTP (${PLAIN_CONCURRENCY} at a time, warm upstream cache); own simulator (no rate limit, no latency) and gateway (RESPONSE_CACHE_ENABLED=false, LIVE_QUERY_THROTTLE_MS=0)`,
        liveQueries: QUERIES,
        changes,
        reRuns,
        plainExecutions: plainRuns,
        changePhaseCpuMs,
        triggerOnlyCpuMs,
        rerunCpuMs: rerunCpuMs === null ? null : round(rerunCpuMs, 3),
        plainCpuMs: plainCpuMs === null ? null : round(plainCpuMs, 3),
        rerunVsPlainCpu: rerunCpuMs === null || !plainCpuMs ? null : round(rerunCpuMs / plainCpuMs, 2),
      };
      log(
        `live-page-rerun: ${reRuns} re-runs: ${result.rerunCpuMs ?? '-'} ms CPU each (phase ${changePhaseCpuMs ?? '-'} ms, trigger reads alone ${triggerOnlyCpuMs ?? '-'} ms); plain execution ${result.plainCpuMs ?? '-'} ms CPU each; ratio ${result.rerunVsPlainCpu ?? '-'}${ok ? '' : ' (a change did not reach every live query)'}${plainErrors > 0 ? `, ${plainErrors} plain errors` : ''}`,
      );
      bench.record('live-page-rerun', result);
    } finally {
      await client.dispose();
      await bench.stopServer(gateway);
    }
  } finally {
    await stopService(sim);
  }
}
