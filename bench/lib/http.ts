/**
 * Small HTTP helpers of the benchmark: GraphQL requests, the simulator's admin API and
 * the gateway's operation counter, all with timeouts.
 */

/** A GraphQL response as JSON. */
export interface GraphQLReply {
  status: number;
  text: string;
  json: { data?: unknown; errors?: unknown[]; extensions?: Record<string, unknown> };
}

/** Headers of one benchmark GraphQL request. */
export function graphqlHeaders(apiKey: string | null, noCache: boolean): Record<string, string> {
  return {
    'content-type': 'application/json',
    ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
    ...(noCache ? { 'cache-control': 'no-cache' } : {}),
  };
}

/**
 * The header of a probe (a scenario's first request, a gateway's first dashboard):
 * `Prefer: wait=10`, the most a gateway waits for upstream slots and budget
 * (`UPSTREAM_PATIENCE_MAX_MS`). A cold dashboard sends 86 upstream requests, 10 at a time
 * per key; on a slow or loaded machine (a gateway under `--cpu-prof`) some wait longer than
 * `UPSTREAM_PATIENCE_MS` (1.5 s) for a slot and the gateway answers them `RATE_LIMITED`,
 * which failed the probe. The load itself sends no `Prefer`.
 */
export const PROBE_HEADERS: Readonly<Record<string, string>> = Object.freeze({ prefer: 'wait=10' });

/** POSTs one operation and parses the answer. */
export async function postGraphQL(
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs = 30_000,
): Promise<GraphQLReply> {
  const response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(timeoutMs) });
  const text = await response.text();
  let json: GraphQLReply['json'];
  try {
    json = JSON.parse(text) as GraphQLReply['json'];
  } catch {
    throw new Error(`${url} answered ${response.status} with a body that is not JSON: ${text.slice(0, 300)}`);
  }
  return { status: response.status, text, json };
}

/**
 * Checks that a reply is a complete success (HTTP 200, data, no errors).
 *
 * @throws Error quoting the first error otherwise.
 */
export function assertSuccess(reply: GraphQLReply, what: string): void {
  if (
    reply.status !== 200 ||
    reply.json.errors !== undefined ||
    reply.json.data === undefined ||
    reply.json.data === null
  ) {
    throw new Error(
      `${what}: expected a successful GraphQL response, got HTTP ${reply.status}: ${reply.text.slice(0, 500)}`,
    );
  }
}

/** One entry of the simulator's request log (the fields the benchmark reads). */
export interface SimRequest {
  method: string;
  path: string;
  route: string;
  keyLabel: string;
  status: number;
  at: number;
}

/** `GET /__sim/requests` of the simulator. */
export async function simRequests(simOrigin: string): Promise<{ count: number; requests: SimRequest[] }> {
  const response = await fetch(`${simOrigin}/__sim/requests`, { signal: AbortSignal.timeout(30_000) });
  if (!response.ok) throw new Error(`GET ${simOrigin}/__sim/requests answered ${response.status}`);
  return (await response.json()) as { count: number; requests: SimRequest[] };
}

/** `POST /__sim/reset`: clears the simulator's request log. */
export async function simReset(simOrigin: string): Promise<void> {
  const response = await fetch(`${simOrigin}/__sim/reset`, { method: 'POST', signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`POST ${simOrigin}/__sim/reset answered ${response.status}`);
  await response.arrayBuffer();
}

/** The gateway's `statev_graphql_operations_total` by outcome, from `/metrics`. */
export async function gatewayOperations(gatewayOrigin: string): Promise<Record<string, number>> {
  const response = await fetch(`${gatewayOrigin}/metrics`, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`GET ${gatewayOrigin}/metrics answered ${response.status}`);
  const text = await response.text();
  const outcomes: Record<string, number> = {};
  for (const match of text.matchAll(/^statev_graphql_operations_total\{outcome="(\w+)"\} (\d+(?:\.\d+)?)$/gm)) {
    const outcome = match[1];
    if (outcome !== undefined) outcomes[outcome] = Number(match[2]);
  }
  return outcomes;
}

/** What the replicas scenario reads from one gateway's `/metrics`. */
export interface GatewayCounters {
  /** `statev_graphql_operations_total` by outcome. */
  operations: Record<string, number>;
  /** `statev_upstream_requests_total`, all endpoints and statuses: the upstream requests this process sent. */
  upstreamRequests: number;
  /** `statev_redis_errors_total` (0 without Redis). */
  redisErrors: number;
  /** `statev_redis_up` (0 without Redis or while it is away). */
  redisUp: number;
}

/** Operation, upstream and Redis counters of a gateway, from `/metrics`. */
export async function gatewayCounters(gatewayOrigin: string): Promise<GatewayCounters> {
  const response = await fetch(`${gatewayOrigin}/metrics`, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`GET ${gatewayOrigin}/metrics answered ${response.status}`);
  const text = await response.text();
  const operations: Record<string, number> = {};
  for (const match of text.matchAll(/^statev_graphql_operations_total\{outcome="(\w+)"\} (\d+(?:\.\d+)?)$/gm)) {
    const outcome = match[1];
    if (outcome !== undefined) operations[outcome] = Number(match[2]);
  }
  let upstreamRequests = 0;
  // Label values hold route patterns with braces (`{id}`): match up to the last `} `.
  for (const match of text.matchAll(/^statev_upstream_requests_total\{.*\} (\d+(?:\.\d+)?)$/gm))
    upstreamRequests += Number(match[1]);
  const single = (name: string): number => Number(new RegExp(`^${name} (\\d+(?:\\.\\d+)?)$`, 'm').exec(text)?.[1] ?? 0);
  return {
    operations,
    upstreamRequests,
    redisErrors: single('statev_redis_errors_total'),
    redisUp: single('statev_redis_up'),
  };
}

/** Sum of the values of an outcome map. */
export function total(outcomes: Readonly<Record<string, number>>): number {
  return Object.values(outcomes).reduce((sum, value) => sum + value, 0);
}

/** `after - before` per outcome (outcomes that did not change are left out). */
export function difference(
  after: Readonly<Record<string, number>>,
  before: Readonly<Record<string, number>>,
): Record<string, number> {
  const result: Record<string, number> = {};
  for (const [outcome, value] of Object.entries(after)) {
    const delta = value - (before[outcome] ?? 0);
    if (delta !== 0) result[outcome] = delta;
  }
  return result;
}

/** Waits `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Reads `nodejs_heap_size_used_bytes` (prom-client's default metric) from the gateway's /metrics, in MB. */
export async function heapUsedMb(origin: string): Promise<number | null> {
  const text = await (await fetch(`${origin}/metrics`)).text();
  const line = text.split('\n').find((row) => row.startsWith('nodejs_heap_size_used_bytes '));
  const value = line ? Number(line.split(' ')[1]) : Number.NaN;
  return Number.isFinite(value) ? value / (1024 * 1024) : null;
}
