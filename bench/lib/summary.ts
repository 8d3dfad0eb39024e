/**
 * The summary `npm run bench` prints: machine, settings, the dashboard's analysis, every
 * recorded result, the ratios with their targets, the peer comparison, and
 * `allScenariosOk` (which .ci/run checks).
 */
import { execFileSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import type { LoadScenarioResult } from './measure';
import type { Bench, ScenarioRecord } from './bench';
import { ROOT, round } from './bench';
import type { ReplicasResult } from '../scenarios/replicas';
import { dashboardAnalysis } from '../scenarios/shared';

/** Dependent upstream round trips on the dashboard's critical path (see bench/queries/dashboard.graphql). */
const CRITICAL_PATH_ROUND_TRIPS = 3;
/** The generic peer's warm dashboard throughput at 10 connections (GraphQL Mesh on Hive Gateway, per-key response cache). */
const PEER = {
  name: 'GraphQL Mesh served by Hive Gateway, per-key response cache',
  rpsRange: [2400, 3300] as const,
  connections: 10,
};

/** One ratio with its target. */
interface Ratio {
  value: number | null;
  target: string;
  pass: boolean | null;
  how: string;
}

function ran(result: ScenarioRecord | undefined): result is { readonly ok: boolean } {
  return result !== undefined && !('skipped' in result);
}

function loadResult(bench: Bench, name: string): LoadScenarioResult | undefined {
  const result = bench.results.get(name);
  return ran(result) && 'rps' in result && 'upstreamPerOp' in result ? (result as LoadScenarioResult) : undefined;
}

function firstViewUpstreamPerOp(bench: Bench, name: string): number | null {
  const result = bench.results.get(name);
  return ran(result) && 'firstViews' in result ? (result as ReplicasResult).firstViews.upstreamPerOp : null;
}

function ratio(value: number | null, target: string, pass: (v: number) => boolean, how: string): Ratio {
  return {
    value: value === null || !Number.isFinite(value) ? null : round(value, 2),
    target,
    pass: value === null || !Number.isFinite(value) ? null : pass(round(value, 2)),
    how,
  };
}

/** A figure reported beside the ratios but never judged (`pass` null, left out of `allTargetsMet`). */
function informational(value: number | null, target: string, how: string): Ratio {
  return { value: value === null || !Number.isFinite(value) ? null : round(value, 2), target, pass: null, how };
}

function ratios(bench: Bench, distinct: number | null): Record<string, Ratio> {
  const s = (name: string): LoadScenarioResult | undefined => loadResult(bench, name);
  const latency = bench.args.latencyMs;
  const div = (a: number | null | undefined, b: number | null | undefined): number | null =>
    a === null || a === undefined || !b ? null : a / b;
  return {
    executionVsExecutionFloorCpu: ratio(
      div(s('warm-no-response-cache')?.serverCpuMsPerRequest, s('execution-floor')?.serverCpuMsPerRequest),
      '<= 1.2',
      (v) => v <= 1.2,
      'warm-no-response-cache server CPU per request / execution-floor server CPU per request (both 50 connections; same answer data)',
    ),
    warmVsNoResponseCacheCpu: ratio(
      div(s('warm')?.serverCpuMsPerRequest, s('warm-no-response-cache')?.serverCpuMsPerRequest),
      '<= 0.5',
      (v) => v <= 0.5,
      'warm (response cache) server CPU per request / warm-no-response-cache server CPU per request',
    ),
    warm10cVsNoResponseCache10cRps: ratio(
      div(s('warm-10c')?.rps, s('warm-no-response-cache-10c')?.rps),
      '>= 2',
      (v) => v >= 2,
      'warm-10c rps / warm-no-response-cache-10c rps (both 10 connections)',
    ),
    warmNoResponseCacheP99Ms: ratio(
      s('warm-no-response-cache')?.latencyMs.p99 ?? null,
      '< 100',
      (v) => v < 100,
      'warm-no-response-cache p99 latency at 50 connections, ms',
    ),
    warmVsFloor: ratio(
      div(s('warm')?.rps, s('floor')?.rps),
      '>= 0.85',
      (v) => v >= 0.85,
      'warm rps / floor rps (both 50 connections)',
    ),
    // Side by side in one run (bench/scenarios/peer.ts): a response-cache hit against the peer's and the physical floor's.
    warmVsPeerCpu: ratio(
      div(s('warm-peer-query')?.serverCpuMsPerRequest, s('peer')?.serverCpuMsPerRequest),
      '<= 0.5',
      (v) => v <= 0.5,
      'warm-peer-query server CPU per request / peer (Hive Gateway + Mesh, per-key response cache) server CPU per request (both 10 connections, the same operation)',
    ),
    warmVsBytesFloorCpu: ratio(
      div(s('warm-peer-query')?.serverCpuMsPerRequest, s('bytes-floor')?.serverCpuMsPerRequest),
      '<= 2',
      (v) => v <= 2,
      'warm-peer-query server CPU per request / bytes-floor (node:http answering the stored bytes) server CPU per request (both 10 connections)',
    ),
    // Access tokens on the warm path: the token lookup and the grants step cost at most 5 % of warm throughput.
    warmTokenVsWarmRps: ratio(
      div(s('warm-token')?.rps, s('warm')?.rps),
      '>= 0.95',
      (v) => v >= 0.95,
      'warm-token rps / warm rps (both 50 connections; the token at most 5 % slower)',
    ),
    warmTokenVsWarmKeyRps: informational(
      div(s('warm-token')?.rps, s('warm-token-key')?.rps),
      '>= 0.95',
      'warm-token rps / warm-token-key rps: token against key on the same gateway with a vault, back to back (the token cost alone)',
    ),
    warmTokenVsWarmKeyCpu: informational(
      div(s('warm-token')?.serverCpuMsPerRequest, s('warm-token-key')?.serverCpuMsPerRequest),
      '<= 1.05',
      'warm-token server CPU per request / warm-token-key server CPU per request (same gateway)',
    ),
    coldUpstreamPerOpVsDistinct: ratio(
      div(s('cold')?.upstreamPerOp, distinct),
      '= 1.00',
      (v) => v === 1,
      'cold upstream requests per operation / distinct upstream paths of one no-cache dashboard run',
    ),
    warmUpstreamPerOp: ratio(
      s('warm')?.upstreamPerOp ?? null,
      '= 0',
      (v) => v === 0,
      'upstream requests during warm / operations',
    ),
    naiveVsGatewayUpstream: ratio(
      div(s('naive')?.upstreamPerOp, s('cold')?.upstreamPerOp),
      '>= 1.00 (informational: what loaders and cache save on a cold run)',
      (v) => v >= 1,
      'naive upstream requests per operation / cold upstream requests per operation',
    ),
    coldP50VsCriticalPath: ratio(
      latency > 0 ? div(s('cold')?.latencyMs.p50, CRITICAL_PATH_ROUND_TRIPS * latency) : null,
      '<= 1.3',
      (v) => v <= 1.3,
      `cold p50 / (${CRITICAL_PATH_ROUND_TRIPS} dependent upstream round trips x ${latency} ms added latency)`,
    ),
    manyKeysPeakRssMb: ratio(
      s('many-keys')?.peakRssMb ?? null,
      '<= 200',
      (v) => v <= 200,
      'peak RSS of the fresh many-keys gateway process (fill + warm-up + measurement), MB',
    ),
    replicasRedisVsNoRedisUpstream: ratio(
      div(firstViewUpstreamPerOp(bench, 'replicas-redis'), firstViewUpstreamPerOp(bench, 'replicas-no-redis')),
      '<= 0.55 (about half: replica B reads what A fetched)',
      (v) => v <= 0.55,
      'replicas-redis first-view upstream requests per operation / replicas-no-redis (two replicas, each key viewed on A then on B)',
    ),
    distinctDocumentsHeapGrowthMb: ratio(
      (bench.results.get('distinct-documents') as { heapGrowthMb?: number | null } | undefined)?.heapGrowthMb ?? null,
      '<= 50',
      (v) => v <= 50,
      'distinct-documents: heap floor at the end minus heap floor at the start, MB (5,000 documents with ~900 KB of undeclared variables each; --quick: 300)',
    ),
    subscriptionsUpstreamVsExpected: ratio(
      subscriptionsFigure(bench, 'upstreamRatio'),
      '<= 1.05',
      (v) => v <= 1.05,
      'subscriptions: upstream poll requests per minute / (keys x resources / interval)',
    ),
    subscriptionsLatencyP99VsInterval: ratio(
      subscriptionsFigure(bench, 'p99'),
      '<= 1.2 (informational: a change waits at most one interval for the next poll)',
      (v) => v <= 1.2,
      'subscriptions: p99 of change-to-delivery latency / polling interval',
    ),
    steadyViewsUpstreamPerMinuteVsBudget: ratio(
      steadyViewsFigure(bench, 'upstreamPerMinuteVsBudget'),
      '<= 1.00',
      (v) => v <= 1,
      "steady-views: upstream requests per minute (simulator log) / the key's budget per minute",
    ),
    steadyViewsRateLimitedAnswers: ratio(
      steadyViewsFigure(bench, 'rateLimitedAnswers'),
      '= 0',
      (v) => v === 0,
      'steady-views: RATE_LIMITED answers after the first complete view',
    ),
    steadyViewsErrors: ratio(
      steadyViewsFigure(bench, 'errors'),
      '= 0',
      (v) => v === 0,
      'steady-views: failed views (HTTP or GraphQL errors other than RATE_LIMITED)',
    ),
    steadyViewsAgeP99VsLongestWindow: ratio(
      steadyViewsFigure(bench, 'ageP99VsLongestWindow'),
      '<= 1.00',
      (v) => v <= 1,
      'steady-views: p99 of extensions.upstream.maxAgeSeconds / the longest freshness window of the page (lists)',
    ),
    ...rateLimitedRatios(bench),
    ...livePageRatios(bench),
    ...liveCrowdRatios(bench),
    ...siteDocumentRatios(bench),
    ...responsivenessRatios(bench),
  };
}

/** The ratios of scrapes and of the event-loop budget under attack (null where their scenarios did not run). */
function responsivenessRatios(bench: Bench): Record<string, Ratio> {
  const soak = bench.results.get('soak') as { scrapeLatencyMs?: { p99: number } | null } | undefined;
  const keys = bench.results.get('metrics-keys') as { keys?: number; worstIdleP99Ms?: number | null } | undefined;
  const hostile = bench.results.get('hostile') as
    | {
        worstHealthzMs?: number | null;
        worstEventLoopP99Ms?: number | null;
        attacks?: Array<{
          outcome?: { bystander?: { delayMs: number }; burst?: { perRefusalMs: number | null } } | null;
        }>;
      }
    | undefined;
  const delays = (hostile?.attacks ?? [])
    .map((attack) => attack.outcome?.bystander?.delayMs)
    .filter((delay): delay is number => delay !== undefined);
  const perRefusal = (hostile?.attacks ?? [])
    .map((attack) => attack.outcome?.burst?.perRefusalMs)
    .filter((ms): ms is number => typeof ms === 'number');
  return {
    soakScrapeP99Ms: ratio(
      soak?.scrapeLatencyMs?.p99 ?? null,
      '< 100',
      (v) => v < 100,
      'soak: p99 latency of GET /metrics, scraped every second under the mixed load over 200 keys, ms',
    ),
    metricsKeysScrapeP99Ms: ratio(
      keys?.worstIdleP99Ms ?? null,
      '< 100',
      (v) => v < 100,
      `metrics-keys: worst p99 latency of GET /metrics over the combinations of budget off/on and Redis off/on, with ${keys?.keys ?? '--scrape-keys'} keys known, ms`,
    ),
    hostileWorstHealthzMs: ratio(
      hostile?.worstHealthzMs ?? null,
      '< 100',
      (v) => v < 100,
      'hostile: worst /healthz wait (polled every 50 ms) over every attack, ms',
    ),
    hostileWorstEventLoopP99Ms: ratio(
      hostile?.worstEventLoopP99Ms ?? null,
      '< 100',
      (v) => v < 100,
      "hostile: worst of the gateway's event-loop delay p99 (monitorEventLoopDelay) over every attack, ms",
    ),
    hostileBystanderDelayMs: ratio(
      delays.length === 0 ? null : Math.max(...delays),
      '<= 50',
      (v) => v <= 50,
      "hostile: how much later another key's operation answered during a hostile upstream body than before it (worst), ms",
    ),
    hostileRefusedSubscribeMs: ratio(
      perRefusal.length === 0 ? null : Math.max(...perRefusal),
      '<= 0.05',
      (v) => v <= 0.05,
      "hostile: the gateway's main-thread (event-loop) CPU time per refused subscribe in a burst on one graphql-ws connection (worst of the bursts), ms",
    ),
    hostileSseReservationsRssGrowthMb: ratio(
      sseReservationsRssGrowthMb(hostile?.attacks),
      '<= 40',
      (v) => v <= 40,
      "hostile: the gateway's RSS growth (peak - before) over 50,000 keyless PUT /graphql/stream (graphql-sse reservations never connected), MB",
    ),
  };
}

/** The RSS growth the `sse-reservations-50000` attack of hostile reports, MB (null when it did not run). */
function sseReservationsRssGrowthMb(attacks: ReadonlyArray<{ outcome?: unknown }> | undefined): number | null {
  for (const attack of attacks ?? []) {
    const memory = (attack.outcome as { memory?: { growthMb?: number | null } } | null | undefined)?.memory;
    if (memory) return memory.growthMb ?? null;
  }
  return null;
}

/** The rate-limited scenario's ratios (all null when it did not run). */
function rateLimitedRatios(bench: Bench): Record<string, Ratio> {
  const record = bench.results.get('rate-limited') as
    | {
        completeVsFloor?: number | null;
        upstream429?: number;
        upstreamPerKeyBusiestMinute?: number;
        stream?: { errors: number };
        firstView?: { latencyVsCriticalPath: number | null };
      }
    | undefined;
  return {
    rateLimitedCompleteVsFloor: ratio(
      record?.completeVsFloor ?? null,
      '<= 1.15',
      (v) => v <= 1.15,
      'rate-limited: seconds from the first view to the first complete answer (a view every 2 s) / floor (ceil(distinct requests / 10 - 1) x 60 s)',
    ),
    rateLimitedUpstream429: ratio(
      record?.upstream429 ?? null,
      '= 0',
      (v) => v === 0,
      'rate-limited: upstream 429 answers in the simulator log',
    ),
    rateLimitedPerKeyPerMinute: ratio(
      record?.upstreamPerKeyBusiestMinute ?? null,
      '<= 10',
      (v) => v <= 10,
      'rate-limited: upstream requests of the key in its busiest 60 s',
    ),
    rateLimitedErrorsOnceComplete: ratio(
      record?.stream?.errors ?? null,
      '= 0',
      (v) => v === 0,
      'rate-limited: failed views at 300 views per minute once the page is complete',
    ),
    rateLimitedFirstViewVsCriticalPath: ratio(
      record?.firstView?.latencyVsCriticalPath ?? null,
      '<= 1.3',
      (v) => v <= 1.3,
      'rate-limited: first view latency (what the budget allows) / (3 dependent round trips x 20 ms)',
    ),
  };
}

/** The site-documents scenario's ratios (null figures when it did not run). */
function siteDocumentRatios(bench: Bench): Record<string, Ratio> {
  const record = bench.results.get('site-documents') as
    | {
        capacity?: { defaultEncodingBytes: number | null };
        firstWrite?: { writesVsMinimum: number; commitVsFloor: number | null };
        oneItemChange?: { writesVsMinimum: number; changedChunks: number };
        coldRead?: { readsVsMinimum: number | null };
        busyKey?: { lateBySeconds: number | null };
        upstream429?: number;
      }
    | undefined;
  return {
    siteDocumentsTenSlotBytes: ratio(
      record?.capacity?.defaultEncodingBytes ?? null,
      '>= 40000',
      (v) => v >= 40_000,
      "site-documents: bytes of the realistic catalogue's JSON that fit ten slots with the default encoding (deflate-base64url)",
    ),
    siteDocumentsFirstWriteVsMinimum: ratio(
      record?.firstWrite?.writesVsMinimum ?? null,
      '= 1.00',
      (v) => v === 1,
      'site-documents: upstream writes of the first write / (chunks + 1)',
    ),
    siteDocumentsFirstCommitVsFloor: ratio(
      record?.firstWrite?.commitVsFloor ?? null,
      '<= 1.15',
      (v) => v <= 1.15,
      'site-documents: seconds to the committed first write / floor (ceil((reads + writes) / 10 - 1) x 60 s)',
    ),
    siteDocumentsOneItemChangeVsMinimum: ratio(
      record?.oneItemChange?.writesVsMinimum ?? null,
      '= 1.00',
      (v) => v === 1,
      'site-documents: upstream writes of a one-item change / (changed chunks + 1); the commit is the last write (the replaced chunks are freed by it, not written)',
    ),
    siteDocumentsOneItemChangeChunks: ratio(
      record?.oneItemChange?.changedChunks ?? null,
      '= 1',
      (v) => v === 1,
      'site-documents: chunks a one-item change rewrites',
    ),
    siteDocumentsColdReadVsMinimum: ratio(
      record?.coldRead?.readsVsMinimum ?? null,
      '= 1.00',
      (v) => v === 1,
      'site-documents: upstream reads of a cold read / (committing slot + chunks)',
    ),
    siteDocumentsBusyKeyLateBySeconds: ratio(
      record?.busyKey?.lateBySeconds ?? null,
      'within ±5',
      (v) => Math.abs(v) <= 5,
      "site-documents: seconds the busy key's one-item change (right after a page view) committed after the retryAfterSeconds its answer promised (negative: earlier)",
    ),
    siteDocumentsUpstream429: ratio(
      record?.upstream429 ?? null,
      '= 0',
      (v) => v === 0,
      'site-documents: upstream 429 answers in the simulator log',
    ),
  };
}

/** A figure of the steady-views scenario's record, or null when it did not run. */
function steadyViewsFigure(
  bench: Bench,
  figure: 'upstreamPerMinuteVsBudget' | 'rateLimitedAnswers' | 'errors' | 'ageP99VsLongestWindow',
): number | null {
  const record = bench.results.get('steady-views') as Partial<Record<typeof figure, number | null>> | undefined;
  return record?.[figure] ?? null;
}

/** A figure of the subscriptions scenario's record, or null when it did not run. */
function subscriptionsFigure(bench: Bench, figure: 'upstreamRatio' | 'p99'): number | null {
  const record = bench.results.get('subscriptions') as
    { upstreamRatio?: number; latencyToInterval?: { p99: number | null } } | undefined;
  if (!record) return null;
  return figure === 'upstreamRatio' ? (record.upstreamRatio ?? null) : (record.latencyToInterval?.p99 ?? null);
}

function machine(): Record<string, unknown> {
  const cpuList = cpus();
  let commit: string | null = null;
  let dirty: boolean | null = null;
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    dirty =
      execFileSync('git', ['status', '--porcelain'], {
        cwd: ROOT,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim() !== '';
  } catch {
    // not a git checkout
  }
  return {
    cpuModel: cpuList[0]?.model ?? 'unknown',
    cores: cpuList.length,
    nodeVersion: process.version,
    platform: `${process.platform} ${process.arch}`,
    totalMemoryMb: Math.round(totalmem() / 1024 / 1024),
    commit,
    dirty,
  };
}

/** The summary of a finished run. */
export function buildSummary(
  bench: Bench,
  startedAt: number,
): Record<string, unknown> & { allScenariosOk: boolean; totalSeconds: number } {
  const { args } = bench;
  const analysis = dashboardAnalysis(bench);
  const summaryRatios = ratios(bench, analysis?.distinct ?? null);
  const warm10c = loadResult(bench, 'warm-10c')?.rps ?? null;
  const peer = {
    ...PEER,
    warm10cRps: warm10c,
    position:
      warm10c === null ? null : warm10c > PEER.rpsRange[1] ? 'above' : warm10c >= PEER.rpsRange[0] ? 'within' : 'below',
    beatsPeer: warm10c === null ? null : warm10c > PEER.rpsRange[1],
    measured: {
      peerCpuMsPerRequest: loadResult(bench, 'peer')?.serverCpuMsPerRequest ?? null,
      peerRps: loadResult(bench, 'peer')?.rps ?? null,
      gatewayCpuMsPerRequest: loadResult(bench, 'warm-peer-query')?.serverCpuMsPerRequest ?? null,
      bytesFloorCpuMsPerRequest: loadResult(bench, 'bytes-floor')?.serverCpuMsPerRequest ?? null,
    },
  };
  const judged = Object.values(summaryRatios).filter((r) => r.pass !== null);
  const results = [...bench.results.values()];
  return {
    generatedAt: new Date().toISOString(),
    totalSeconds: round((Date.now() - startedAt) / 1000, 1),
    machine: machine(),
    settings: {
      latencyMs: args.latencyMs,
      quick: args.quick,
      durationSeconds: args.durationSeconds,
      warmupSeconds: args.warmupSeconds,
      manyKeys: args.manyKeys,
      replicaKeys: args.replicaKeys,
      fillConcurrency: args.fillConcurrency,
      gatewayEnv: args.gatewayEnv,
      gatewayRoot: args.gatewayRoot,
      scenarios: bench.selected.map((scenario) => scenario.name),
    },
    dashboard: analysis && {
      query: 'bench/queries/dashboard.graphql',
      upstreamRequestsWithoutCache: analysis.total,
      distinctUpstreamResources: analysis.distinct,
      criticalPathRoundTrips: CRITICAL_PATH_ROUND_TRIPS,
      responseBytes: analysis.responseBytes,
    },
    scenarios: Object.fromEntries(bench.results),
    ratios: summaryRatios,
    peer,
    // A skipped result (e.g. no redis-server) is not a failure.
    allScenariosOk: results.filter(ran).every((result) => result.ok),
    allTargetsMet: judged.length > 0 && judged.every((r) => r.pass === true),
    ...(bench.profiles.length > 0 ? { profiles: bench.profiles } : {}),
  };
}

/** The live-crowd scenario's ratios (all null when it did not run). */
function liveCrowdRatios(bench: Bench): Record<string, Ratio> {
  const record = bench.results.get('live-crowd') as
    | {
        visitors?: number;
        completePage?: { visitors: number };
        crowdUpstreamVsOneVisitor?: number | null;
        rssGrowthMb?: number | null;
        change?: { lastMs: number | null; reachedVisitors: number };
      }
    | undefined;
  const share = (part: number | undefined): number | null =>
    record?.visitors && part !== undefined ? part / record.visitors : null;
  return {
    liveCrowdCompletePageShare: ratio(
      share(record?.completePage?.visitors),
      '= 1',
      (v) => v === 1,
      'live-crowd: visitors that got the complete live page / 1,000',
    ),
    liveCrowdUpstreamVsOneVisitor: ratio(
      record?.crowdUpstreamVsOneVisitor ?? null,
      '<= 1',
      (v) => v <= 1,
      "live-crowd: upstream requests of 1,000 visitors' key / of one visitor's (another gateway, same page)",
    ),
    liveCrowdRssGrowthMb: ratio(
      record?.rssGrowthMb ?? null,
      '<= 100',
      (v) => v <= 100,
      'live-crowd: gateway peak RSS while 1,000 visitors connect and get the page - RSS before, MB',
    ),
    liveCrowdChangeReachedShare: ratio(
      share(record?.change?.reachedVisitors),
      '= 1',
      (v) => v === 1,
      'live-crowd: visitors that got the changed price / 1,000',
    ),
    liveCrowdChangeLastMs: ratio(
      record?.change?.lastMs ?? null,
      '<= 1000',
      (v) => v <= 1000,
      'live-crowd: ms from the simulator receiving the first counter request after a price change to the last visitor getting the new price',
    ),
  };
}

/** The live-page scenario's ratios (all null when it did not run). */
function livePageRatios(bench: Bench): Record<string, Ratio> {
  const record = bench.results.get('live-page') as
    | {
        completeVsFloor?: number | null;
        upstreamVsPlain?: number | null;
        upstream429?: number;
        memory?: { lastRoundVsFirst: number | null; heapLastRoundVsFirst?: number | null };
      }
    | undefined;
  const rerun = bench.results.get('live-page-rerun') as
    { rerunVsPlainCpu?: number | null; rerunCpuMs?: number | null; plainCpuMs?: number | null } | undefined;
  return {
    livePageCompleteVsFloor: ratio(
      record?.completeVsFloor ?? null,
      '<= 1.15',
      (v) => v <= 1.15,
      'live-page: seconds to the complete live result / floor (ceil(distinct requests / 10 - 1) x 60 s)',
    ),
    livePageUpstreamVsPlain: ratio(
      record?.upstreamVsPlain ?? null,
      '= 1',
      (v) => v === 1,
      'live-page: upstream requests of the live page / of the same page as a plain query viewed until complete',
    ),
    livePageUpstream429: ratio(
      record?.upstream429 ?? null,
      '= 0',
      (v) => v === 0,
      'live-page: upstream 429 answers in the simulator log',
    ),
    livePageHeapAfterGcLastVsFirstRound: ratio(
      record?.memory?.heapLastRoundVsFirst ?? null,
      '<= 1.10',
      (v) => v <= 1.1,
      'live-page: gateway heap used after a full GC, after the 10th round of 1,000 live queries opened and closed / after the 1st',
    ),
    livePageRerunVsPlainCpu: ratio(
      rerun?.rerunVsPlainCpu ?? null,
      '<= 1.2',
      (v) => v <= 1.2,
      'live-page-rerun: gateway CPU per live-query re-run after one changed resource / per plain execution of the same document over HTTP (no response cache, warm upstream cache, same process and key)',
    ),
    livePageRerunCpuMs: informational(
      rerun?.rerunCpuMs ?? null,
      'informational (ms)',
      'live-page-rerun: gateway CPU per live-query re-run of the company page, ms',
    ),
    livePagePlainCpuMs: informational(
      rerun?.plainCpuMs ?? null,
      'informational (ms)',
      'live-page-rerun: gateway CPU per plain execution of the company page, ms',
    ),
    // RSS also holds heap pages V8 and the allocator keep after a collection: reported, not judged.
    livePageRssLastVsFirstRound: informational(
      record?.memory?.lastRoundVsFirst ?? null,
      'informational (the heap after GC is the target)',
      'live-page: gateway RSS after the 10th round of 1,000 live queries opened and closed / after the 1st',
    ),
  };
}
