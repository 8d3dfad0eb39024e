/**
 * The replicas group: two gateway processes on one simulator, without and with a
 * shared Redis (results `replicas-no-redis` and `replicas-redis`).
 */
import { randomBytes } from 'node:crypto';
import type { Bench, GatewayEnvOptions, Scenario } from '../lib/bench';
import { log, round } from '../lib/bench';
import {
  difference,
  gatewayCounters,
  graphqlHeaders,
  postGraphQL,
  simRequests,
  simReset,
  sleep,
  total,
} from '../lib/http';
import type { GatewayCounters, GraphQLReply } from '../lib/http';
import { runLoad, summarizeLatencies } from '../lib/load';
import type { LoadOptions, LoadResult } from '../lib/load';
import { HOST, stopService } from '../lib/processes';
import type { Service } from '../lib/processes';
import { findRedisServer, redisServerVersion, redisStats, startRedis } from '../lib/redis';
import type { RedisStats } from '../lib/redis';
import { RssSampler } from '../lib/rss';

/** Keys of the replicas scenarios: fresh, used by no other scenario (the same K keys in both halves). */
const replicaKey = (index: number): string => `sim-key-${800_001 + index}`;
/** Connections of each replica's autocannon during the replicas load phase. */
const REPLICA_CONNECTIONS = 25;

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
export interface ReplicasResult {
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

/** Counters of both replicas at one moment. */
async function pairCounters(pair: ReplicaPair<Service>): Promise<ReplicaPair<GatewayCounters>> {
  const [a, b] = await Promise.all([gatewayCounters(pair.a.origin), gatewayCounters(pair.b.origin)]);
  return { a, b };
}

/** Operations by outcome that both replicas finished between two readings. */
function pairOutcomes(
  before: ReplicaPair<GatewayCounters>,
  after: ReplicaPair<GatewayCounters>,
): Record<string, number> {
  const outcomes = difference(after.a.operations, before.a.operations);
  for (const [outcome, count] of Object.entries(difference(after.b.operations, before.b.operations)))
    outcomes[outcome] = (outcomes[outcome] ?? 0) + count;
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
    if (Date.now() >= deadline)
      throw new Error(
        `${name}: ${down.join(' and ')} did not connect to Redis within ${timeoutMs / 1000} s (statev_redis_up stayed 0)`,
      );
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
async function replicaFirstViews(
  bench: Bench,
  pair: ReplicaPair<Service>,
  keys: readonly string[],
  redisPort: number | null,
): Promise<{ result: ReplicasResult['firstViews']; redis: { stats: RedisStats; commands: number } | null }> {
  await bench.settle([pair.a, pair.b]);
  await simReset(bench.sim.origin);
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
      const reply = await postGraphQL(`${gateway.origin}/graphql`, bench.dashboard, graphqlHeaders(key, false), 60_000);
      latencies[which].push(performance.now() - started);
      if (
        reply.status === 200 &&
        reply.json.errors === undefined &&
        reply.json.data !== undefined &&
        reply.json.data !== null
      )
        return reply;
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
  await Promise.all(Array.from({ length: Math.min(bench.args.fillConcurrency, keys.length) }, () => worker()));
  const seconds = (performance.now() - started) / 1000;
  await bench.settle([pair.a, pair.b]);
  const upstreamRequests = (await simRequests(bench.sim.origin)).count;
  const after = await pairCounters(pair);
  const redisAfter = redisPort === null ? null : await redisStats(redisPort);
  const outcomes = pairOutcomes(before, after);
  const operations = total(outcomes);
  return {
    result: {
      keys: keys.length,
      concurrency: Math.min(bench.args.fillConcurrency, keys.length),
      seconds: round(seconds, 1),
      operations,
      upstreamRequests,
      upstreamPerOp: operations > 0 ? round(upstreamRequests / operations, 2) : null,
      upstreamByReplica: {
        a: after.a.upstreamRequests - before.a.upstreamRequests,
        b: after.b.upstreamRequests - before.b.upstreamRequests,
      },
      latencyMs: { a: percentiles(latencies.a), b: percentiles(latencies.b) },
      answersDifferFromA: differ,
      failures: failures.length,
      firstFailure: failures[0] ?? null,
      outcomes,
    },
    redis:
      redisBefore && redisAfter ? { stats: redisAfter, commands: redisCommandsBetween(redisBefore, redisAfter) } : null,
  };
}

/**
 * One half of the replicas group: two fresh gateway processes (A, B) on the same
 * simulator, with the defaults (response cache on) and, for replicas-redis, the same
 * REDIS_URL, REDIS_PREFIX and KEY_HASH_SECRET. Phase 1: first views (see
 * {@link replicaFirstViews}). Phase 2: autocannon on both at once, 25 connections each,
 * the same keys rotating per request, after the usual warm-up.
 */
async function runReplicaPair(bench: Bench, name: ReplicaScenario, redis: PairRedis | null): Promise<ReplicasResult> {
  const { args } = bench;
  const keys = Array.from({ length: args.replicaKeys }, (_, index) => replicaKey(index));
  const settings: Record<string, string> = {
    RESPONSE_CACHE_ENABLED: 'true',
    ...(redis ? { REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix, KEY_HASH_SECRET: redis.secret } : {}),
  };
  // Pinned: a REDIS_URL from --gateway-env must not turn the no-Redis half into a Redis one (or the reverse).
  const envOptions: GatewayEnvOptions = {
    pinned: true,
    omit: redis ? [] : ['REDIS_URL', 'REDIS_PREFIX'],
    profile: false,
  };
  const description = redis
    ? `two gateways sharing one Redis (same REDIS_URL, REDIS_PREFIX, KEY_HASH_SECRET), one simulator; ${keys.length} fresh keys: each key's first dashboard on A then on B, then both under load (${REPLICA_CONNECTIONS} connections each, keys rotating)`
    : `two gateways without Redis, one simulator; ${keys.length} fresh keys: each key's first dashboard on A then on B, then both under load (${REPLICA_CONNECTIONS} connections each, keys rotating)`;
  log(`${name}: ${description}`);
  const a = await bench.startGateway(`${name}-a`, settings, envOptions);
  const b = await bench.startGateway(`${name}-b`, settings, envOptions);
  const pair: ReplicaPair<Service> = { a, b };
  const rss: ReplicaPair<RssSampler> = { a: new RssSampler(a.pid), b: new RssSampler(b.pid) };
  const redisRss = redis ? new RssSampler(redis.service.pid) : null;
  try {
    if (redis) await waitForRedisUp(name, [a, b]);
    const first = await replicaFirstViews(bench, pair, keys, redis ? redis.service.port : null);
    const fv = first.result;
    log(
      `${name}: first views: ${fv.operations} operations, ${fv.upstreamRequests} upstream requests (A ${fv.upstreamByReplica.a}, B ${fv.upstreamByReplica.b}), ` +
        `${fv.upstreamPerOp ?? '-'} per operation; p50 A ${fv.latencyMs.a.p50} ms, B ${fv.latencyMs.b.p50} ms; ${fv.seconds} s` +
        `${fv.failures > 0 ? `; ${fv.failures} FAILED, e.g. ${fv.firstFailure ?? ''}` : ''}`,
    );

    const loadOf = (gateway: Service): Omit<LoadOptions, 'durationSeconds'> => ({
      url: `${gateway.origin}/graphql`,
      connections: REPLICA_CONNECTIONS,
      body: bench.dashboard,
      headers: graphqlHeaders(null, false),
      rotateKeys: keys,
    });
    if (args.warmupSeconds > 0)
      await Promise.all([
        runLoad({ ...loadOf(a), durationSeconds: args.warmupSeconds }),
        runLoad({ ...loadOf(b), durationSeconds: args.warmupSeconds }),
      ]);
    await bench.settle([a, b]);
    await simReset(bench.sim.origin);
    const before = await pairCounters(pair);
    const redisBefore = redis ? await redisStats(redis.service.port) : null;
    const [loadA, loadB] = await Promise.all([
      runLoad({ ...loadOf(a), durationSeconds: args.durationSeconds }),
      runLoad({ ...loadOf(b), durationSeconds: args.durationSeconds }),
    ]);
    await bench.settle([a, b]);
    const upstreamRequests = (await simRequests(bench.sim.origin)).count;
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
      servers: {
        a: `gateway A (${redis ? 'REDIS_URL' : 'no Redis'}, defaults)`,
        b: `gateway B (${redis ? 'the same REDIS_URL' : 'no Redis'}, defaults)`,
      },
      settings: redis
        ? {
            RESPONSE_CACHE_ENABLED: 'true',
            REDIS_URL: redis.url,
            REDIS_PREFIX: redis.prefix,
            KEY_HASH_SECRET: '<random, same on both>',
          }
        : { RESPONSE_CACHE_ENABLED: 'true' },
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
      upstreamByReplica: {
        a: after.a.upstreamRequests - before.a.upstreamRequests,
        b: after.b.upstreamRequests - before.b.upstreamRequests,
      },
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
      ok:
        firstViewsFailed === 0 &&
        non2xx === 0 &&
        errors === 0 &&
        operations - (outcomes.success ?? 0) === 0 &&
        requests > 0,
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
    await bench.stopServer(a);
    await bench.stopServer(b);
  }
}

/**
 * The replicas group: replicas-no-redis, then replicas-redis on a redis-server of our
 * own (a free port on 127.0.0.1, no persistence), stopped at the end. Without a
 * redis-server the Redis half is skipped with a note; the bench goes on.
 */
async function runReplicas(bench: Bench): Promise<void> {
  bench.record('replicas-no-redis', await runReplicaPair(bench, 'replicas-no-redis', null));
  const description = 'two gateways sharing one Redis: first-view upstream requests per operation and load';
  const binary = findRedisServer(bench.args.redisServer);
  if (binary === null) {
    const where =
      bench.args.redisServer === null ? 'no redis-server on PATH' : `${bench.args.redisServer} is not an executable`;
    const note = `${where}: the Redis half of the replicas group did not run (install redis-server, e.g. apt-get install redis-server, or pass --redis-server PATH)`;
    log(`replicas-redis: skipped: ${note}`);
    bench.record('replicas-redis', { description, skipped: 'redis-server not found', note });
    return;
  }
  const port = await bench.allocatePort('redis');
  let service: Service;
  try {
    service = await startRedis(binary, port);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log(`replicas-redis: skipped: ${message}`);
    bench.record('replicas-redis', {
      description,
      skipped: 'redis-server failed to start',
      note: message.slice(0, 1000),
    });
    return;
  }
  log(`redis-server on port ${port} (${binary})`);
  try {
    bench.record(
      'replicas-redis',
      await runReplicaPair(bench, 'replicas-redis', {
        service,
        binary,
        version: redisServerVersion(binary),
        url: `redis://${HOST}:${port}`,
        prefix: `bench-replicas-${process.pid}:`,
        secret: randomBytes(16).toString('hex'),
      }),
    );
  } finally {
    await stopService(service);
  }
}

/** replicas: both halves, one after the other (not profilable: four gateway processes). */
export const replicas: Scenario = { name: 'replicas', profilable: false, run: runReplicas };
