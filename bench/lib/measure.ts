/**
 * The standard measurement of a load scenario: probe, warm-up, then autocannon for
 * `--duration` seconds with the simulator's request log and the gateway's operation
 * counter read around it.
 */
import type { Bench } from './bench';
import { log, PREMIUM_KEY, round } from './bench';
import {
  assertSuccess,
  difference,
  gatewayOperations,
  graphqlHeaders,
  postGraphQL,
  PROBE_HEADERS,
  simRequests,
  simReset,
  total,
} from './http';
import { runLoad } from './load';
import type { LoadResult } from './load';
import type { Service } from './processes';
import { cpuPerRequestMs, cpuTimeMs } from './cpu';
import { RssSampler } from './rss';

/** What the summary says about one load scenario. */
export interface LoadScenarioResult {
  description: string;
  server: string;
  query: 'dashboard' | 'small' | 'peer-comparable';
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
  /** The server process's user + system CPU time over the measurement (autocannon's run), ms. */
  serverCpuMs: number | null;
  /** {@link serverCpuMs} / requests: what one request costs the server, ms (robust when the load generator shares the cores). */
  serverCpuMsPerRequest: number | null;
  /** Gateway operations by outcome during the measurement. */
  outcomes: Record<string, number> | null;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** True when every response was a 2xx and every operation a success. */
  ok: boolean;
  /** many-keys: filling the caches with each key's first (cold) operation. */
  fill?: {
    keys: number;
    seconds: number;
    operationsPerSecond: number;
    upstreamRequests: number;
    upstreamPerKey: number;
    rssAfterFillMb: number | null;
  };
}

/** What {@link measureLoad} measures. */
export interface LoadSpec {
  /** The result's name in the summary. */
  name: string;
  description: string;
  server: Service;
  serverLabel: string;
  /** True for gateway processes (operation counter and upstream counts available). */
  gateway: boolean;
  query: 'dashboard' | 'small' | 'peer-comparable';
  /** The request body, when not the named query's own (e.g. the peer's form of an operation). */
  body?: string;
  connections: number;
  noCache: boolean;
  /** How the keys are described in the summary. */
  keys: string;
  /** One key per autocannon connection (default: the premium key on all). */
  keyPerConnection?: (index: number) => string;
  /** Keys rotating per request. */
  rotateKeys?: readonly string[];
  /** The bearer value every request sends instead of the premium key (e.g. an access token). */
  bearer?: string;
  /** Checks the probe response beyond "a success" (the floor compares the data). */
  checkProbe?: (data: unknown) => void;
  /** Before the warm-up: e.g. fill the caches of many keys. */
  prepare?: () => Promise<LoadScenarioResult['fill']>;
}

/** Measures one load scenario, records its result under `spec.name` and returns it. */
export async function measureLoad(bench: Bench, spec: LoadSpec): Promise<LoadScenarioResult> {
  const { args } = bench;
  const url = `${spec.server.origin}/graphql`;
  const body = spec.body ?? (spec.query === 'dashboard' ? bench.dashboard : bench.small);
  const headers = graphqlHeaders(null, spec.noCache);
  const probeKey = spec.keyPerConnection?.(0) ?? spec.rotateKeys?.[0] ?? spec.bearer ?? PREMIUM_KEY;
  log(`${spec.name}: ${spec.description}`);
  const rss = new RssSampler(spec.server.pid);
  try {
    const fill = spec.prepare ? await spec.prepare() : undefined;
    // Probe: the scenario's request succeeds (and, for warm scenarios, the cache is primed).
    const probe = await postGraphQL(url, body, { ...headers, ...PROBE_HEADERS, authorization: `Bearer ${probeKey}` });
    assertSuccess(probe, `${spec.name} probe on ${spec.serverLabel}`);
    spec.checkProbe?.(probe.json.data);
    const load = {
      url,
      connections: spec.connections,
      body,
      headers:
        spec.keyPerConnection || spec.rotateKeys
          ? headers
          : { ...headers, authorization: `Bearer ${spec.bearer ?? PREMIUM_KEY}` },
      keyPerConnection: spec.keyPerConnection,
      rotateKeys: spec.rotateKeys,
    };
    const gateways = spec.gateway ? [spec.server] : [];
    if (args.warmupSeconds > 0) await runLoad({ ...load, durationSeconds: args.warmupSeconds });
    await bench.settle(gateways);
    await simReset(bench.sim.origin);
    const before = spec.gateway ? await gatewayOperations(spec.server.origin) : null;
    const cpuBefore = cpuTimeMs(spec.server.pid);
    const result = await runLoad({ ...load, durationSeconds: args.durationSeconds });
    const cpuAfter = cpuTimeMs(spec.server.pid);
    await bench.settle(gateways);
    const upstream = spec.gateway ? (await simRequests(bench.sim.origin)).count : null;
    const outcomes = before ? difference(await gatewayOperations(spec.server.origin), before) : null;
    const operations = outcomes ? total(outcomes) : null;
    const peakRssMb = rss.stop();
    const failedOperations = outcomes ? (operations ?? 0) - (outcomes.success ?? 0) : 0;
    const scenario: LoadScenarioResult = {
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
      serverCpuMs: cpuBefore !== null && cpuAfter !== null ? Math.round(cpuAfter - cpuBefore) : null,
      serverCpuMsPerRequest: cpuPerRequestMs(cpuBefore, cpuAfter, result.requests),
      outcomes,
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
      ok: result.non2xx === 0 && result.errors === 0 && failedOperations === 0 && result.requests > 0,
      ...(fill ? { fill } : {}),
    };
    log(
      `${spec.name}: ${scenario.rps} rps, p50 ${scenario.latencyMs.p50} ms, p99 ${scenario.latencyMs.p99} ms, ` +
        `upstream/op ${scenario.upstreamPerOp ?? '-'}, server CPU ${scenario.serverCpuMsPerRequest ?? '-'} ms/request, peak RSS ${scenario.peakRssMb ?? '-'} MB${scenario.ok ? '' : ' (NOT OK: errors, see summary)'}`,
    );
    bench.record(spec.name, scenario);
    return scenario;
  } finally {
    rss.stop();
  }
}
