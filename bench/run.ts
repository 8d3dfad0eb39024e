/**
 * `npm run bench`: the gateway's benchmark (see bench/README.md).
 *
 * Starts the StateV simulator (fixed added latency per upstream request) and the
 * gateway as separate processes, drives them with autocannon, and prints ONE JSON
 * summary on stdout (progress goes to stderr), also written to bench/results/latest.json.
 * Every child process is stopped on exit, on errors and on Ctrl-C.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { projectRoot } from '../src/project-root';
import { parseArgs, SCENARIO_NAMES, USAGE } from './lib/args';
import type { BenchArgs, ScenarioName } from './lib/args';
import { assertSuccess, difference, gatewayOperations, graphqlHeaders, postGraphQL, simRequests, simReset, sleep, total } from './lib/http';
import { runLoad, stopActiveLoad } from './lib/load';
import type { LoadResult } from './lib/load';
import { assertPortFree, freePort, HOST, killAllNow, startService, stopAll, stopService } from './lib/processes';
import type { Service } from './lib/processes';
import { summarizeProfile } from './lib/profile';
import type { ProfileSummary } from './lib/profile';
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

/** The environment of a gateway process: only what the benchmark sets (plus PATH/HOME). */
function gatewayEnvironment(context: RunContext, port: number, settings: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    NODE_ENV: 'production',
    HOST,
    PORT: String(port),
    STATEV_BASE_URL: context.sim.origin + '/req',
    LOG_LEVEL: 'silent',
    ...settings,
    ...context.args.gatewayEnv,
  };
}

async function startGatewayProcess(context: RunContext, name: string, settings: Record<string, string>, scenarios: readonly ScenarioName[]): Promise<Service> {
  const port = await context.ports.allocate(name);
  const root = context.args.gatewayRoot === null ? ROOT : resolve(context.args.gatewayRoot);
  const main = join(root, 'dist', 'src', 'main.js');
  if (!existsSync(main)) throw new Error(`${main} is missing: run npm run build${context.args.gatewayRoot === null ? '' : ` in ${root}`}`);
  log(`starting ${name} on port ${port}${Object.keys(settings).length > 0 ? ` (${Object.entries(settings).map(([k, v]) => `${k}=${v}`).join(' ')})` : ''}`);
  const service = await startService({
    name,
    args: ['--enable-source-maps', ...profileFlags(context, scenarios), main],
    env: gatewayEnvironment(context, port, settings),
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
  let last = '';
  for (let i = 0; i < 60; i += 1) {
    const [upstream, operations] = await Promise.all([simRequests(context.sim.origin), gateway ? gatewayOperations(gateway.origin) : Promise.resolve({})]);
    const now = `${upstream.count}|${total(operations)}`;
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
    scenarios: context.scenarios,
    ratios: summaryRatios,
    peer,
    allScenariosOk: Object.values(context.scenarios).every((scenario) => scenario.ok),
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
  const limitSeconds = 120 + (args.durationSeconds + args.warmupSeconds + 15) * SCENARIO_NAMES.length + args.manyKeys * 0.5;
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
