/**
 * `npm run bench`: the gateway's benchmark (see bench/README.md).
 *
 * Starts the StateV simulator (fixed added latency per upstream request) and the
 * gateway as separate processes (for the replicas group: two gateway pairs, the second
 * sharing a redis-server of its own), drives them with autocannon, and prints ONE JSON
 * summary on stdout (progress goes to stderr), also written to bench/results/latest.json.
 * Every child process is stopped on exit, on errors and on Ctrl-C.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { projectRoot } from '../src/project-root';
import { parseArgs, SCENARIO_NAMES, USAGE } from './lib/args';
import type { BenchArgs, ScenarioName } from './lib/args';
import { assertSuccess, difference, gatewayCounters, gatewayOperations, graphqlHeaders, postGraphQL, simRequests, simReset, sleep, total } from './lib/http';
import type { GatewayCounters, GraphQLReply } from './lib/http';
import { runLoad, stopActiveLoad, summarizeLatencies } from './lib/load';
import type { LoadOptions, LoadResult } from './lib/load';
import { assertPortFree, freePort, HOST, killAllNow, startService, stopAll, stopService } from './lib/processes';
import type { Service } from './lib/processes';
import { summarizeProfile } from './lib/profile';
import type { ProfileSummary } from './lib/profile';
import { findRedisServer, redisServerVersion, redisStats, startRedis } from './lib/redis';
import type { RedisStats } from './lib/redis';
import { currentRssMb, RssSampler } from './lib/rss';

const ROOT = projectRoot();
const RESULTS = join(ROOT, 'bench', 'results');
const PREMIUM_KEY = 'demo-premium-key';
/** Dependent upstream round trips on the dashboard's critical path (see bench/queries/dashboard.graphql). */
const CRITICAL_PATH_ROUND_TRIPS = 3;
/** The generic peer's warm dashboard throughput at 10 connections (GraphQL Mesh on Hive Gateway, per-key response cache). */
const PEER = { name: 'GraphQL Mesh served by Hive Gateway, per-key response cache', rpsRange: [2400, 3300] as const, connections: 10 };
/** Keys of the cold-style scenarios: one per connection, never used elsewhere. */
const coldKey = (connection: number): string => `sim-key-${900_001 + connection}`;
/** Keys of the many-keys scenario. */
const manyKey = (index: number): string => `sim-key-${index + 1}`;
/** Keys of the replicas scenarios: fresh, used by no other scenario (the same K keys in both halves). */
const replicaKey = (index: number): string => `sim-key-${800_001 + index}`;
/** Connections of each replica's autocannon during the replicas load phase. */
const REPLICA_CONNECTIONS = 25;

/** What the summary says about one scenario. */
interface ScenarioResult {
  description: string;
  server: string;
  query: 'dashboard' | 'small';
  connections: number;
  keys: string;
  cacheControl: 'no-cache' | null;
  durationSeconds: number;
  requests: number;
  rps: number;
  latencyMs: LoadResult['latencyMs'];
  /** Upstream requests the simulator logged during the measurement. */
  upstreamRequests: number | null;
  /** Operations the gateway finished during the measurement (its own counter, in-flight ones included). */
  operations: number | null;
  upstreamPerOp: number | null;
  peakRssMb: number | null;
  /** Gateway operations by outcome during the measurement. */
  outcomes: Record<string, number> | null;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** True when every response was a 2xx and every operation a success. */
  ok: boolean;
  /** many-keys: filling the caches with each key's first (cold) operation. */
  fill?: { keys: number; seconds: number; operationsPerSecond: number; upstreamRequests: number; upstreamPerKey: number; rssAfterFillMb: number | null };
}

/** The two halves of the replicas group, as named in the summary's `scenarios`. */
type ReplicaScenario = 'replicas-no-redis' | 'replicas-redis';

/** One value per replica: A answers each key's first view first, B second. */
interface ReplicaPair<T> {
  a: T;
  b: T;
}

/** Latency of single requests, ms. */
interface Percentiles {
  p50: number;
  p99: number;
  max: number;
}

/** What the summary says about one half of the replicas group. */
interface ReplicasResult {
  description: string;
  servers: ReplicaPair<string>;
  /** Environment both replicas share beyond the defaults (the secret is not printed). */
  settings: Record<string, string>;
  query: 'dashboard';
  keys: string;
  /** Phase 1: each key's dashboard once on A, then once on B. */
  firstViews: {
    keys: number;
    /** Keys viewed at once (`--fill-concurrency`). */
    concurrency: number;
    seconds: number;
    operations: number;
    /** Upstream requests the simulator logged during phase 1. */
    upstreamRequests: number;
    upstreamPerOp: number | null;
    /** Upstream requests each replica sent (its own `statev_upstream_requests_total`). */
    upstreamByReplica: ReplicaPair<number>;
    latencyMs: ReplicaPair<Percentiles>;
    /** Keys whose `data` on B is not byte-for-byte the `data` A answered. */
    answersDifferFromA: number;
    failures: number;
    firstFailure: string | null;
    outcomes: Record<string, number>;
  };
  /** Phase 2: autocannon on both replicas at once, the same keys rotating per request. */
  connections: number;
  connectionsPerReplica: number;
  durationSeconds: number;
  requests: number;
  /** Both replicas together. */
  rps: number;
  /** Of all responses of both replicas. */
  latencyMs: LoadResult['latencyMs'];
  perReplica: ReplicaPair<{ requests: number; rps: number; latencyMs: LoadResult['latencyMs'] }>;
  /** Upstream requests the simulator logged during the measured load. */
  upstreamRequests: number;
  operations: number;
  upstreamPerOp: number | null;
  upstreamByReplica: ReplicaPair<number>;
  /** Each replica over both phases (first views, warm-up, load). */
  peakRssMb: ReplicaPair<number | null>;
  /** `statev_redis_errors_total` of each replica at the end (null without Redis). */
  redisErrors: ReplicaPair<number> | null;
  redis: {
    server: string;
    version: string | null;
    prefix: string;
    keysAfterFirstViews: number;
    usedMemoryMbAfterFirstViews: number;
    /** Commands Redis processed during phase 1 (the bench's own INFO/DBSIZE left out). */
    commandsFirstViews: number;
    commandsPerOpFirstViews: number | null;
    commandsDuringLoad: number;
    peakRssMb: number | null;
  } | null;
  outcomes: Record<string, number>;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** True when every first view and every load response succeeded. */
  ok: boolean;
}

/** A half of the replicas group that could not run here (e.g. no redis-server). */
interface SkippedReplicas {
  description: string;
  skipped: string;
  note: string;
}

function ranReplicas(result: ReplicasResult | SkippedReplicas | undefined): result is ReplicasResult {
  return result !== undefined && !('skipped' in result);
}

/** One ratio with its target. */
interface Ratio {
  value: number | null;
  target: string;
  pass: boolean | null;
  how: string;
}

interface RunContext {
  args: BenchArgs;
  sim: Service;
  dashboard: string;
  small: string;
  scenarios: Partial<Record<ScenarioName, ScenarioResult>>;
  replicas: Partial<Record<ReplicaScenario, ReplicasResult | SkippedReplicas>>;
  profiles: ProfileSummary[];
  ports: PortAllocator;
}

/** Free ephemeral ports, or consecutive ports from --base-port (checked to be free). */
class PortAllocator {
  private next = 0;
  constructor(private readonly basePort: number | null) {}

  async allocate(purpose: string): Promise<number> {
    if (this.basePort === null) return freePort();
    const port = this.basePort + this.next;
    this.next += 1;
    await assertPortFree(port, purpose);
    return port;
  }
}

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

function operationBody(file: string, operationName: string): string {
  return JSON.stringify({ query: readFileSync(join(ROOT, 'bench', 'queries', file), 'utf8'), operationName });
}

function profileFlags(context: RunContext, scenarios: readonly ScenarioName[]): string[] {
  const target = context.args.profile;
  if (target === null || !scenarios.includes(target)) return [];
  return ['--cpu-prof', '--cpu-prof-dir', RESULTS, '--cpu-prof-name', `${target}.cpuprofile`];
}

/** How a scenario's own settings relate to `--gateway-env`. */
interface GatewayEnvOptions {
  /** The scenario's settings win over `--gateway-env` (what the scenario measures depends on them). */
  pinned?: boolean;
  /** Variables the process must not get, whatever `--gateway-env` says (e.g. REDIS_URL of a no-Redis replica). */
  omit?: readonly string[];
}

/** The environment of a gateway process: only what the benchmark sets (plus PATH/HOME). */
function gatewayEnvironment(context: RunContext, port: number, settings: Record<string, string>, options: GatewayEnvOptions = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    NODE_ENV: 'production',
    HOST,
    PORT: String(port),
    STATEV_BASE_URL: context.sim.origin + '/req',
    LOG_LEVEL: 'silent',
    ...settings,
    ...context.args.gatewayEnv,
    ...(options.pinned ? settings : {}),
  };
  for (const name of options.omit ?? []) delete env[name];
  return env;
}

async function startGatewayProcess(
  context: RunContext,
  name: string,
  settings: Record<string, string>,
  scenarios: readonly ScenarioName[],
  envOptions: GatewayEnvOptions = {},
): Promise<Service> {
  const port = await context.ports.allocate(name);
  const root = context.args.gatewayRoot === null ? ROOT : resolve(context.args.gatewayRoot);
  const main = join(root, 'dist', 'src', 'main.js');
  if (!existsSync(main)) throw new Error(`${main} is missing: run npm run build${context.args.gatewayRoot === null ? '' : ` in ${root}`}`);
  const shown = Object.entries(settings).map(([k, v]) => `${k}=${/SECRET/.test(k) ? '<random, same on every replica>' : v}`);
  log(`starting ${name} on port ${port}${shown.length > 0 ? ` (${shown.join(' ')})` : ''}`);
  const service = await startService({
    name,
    args: ['--enable-source-maps', ...profileFlags(context, scenarios), main],
    env: gatewayEnvironment(context, port, settings, envOptions),
    cwd: root,
    port,
    ready: /StateV GraphQL gateway on /,
  });
  const health = await fetch(`${service.origin}/healthz`, { signal: AbortSignal.timeout(5000) });
  if (!health.ok) throw new Error(`${name} answered ${health.status} on /healthz`);
  return service;
}

/** Stops a server; when it ran with --cpu-prof, summarizes the profile it wrote. */
async function stopServer(context: RunContext, service: Service, scenarios: readonly ScenarioName[]): Promise<void> {
  await stopService(service, 15_000);
  const target = context.args.profile;
  if (target === null || !scenarios.includes(target)) return;
  const file = join(RESULTS, `${target}.cpuprofile`);
  for (let i = 0; i < 50 && !existsSync(file); i += 1) await sleep(100);
  if (!existsSync(file)) throw new Error(`${service.name} did not write ${file}`);
  const summary = summarizeProfile(file);
  context.profiles.push(summary);
  log(`profile of ${target}: ${file} (${summary.idlePercent} % idle; shares below are of the busy time)`);
  log('  hottest functions (self time):');
  for (const spot of summary.self.slice(0, 15)) log(`    ${spot.percent.toFixed(1).padStart(5)} %  ${spot.name}`);
  log('  our code (inclusive time):');
  for (const spot of summary.ourCode.slice(0, 15)) log(`    ${spot.percent.toFixed(1).padStart(5)} %  ${spot.name}`);
  log('  by package / folder (self time):');
  for (const spot of summary.byOrigin.slice(0, 12)) log(`    ${spot.percent.toFixed(1).padStart(5)} %  ${spot.name}`);
}

/** Waits until the gateway has finished what was in flight: upstream log and operation count stop changing. */
async function settle(context: RunContext, gateway: Service | null): Promise<void> {
  await settleAll(context, gateway ? [gateway] : []);
}

/** {@link settle} for several gateways on the same simulator. */
async function settleAll(context: RunContext, gateways: readonly Service[]): Promise<void> {
  let last = '';
  for (let i = 0; i < 60; i += 1) {
    const [upstream, operations] = await Promise.all([simRequests(context.sim.origin), Promise.all(gateways.map((gateway) => gatewayOperations(gateway.origin)))]);
    const now = `${upstream.count}|${operations.map(total).join(',')}`;
    if (now === last) return;
    last = now;
    await sleep(250);
  }
}

interface ScenarioSpec {
  name: ScenarioName;
  description: string;
  server: Service;
  serverLabel: string;
  /** True for gateway processes (operation counter and upstream counts available). */
  gateway: boolean;
  query: 'dashboard' | 'small';
  connections: number;
  noCache: boolean;
  keys: string;
  keyPerConnection?: (index: number) => string;
  rotateKeys?: readonly string[];
  /** Checks the probe response beyond "a success" (the floor compares the data). */
  checkProbe?: (data: unknown) => void;
  /** Before the warm-up: e.g. fill the caches of many keys. */
  prepare?: () => Promise<ScenarioResult['fill']>;
}

async function runScenario(context: RunContext, spec: ScenarioSpec): Promise<ScenarioResult> {
  const { args } = context;
  const url = `${spec.server.origin}/graphql`;
  const body = spec.query === 'dashboard' ? context.dashboard : context.small;
  const headers = graphqlHeaders(null, spec.noCache);
  const probeKey = spec.keyPerConnection?.(0) ?? spec.rotateKeys?.[0] ?? PREMIUM_KEY;
  log(`${spec.name}: ${spec.description}`);
  const rss = new RssSampler(spec.server.pid);
  try {
    const fill = spec.prepare ? await spec.prepare() : undefined;
    // Probe: the scenario's request succeeds (and, for warm scenarios, the cache is primed).
    const probe = await postGraphQL(url, body, { ...headers, authorization: `Bearer ${probeKey}` });
    assertSuccess(probe, `${spec.name} probe on ${spec.serverLabel}`);
    spec.checkProbe?.(probe.json.data);
    const load = {
      url,
      connections: spec.connections,
      body,
      headers: spec.keyPerConnection || spec.rotateKeys ? headers : { ...headers, authorization: `Bearer ${PREMIUM_KEY}` },
      keyPerConnection: spec.keyPerConnection,
      rotateKeys: spec.rotateKeys,
    };
    if (args.warmupSeconds > 0) await runLoad({ ...load, durationSeconds: args.warmupSeconds });
    if (spec.gateway) await settle(context, spec.server);
    await simReset(context.sim.origin);
    const before = spec.gateway ? await gatewayOperations(spec.server.origin) : null;
    const result = await runLoad({ ...load, durationSeconds: args.durationSeconds });
    if (spec.gateway) await settle(context, spec.server);
    const upstream = spec.gateway ? (await simRequests(context.sim.origin)).count : null;
    const outcomes = before ? difference(await gatewayOperations(spec.server.origin), before) : null;
    const operations = outcomes ? total(outcomes) : null;
    const peakRssMb = rss.stop();
    const failedOperations = outcomes ? (operations ?? 0) - (outcomes.success ?? 0) : 0;
    const scenario: ScenarioResult = {
      description: spec.description,
      server: spec.serverLabel,
      query: spec.query,
      connections: spec.connections,
      keys: spec.keys,
      cacheControl: spec.noCache ? 'no-cache' : null,
      durationSeconds: result.durationSeconds,
      requests: result.requests,
      rps: result.rps,
      latencyMs: result.latencyMs,
      upstreamRequests: upstream,
      operations,
      upstreamPerOp: upstream !== null && operations ? round(upstream / operations, 3) : upstream === null ? null : 0,
      peakRssMb,
      outcomes,
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
      ok: result.non2xx === 0 && result.errors === 0 && failedOperations === 0 && result.requests > 0,
      ...(fill ? { fill } : {}),
    };
    log(
      `${spec.name}: ${scenario.rps} rps, p50 ${scenario.latencyMs.p50} ms, p99 ${scenario.latencyMs.p99} ms, ` +
        `upstream/op ${scenario.upstreamPerOp ?? '-'}, peak RSS ${scenario.peakRssMb ?? '-'} MB${scenario.ok ? '' : ' (NOT OK: errors, see summary)'}`,
    );
    context.scenarios[spec.name] = scenario;
    return scenario;
  } finally {
    rss.stop();
  }
}

/**
 * many-keys: each key's first (cold) operation, `--fill-concurrency` (default 5) keys at
 * a time, before the measurement. A cold dashboard keeps up to
 * UPSTREAM_CONCURRENCY_PER_KEY (6) upstream requests in flight and the gateway has
 * UPSTREAM_CONNECTIONS (32) upstream connections: 5 keys x 6 fit. (Many more cold keys at
 * once wait longer than UPSTREAM_QUEUE_TIMEOUT_MS for their slots and fail with
 * RATE_LIMITED: see bench/README.md.)
 */
async function fillKeys(context: RunContext, gateway: Service, keys: readonly string[]): Promise<NonNullable<ScenarioResult['fill']>> {
  await settle(context, gateway);
  await simReset(context.sim.origin);
  const started = performance.now();
  let next = 0;
  const failures: string[] = [];
  const worker = async (): Promise<void> => {
    while (next < keys.length) {
      const key = keys[next] ?? '';
      next += 1;
      const reply = await postGraphQL(`${gateway.origin}/graphql`, context.dashboard, graphqlHeaders(key, false), 60_000);
      if (reply.status !== 200 || reply.json.errors !== undefined) failures.push(`${key}: HTTP ${reply.status} ${reply.text.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(context.args.fillConcurrency, keys.length) }, () => worker()));
  const seconds = (performance.now() - started) / 1000;
  if (failures.length > 0) throw new Error(`many-keys: ${failures.length} of ${keys.length} first operations failed, e.g. ${failures[0]}`);
  await settle(context, gateway);
  const upstreamRequests = (await simRequests(context.sim.origin)).count;
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

/** The dashboard's upstream needs: one no-cache run, DISTINCT paths in the simulator log. */
async function analyseDashboard(context: RunContext, gateway: Service): Promise<{ distinct: number; total: number; responseBytes: number; data: unknown }> {
  await simReset(context.sim.origin);
  const cold = await postGraphQL(`${gateway.origin}/graphql`, context.dashboard, graphqlHeaders(PREMIUM_KEY, true));
  assertSuccess(cold, 'dashboard (no-cache)');
  const upstream = await simRequests(context.sim.origin);
  const distinct = new Set(upstream.requests.map((request) => `${request.method} ${request.path}`)).size;
  // The floor serves the response a warm gateway gives.
  const warm = await postGraphQL(`${gateway.origin}/graphql`, context.dashboard, graphqlHeaders(PREMIUM_KEY, false));
  assertSuccess(warm, 'dashboard (warm)');
  return { distinct, total: upstream.count, responseBytes: Buffer.byteLength(warm.text), data: warm.json.data };
}

/** Counters of both replicas at one moment. */
async function pairCounters(pair: ReplicaPair<Service>): Promise<ReplicaPair<GatewayCounters>> {
  const [a, b] = await Promise.all([gatewayCounters(pair.a.origin), gatewayCounters(pair.b.origin)]);
  return { a, b };
}

/** Operations by outcome that both replicas finished between two readings. */
function pairOutcomes(before: ReplicaPair<GatewayCounters>, after: ReplicaPair<GatewayCounters>): Record<string, number> {
  const outcomes = difference(after.a.operations, before.a.operations);
  for (const [outcome, count] of Object.entries(difference(after.b.operations, before.b.operations))) outcomes[outcome] = (outcomes[outcome] ?? 0) + count;
  return outcomes;
}

function percentiles(values: readonly number[]): Percentiles {
  const summary = summarizeLatencies(Float64Array.from(values));
  return { p50: summary.p50, p99: summary.p99, max: summary.max };
}

/** Redis commands between two {@link redisStats} readings, without the bench's own 3 (INFO stats, DBSIZE, INFO memory). */
function redisCommandsBetween(before: RedisStats, after: RedisStats): number {
  return Math.max(0, after.commandsProcessed - before.commandsProcessed - 3);
}

/** Resolves once every gateway reports `statev_redis_up 1`. */
async function waitForRedisUp(name: string, gateways: readonly Service[], timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const counters = await Promise.all(gateways.map((gateway) => gatewayCounters(gateway.origin)));
    const down = gateways.filter((_, index) => counters[index]?.redisUp !== 1).map((gateway) => gateway.name);
    if (down.length === 0) return;
    if (Date.now() >= deadline) throw new Error(`${name}: ${down.join(' and ')} did not connect to Redis within ${timeoutMs / 1000} s (statev_redis_up stayed 0)`);
    await sleep(100);
  }
}

/** The shared Redis of the replicas-redis half. */
interface PairRedis {
  service: Service;
  binary: string;
  version: string | null;
  url: string;
  prefix: string;
  secret: string;
}

/**
 * Phase 1 of a replicas half: for each key, the dashboard once on A and then once on B
 * (`--fill-concurrency` keys at a time). Upstream requests per operation come from the
 * simulator's log; per replica from each gateway's own upstream counter.
 */
async function replicaFirstViews(context: RunContext, pair: ReplicaPair<Service>, keys: readonly string[], redisPort: number | null): Promise<{ result: ReplicasResult['firstViews']; redis: { stats: RedisStats; commands: number } | null }> {
  await settleAll(context, [pair.a, pair.b]);
  await simReset(context.sim.origin);
  const before = await pairCounters(pair);
  const redisBefore = redisPort === null ? null : await redisStats(redisPort);
  const latencies: ReplicaPair<number[]> = { a: [], b: [] };
  const failures: string[] = [];
  let differ = 0;
  let next = 0;
  const view = async (which: 'a' | 'b', key: string): Promise<GraphQLReply | null> => {
    const gateway = pair[which];
    const started = performance.now();
    try {
      const reply = await postGraphQL(`${gateway.origin}/graphql`, context.dashboard, graphqlHeaders(key, false), 60_000);
      latencies[which].push(performance.now() - started);
      if (reply.status === 200 && reply.json.errors === undefined && reply.json.data !== undefined && reply.json.data !== null) return reply;
      failures.push(`${gateway.name} ${key}: HTTP ${reply.status} ${reply.text.slice(0, 200)}`);
    } catch (error) {
      failures.push(`${gateway.name} ${key}: ${error instanceof Error ? error.message : String(error)}`);
    }
    return null;
  };
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < keys.length) {
      const key = keys[next] ?? '';
      next += 1;
      const first = await view('a', key);
      const second = await view('b', key);
      if (first && second && JSON.stringify(first.json.data) !== JSON.stringify(second.json.data)) differ += 1;
    }
  };
  await Promise.all(Array.from({ length: Math.min(context.args.fillConcurrency, keys.length) }, () => worker()));
  const seconds = (performance.now() - started) / 1000;
  await settleAll(context, [pair.a, pair.b]);
  const upstreamRequests = (await simRequests(context.sim.origin)).count;
  const after = await pairCounters(pair);
  const redisAfter = redisPort === null ? null : await redisStats(redisPort);
  const outcomes = pairOutcomes(before, after);
  const operations = total(outcomes);
  return {
    result: {
      keys: keys.length,
      concurrency: Math.min(context.args.fillConcurrency, keys.length),
      seconds: round(seconds, 1),
      operations,
      upstreamRequests,
      upstreamPerOp: operations > 0 ? round(upstreamRequests / operations, 2) : null,
      upstreamByReplica: { a: after.a.upstreamRequests - before.a.upstreamRequests, b: after.b.upstreamRequests - before.b.upstreamRequests },
      latencyMs: { a: percentiles(latencies.a), b: percentiles(latencies.b) },
      answersDifferFromA: differ,
      failures: failures.length,
      firstFailure: failures[0] ?? null,
      outcomes,
    },
    redis: redisBefore && redisAfter ? { stats: redisAfter, commands: redisCommandsBetween(redisBefore, redisAfter) } : null,
  };
}

/**
 * One half of the replicas group: two fresh gateway processes (A, B) on the same
 * simulator, with the defaults (response cache on) and, for replicas-redis, the same
 * REDIS_URL, REDIS_PREFIX and KEY_HASH_SECRET. Phase 1: first views (see
 * {@link replicaFirstViews}). Phase 2: autocannon on both at once, 25 connections each,
 * the same keys rotating per request, after the usual warm-up.
 */
async function runReplicaPair(context: RunContext, name: ReplicaScenario, redis: PairRedis | null): Promise<ReplicasResult> {
  const { args } = context;
  const keys = Array.from({ length: args.replicaKeys }, (_, index) => replicaKey(index));
  const settings: Record<string, string> = {
    RESPONSE_CACHE_ENABLED: 'true',
    ...(redis ? { REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix, KEY_HASH_SECRET: redis.secret } : {}),
  };
  // Pinned: a REDIS_URL from --gateway-env must not turn the no-Redis half into a Redis one (or the reverse).
  const envOptions: GatewayEnvOptions = { pinned: true, omit: redis ? [] : ['REDIS_URL', 'REDIS_PREFIX'] };
  const description = redis
    ? `two gateways sharing one Redis (same REDIS_URL, REDIS_PREFIX, KEY_HASH_SECRET), one simulator; ${keys.length} fresh keys: each key's first dashboard on A then on B, then both under load (${REPLICA_CONNECTIONS} connections each, keys rotating)`
    : `two gateways without Redis, one simulator; ${keys.length} fresh keys: each key's first dashboard on A then on B, then both under load (${REPLICA_CONNECTIONS} connections each, keys rotating)`;
  log(`${name}: ${description}`);
  const a = await startGatewayProcess(context, `${name}-a`, settings, [], envOptions);
  const b = await startGatewayProcess(context, `${name}-b`, settings, [], envOptions);
  const pair: ReplicaPair<Service> = { a, b };
  const rss: ReplicaPair<RssSampler> = { a: new RssSampler(a.pid), b: new RssSampler(b.pid) };
  const redisRss = redis ? new RssSampler(redis.service.pid) : null;
  try {
    if (redis) await waitForRedisUp(name, [a, b]);
    const first = await replicaFirstViews(context, pair, keys, redis ? redis.service.port : null);
    const fv = first.result;
    log(
      `${name}: first views: ${fv.operations} operations, ${fv.upstreamRequests} upstream requests (A ${fv.upstreamByReplica.a}, B ${fv.upstreamByReplica.b}), ` +
        `${fv.upstreamPerOp ?? '-'} per operation; p50 A ${fv.latencyMs.a.p50} ms, B ${fv.latencyMs.b.p50} ms; ${fv.seconds} s` +
        `${fv.failures > 0 ? `; ${fv.failures} FAILED, e.g. ${fv.firstFailure ?? ''}` : ''}`,
    );

    const loadOf = (gateway: Service): Omit<LoadOptions, 'durationSeconds'> => ({
      url: `${gateway.origin}/graphql`,
      connections: REPLICA_CONNECTIONS,
      body: context.dashboard,
      headers: graphqlHeaders(null, false),
      rotateKeys: keys,
    });
    if (args.warmupSeconds > 0) await Promise.all([runLoad({ ...loadOf(a), durationSeconds: args.warmupSeconds }), runLoad({ ...loadOf(b), durationSeconds: args.warmupSeconds })]);
    await settleAll(context, [a, b]);
    await simReset(context.sim.origin);
    const before = await pairCounters(pair);
    const redisBefore = redis ? await redisStats(redis.service.port) : null;
    const [loadA, loadB] = await Promise.all([runLoad({ ...loadOf(a), durationSeconds: args.durationSeconds }), runLoad({ ...loadOf(b), durationSeconds: args.durationSeconds })]);
    await settleAll(context, [a, b]);
    const upstreamRequests = (await simRequests(context.sim.origin)).count;
    const after = await pairCounters(pair);
    const redisAfter = redis ? await redisStats(redis.service.port) : null;
    const peakRssMb = { a: rss.a.stop(), b: rss.b.stop() };
    const redisPeakRssMb = redisRss?.stop() ?? null;
    const outcomes = pairOutcomes(before, after);
    const operations = total(outcomes);
    const samples = new Float64Array(loadA.samples.length + loadB.samples.length);
    samples.set(loadA.samples);
    samples.set(loadB.samples, loadA.samples.length);
    const requests = loadA.requests + loadB.requests;
    const non2xx = loadA.non2xx + loadB.non2xx;
    const errors = loadA.errors + loadB.errors;
    const firstViewsFailed = fv.failures + (fv.operations - (fv.outcomes.success ?? 0));
    const result: ReplicasResult = {
      description,
      servers: { a: `gateway A (${redis ? 'REDIS_URL' : 'no Redis'}, defaults)`, b: `gateway B (${redis ? 'the same REDIS_URL' : 'no Redis'}, defaults)` },
      settings: redis ? { RESPONSE_CACHE_ENABLED: 'true', REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix, KEY_HASH_SECRET: '<random, same on both>' } : { RESPONSE_CACHE_ENABLED: 'true' },
      query: 'dashboard',
      keys: `${replicaKey(0)}..${replicaKey(keys.length - 1)}`,
      firstViews: fv,
      connections: 2 * REPLICA_CONNECTIONS,
      connectionsPerReplica: REPLICA_CONNECTIONS,
      durationSeconds: Math.max(loadA.durationSeconds, loadB.durationSeconds),
      requests,
      rps: round(loadA.rps + loadB.rps, 1),
      latencyMs: summarizeLatencies(samples),
      perReplica: {
        a: { requests: loadA.requests, rps: loadA.rps, latencyMs: loadA.latencyMs },
        b: { requests: loadB.requests, rps: loadB.rps, latencyMs: loadB.latencyMs },
      },
      upstreamRequests,
      operations,
      upstreamPerOp: operations > 0 ? round(upstreamRequests / operations, 3) : null,
      upstreamByReplica: { a: after.a.upstreamRequests - before.a.upstreamRequests, b: after.b.upstreamRequests - before.b.upstreamRequests },
      peakRssMb,
      redisErrors: redis ? { a: after.a.redisErrors, b: after.b.redisErrors } : null,
      redis:
        redis && first.redis && redisBefore && redisAfter
          ? {
              server: redis.binary,
              version: redis.version,
              prefix: redis.prefix,
              keysAfterFirstViews: first.redis.stats.keys,
              usedMemoryMbAfterFirstViews: round(first.redis.stats.usedMemoryBytes / 1024 / 1024, 1),
              commandsFirstViews: first.redis.commands,
              commandsPerOpFirstViews: fv.operations > 0 ? round(first.redis.commands / fv.operations, 1) : null,
              commandsDuringLoad: redisCommandsBetween(redisBefore, redisAfter),
              peakRssMb: redisPeakRssMb,
            }
          : null,
      outcomes,
      non2xx,
      errors,
      timeouts: loadA.timeouts + loadB.timeouts,
      ok: firstViewsFailed === 0 && non2xx === 0 && errors === 0 && operations - (outcomes.success ?? 0) === 0 && requests > 0,
    };
    log(
      `${name}: load: ${result.rps} rps (A ${loadA.rps}, B ${loadB.rps}), p50 ${result.latencyMs.p50} ms, p99 ${result.latencyMs.p99} ms, ` +
        `upstream/op ${result.upstreamPerOp ?? '-'}, peak RSS A ${peakRssMb.a ?? '-'} MB, B ${peakRssMb.b ?? '-'} MB` +
        `${result.redisErrors ? `, Redis errors A ${result.redisErrors.a}, B ${result.redisErrors.b}` : ''}${result.ok ? '' : ' (NOT OK: errors, see summary)'}`,
    );
    return result;
  } finally {
    rss.a.stop();
    rss.b.stop();
    redisRss?.stop();
    await stopService(a, 15_000);
    await stopService(b, 15_000);
  }
}

/**
 * The replicas group: replicas-no-redis, then replicas-redis on a redis-server of our
 * own (a free port on 127.0.0.1, no persistence), stopped at the end. Without a
 * redis-server the Redis half is skipped with a note; the bench goes on.
 */
async function runReplicas(context: RunContext): Promise<void> {
  context.replicas['replicas-no-redis'] = await runReplicaPair(context, 'replicas-no-redis', null);
  const description = 'two gateways sharing one Redis: first-view upstream requests per operation and load';
  const binary = findRedisServer(context.args.redisServer);
  if (binary === null) {
    const where = context.args.redisServer === null ? 'no redis-server on PATH' : `${context.args.redisServer} is not an executable`;
    const note = `${where}: the Redis half of the replicas group did not run (install redis-server, e.g. apt-get install redis-server, or pass --redis-server PATH)`;
    log(`replicas-redis: skipped: ${note}`);
    context.replicas['replicas-redis'] = { description, skipped: 'redis-server not found', note };
    return;
  }
  const port = await context.ports.allocate('redis');
  let service: Service;
  try {
    service = await startRedis(binary, port);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log(`replicas-redis: skipped: ${message}`);
    context.replicas['replicas-redis'] = { description, skipped: 'redis-server failed to start', note: message.slice(0, 1000) };
    return;
  }
  log(`redis-server on port ${port} (${binary})`);
  try {
    context.replicas['replicas-redis'] = await runReplicaPair(context, 'replicas-redis', {
      service,
      binary,
      version: redisServerVersion(binary),
      url: `redis://${HOST}:${port}`,
      prefix: `bench-replicas-${process.pid}:`,
      secret: randomBytes(16).toString('hex'),
    });
  } finally {
    await stopService(service);
  }
}

function machine(): Record<string, unknown> {
  const cpuList = cpus();
  let commit: string | null = null;
  let dirty: boolean | null = null;
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    dirty = execFileSync('git', ['status', '--porcelain'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() !== '';
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

function ratio(value: number | null, target: string, pass: (v: number) => boolean, how: string): Ratio {
  return { value: value === null || !Number.isFinite(value) ? null : round(value, 2), target, pass: value === null || !Number.isFinite(value) ? null : pass(round(value, 2)), how };
}

function firstViewUpstreamPerOp(result: ReplicasResult | SkippedReplicas | undefined): number | null {
  return ranReplicas(result) ? result.firstViews.upstreamPerOp : null;
}

function ratios(context: RunContext, distinct: number | null): Record<string, Ratio> {
  const s = context.scenarios;
  const latency = context.args.latencyMs;
  const div = (a: number | null | undefined, b: number | null | undefined): number | null => (a === null || a === undefined || !b ? null : a / b);
  return {
    warmVsFloor: ratio(div(s.warm?.rps, s.floor?.rps), '>= 0.85', (v) => v >= 0.85, 'warm rps / floor rps (both 50 connections)'),
    coldUpstreamPerOpVsDistinct: ratio(
      div(s.cold?.upstreamPerOp, distinct),
      '= 1.00',
      (v) => v === 1,
      'cold upstream requests per operation / distinct upstream paths of one no-cache dashboard run',
    ),
    warmUpstreamPerOp: ratio(s.warm?.upstreamPerOp ?? null, '= 0', (v) => v === 0, 'upstream requests during warm / operations'),
    naiveVsGatewayUpstream: ratio(
      div(s.naive?.upstreamPerOp, s.cold?.upstreamPerOp),
      '>= 1.00 (informational: what loaders and cache save on a cold run)',
      (v) => v >= 1,
      'naive upstream requests per operation / cold upstream requests per operation',
    ),
    coldP50VsCriticalPath: ratio(
      latency > 0 ? div(s.cold?.latencyMs.p50, CRITICAL_PATH_ROUND_TRIPS * latency) : null,
      '<= 1.3',
      (v) => v <= 1.3,
      `cold p50 / (${CRITICAL_PATH_ROUND_TRIPS} dependent upstream round trips x ${latency} ms added latency)`,
    ),
    manyKeysPeakRssMb: ratio(s['many-keys']?.peakRssMb ?? null, '<= 200', (v) => v <= 200, 'peak RSS of the fresh many-keys gateway process (fill + warm-up + measurement), MB'),
    replicasRedisVsNoRedisUpstream: ratio(
      div(firstViewUpstreamPerOp(context.replicas['replicas-redis']), firstViewUpstreamPerOp(context.replicas['replicas-no-redis'])),
      '<= 0.55 (about half: replica B reads what A fetched)',
      (v) => v <= 0.55,
      'replicas-redis first-view upstream requests per operation / replicas-no-redis (two replicas, each key viewed on A then on B)',
    ),
  };
}

function selectedScenarios(args: BenchArgs): ScenarioName[] {
  if (args.profile !== null) return [args.profile];
  return args.only ?? [...SCENARIO_NAMES];
}

async function run(args: BenchArgs): Promise<void> {
  const startedAt = Date.now();
  mkdirSync(RESULTS, { recursive: true });
  for (const file of ['dist/src/simulator/main.js', 'dist/bench/floor-server.js']) {
    if (!existsSync(join(ROOT, file))) throw new Error(`${file} is missing: run npm run bench (it builds first)`);
  }
  if (args.profile !== null) rmSync(join(RESULTS, `${args.profile}.cpuprofile`), { force: true });
  const selected = selectedScenarios(args);
  const want = (name: ScenarioName): boolean => selected.includes(name);
  log(`scenarios: ${selected.join(', ')}; ${args.durationSeconds} s each after ${args.warmupSeconds} s warm-up; latency ${args.latencyMs} ms`);

  const ports = new PortAllocator(args.basePort);
  const simPort = await ports.allocate('simulator');
  const sim = await startService({
    name: 'simulator',
    args: [join(ROOT, 'dist', 'src', 'simulator', 'main.js'), '--port', String(simPort), '--host', HOST, '--latency', String(args.latencyMs)],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'production' },
    cwd: ROOT,
    port: simPort,
    ready: /^http:\/\/\S+\/req$/m,
  });
  log(`simulator on port ${simPort}, ${args.latencyMs} ms added latency`);
  const context: RunContext = {
    args,
    sim,
    dashboard: operationBody('dashboard.graphql', 'BenchDashboard'),
    small: operationBody('small.graphql', 'BenchSmall'),
    scenarios: {},
    replicas: {},
    profiles: [],
    ports,
  };
  const floorData = join(RESULTS, 'floor-data.json');
  let dashboardInfo: { distinct: number; total: number; responseBytes: number } | null = null;

  // 1. The gateway with its defaults (and the capture of the dashboard for the floor).
  const mainScenarios: ScenarioName[] = ['warm', 'warm-10c', 'small', 'cold', 'cold-1c', 'cold-shared-key'];
  const needsMain = mainScenarios.some(want) || want('floor') || want('floor-10c');
  if (needsMain) {
    const gateway = await startGatewayProcess(context, 'gateway', {}, mainScenarios);
    const label = 'gateway (defaults)';
    const analysis = await analyseDashboard(context, gateway);
    dashboardInfo = { distinct: analysis.distinct, total: analysis.total, responseBytes: analysis.responseBytes };
    writeFileSync(floorData, JSON.stringify(analysis.data));
    log(`dashboard: ${analysis.total} upstream requests without cache, ${analysis.distinct} distinct paths, ${analysis.responseBytes} bytes of response`);
    const base = { server: gateway, serverLabel: label, gateway: true };
    if (want('warm')) await runScenario(context, { ...base, name: 'warm', description: 'dashboard, warm caches, premium key, 50 connections', query: 'dashboard', connections: 50, noCache: false, keys: PREMIUM_KEY });
    if (want('warm-10c')) await runScenario(context, { ...base, name: 'warm-10c', description: 'dashboard, warm caches, premium key, 10 connections (compare with the peer)', query: 'dashboard', connections: 10, noCache: false, keys: PREMIUM_KEY });
    if (want('small')) await runScenario(context, { ...base, name: 'small', description: '{ factories { id name } }, warm caches, premium key, 50 connections', query: 'small', connections: 50, noCache: false, keys: PREMIUM_KEY });
    if (want('cold'))
      await runScenario(context, {
        ...base,
        name: 'cold',
        description: 'dashboard with Cache-Control: no-cache, 10 connections, one key per connection (no sharing between operations)',
        query: 'dashboard',
        connections: 10,
        noCache: true,
        keys: `${coldKey(0)}..${coldKey(9)}, one per connection`,
        keyPerConnection: coldKey,
      });
    if (want('cold-1c'))
      await runScenario(context, {
        ...base,
        name: 'cold-1c',
        description: 'dashboard with Cache-Control: no-cache, 1 connection (one operation at a time: latency without load)',
        query: 'dashboard',
        connections: 1,
        noCache: true,
        keys: coldKey(0),
        keyPerConnection: coldKey,
      });
    if (want('cold-shared-key'))
      await runScenario(context, {
        ...base,
        name: 'cold-shared-key',
        description: 'dashboard with Cache-Control: no-cache, 10 connections, all with the premium key (concurrent operations share in-flight upstream requests)',
        query: 'dashboard',
        connections: 10,
        noCache: true,
        keys: PREMIUM_KEY,
      });
    await stopServer(context, gateway, mainScenarios);
  }

  // 2. many-keys on a fresh gateway (defaults): its peak RSS is its own, not what earlier scenarios left.
  if (want('many-keys')) {
    const gateway = await startGatewayProcess(context, 'gateway-many-keys', {}, ['many-keys']);
    const keys = Array.from({ length: args.manyKeys }, (_, index) => manyKey(index));
    await runScenario(context, {
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
      prepare: () => fillKeys(context, gateway, keys),
    });
    await stopServer(context, gateway, ['many-keys']);
  }

  // 3. The gateway without the per-key response cache.
  if (want('warm-no-response-cache')) {
    const gateway = await startGatewayProcess(context, 'gateway-no-response-cache', { RESPONSE_CACHE_ENABLED: 'false' }, ['warm-no-response-cache']);
    await runScenario(context, {
      name: 'warm-no-response-cache',
      description: 'dashboard, warm upstream cache, no response cache (every operation executes), premium key, 50 connections',
      server: gateway,
      serverLabel: 'gateway (RESPONSE_CACHE_ENABLED=false)',
      gateway: true,
      query: 'dashboard',
      connections: 50,
      noCache: false,
      keys: PREMIUM_KEY,
    });
    await stopServer(context, gateway, ['warm-no-response-cache']);
  }

  // 4. naive: no loaders, no cache (benchmark-only settings).
  if (want('naive')) {
    const gateway = await startGatewayProcess(context, 'gateway-naive', { LOADERS_ENABLED: 'false', CACHE_ENABLED: 'false' }, ['naive']);
    await runScenario(context, {
      name: 'naive',
      description: 'dashboard on a gateway with LOADERS_ENABLED=false CACHE_ENABLED=false (benchmark-only), cold-style load: no-cache, 10 connections, one key per connection',
      server: gateway,
      serverLabel: 'gateway (LOADERS_ENABLED=false CACHE_ENABLED=false)',
      gateway: true,
      query: 'dashboard',
      connections: 10,
      noCache: true,
      keys: `${coldKey(0)}..${coldKey(9)}, one per connection`,
      keyPerConnection: coldKey,
    });
    await stopServer(context, gateway, ['naive']);
  }

  // 5. floor: bare Apollo Server 5, same HTTP layer, static data.
  if (want('floor') || want('floor-10c')) {
    const port = await context.ports.allocate('floor');
    log(`starting floor on port ${port}`);
    const floorScenarios: ScenarioName[] = ['floor', 'floor-10c'];
    const floor = await startService({
      name: 'floor',
      args: ['--enable-source-maps', ...profileFlags(context, floorScenarios), join(ROOT, 'dist', 'bench', 'floor-server.js'), '--port', String(port), '--data', floorData],
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'production' },
      cwd: ROOT,
      port,
      ready: /floor listening on /,
    });
    const expected = readFileSync(floorData, 'utf8');
    const checkProbe = (data: unknown): void => {
      if (JSON.stringify(data) !== expected) throw new Error('floor: its response data differs from the gateway response it serves');
    };
    const base = { server: floor, serverLabel: 'floor (bare Apollo Server 5, static data)', gateway: false, query: 'dashboard' as const, noCache: false, keys: PREMIUM_KEY, checkProbe };
    if (want('floor')) await runScenario(context, { ...base, name: 'floor', description: 'the captured dashboard response from static resolvers, 50 connections', connections: 50 });
    if (want('floor-10c')) await runScenario(context, { ...base, name: 'floor-10c', description: 'the captured dashboard response from static resolvers, 10 connections', connections: 10 });
    await stopServer(context, floor, floorScenarios);
  }

  // 6. replicas: two gateway processes on one simulator, without and with a shared Redis.
  if (want('replicas')) await runReplicas(context);
  await stopService(sim);

  const summaryRatios = ratios(context, dashboardInfo?.distinct ?? null);
  const warm10c = context.scenarios['warm-10c']?.rps ?? null;
  const peer = {
    ...PEER,
    warm10cRps: warm10c,
    position: warm10c === null ? null : warm10c > PEER.rpsRange[1] ? 'above' : warm10c >= PEER.rpsRange[0] ? 'within' : 'below',
    beatsPeer: warm10c === null ? null : warm10c > PEER.rpsRange[1],
  };
  const judged = Object.values(summaryRatios).filter((r) => r.pass !== null);
  const summary = {
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
      scenarios: selected,
    },
    dashboard: dashboardInfo && {
      query: 'bench/queries/dashboard.graphql',
      upstreamRequestsWithoutCache: dashboardInfo.total,
      distinctUpstreamResources: dashboardInfo.distinct,
      criticalPathRoundTrips: CRITICAL_PATH_ROUND_TRIPS,
      responseBytes: dashboardInfo.responseBytes,
    },
    scenarios: { ...context.scenarios, ...context.replicas },
    ratios: summaryRatios,
    peer,
    // A skipped half (no redis-server) is not a failure.
    allScenariosOk: [...Object.values(context.scenarios), ...Object.values(context.replicas).filter(ranReplicas)].every((scenario) => scenario.ok),
    allTargetsMet: judged.length > 0 && judged.every((r) => r.pass === true),
    ...(context.profiles.length > 0 ? { profiles: context.profiles } : {}),
  };
  const text = JSON.stringify(summary, null, 2);
  const out = args.out ? resolve(args.out) : join(RESULTS, args.only !== null || args.profile !== null ? 'partial.json' : 'latest.json');
  writeFileSync(out, `${text}\n`);
  process.stdout.write(`${text}\n`);
  log(`summary written to ${out} (${summary.totalSeconds} s)`);
  if (!summary.allScenariosOk) process.exitCode = 1;
}

async function main(): Promise<void> {
  let args: BenchArgs;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  process.on('exit', killAllNow);
  let interrupted = false;
  const interrupt = (signal: NodeJS.Signals): void => {
    if (interrupted) return;
    interrupted = true;
    log(`${signal}: stopping the load and every child process`);
    stopActiveLoad();
    void stopAll().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  // Bound the whole run: a few minutes normally, less with --quick.
  // replicas runs two halves (the list counts it once), each with its first views.
  const limitSeconds = 120 + (args.durationSeconds + args.warmupSeconds + 15) * (SCENARIO_NAMES.length + 1) + args.manyKeys * 0.5 + args.replicaKeys * 1.5;
  const watchdog = setTimeout(() => {
    process.stderr.write(`[bench] the run exceeded ${Math.round(limitSeconds)} s; stopping\n`);
    stopActiveLoad();
    void stopAll().finally(() => process.exit(1));
  }, limitSeconds * 1000);
  watchdog.unref();
  try {
    await run(args);
  } catch (error) {
    process.stderr.write(`[bench] failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  } finally {
    clearTimeout(watchdog);
    await stopAll();
  }
}

void main();
