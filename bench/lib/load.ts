/**
 * Load generation with autocannon's programmatic API: a fixed number of connections
 * for a fixed time (or a fixed number of requests), each response's latency recorded
 * with sub-millisecond precision.
 */
import autocannon from 'autocannon';
import type { Client, Instance, Request as CannonRequest, Result } from 'autocannon';

/** One load run. */
export interface LoadOptions {
  /** Full URL of the GraphQL endpoint. */
  url: string;
  connections: number;
  /** Seconds to run (ignored with `amount`). */
  durationSeconds: number;
  /** Run exactly this many requests instead of a duration. */
  amount?: number;
  /** JSON request body. */
  body: string;
  /** Headers of every request. */
  headers: Record<string, string>;
  /** A fixed Authorization key per connection (connection index → key). */
  keyPerConnection?: (index: number) => string;
  /** Keys that successive requests rotate through (across all connections). */
  rotateKeys?: readonly string[];
}

/** What one load run measured. */
export interface LoadResult {
  /** Completed responses (any status). */
  requests: number;
  /** Measured seconds. */
  durationSeconds: number;
  /** Completed responses per second. */
  rps: number;
  /** Response latency percentiles, ms. */
  latencyMs: { p50: number; p90: number; p99: number; mean: number; max: number };
  /** Responses with a status outside 2xx. */
  non2xx: number;
  /** Connection errors (timeouts included). */
  errors: number;
  timeouts: number;
  /** Every response's latency, ms, in completion order (to merge concurrent runs; not for the summary). */
  samples: Float64Array;
}

const active = new Set<Instance>();

/** Stops the load runs in progress, if any (SIGINT, watchdog). */
export function stopActiveLoad(): void {
  for (const instance of active) instance.stop();
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? 0;
}

function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** p50/p90/p99, mean and max of latencies in ms (e.g. of two runs that went on at once). */
export function summarizeLatencies(samples: Float64Array): LoadResult['latencyMs'] {
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (const value of sorted) sum += value;
  return {
    p50: round(percentile(sorted, 50)),
    p90: round(percentile(sorted, 90)),
    p99: round(percentile(sorted, 99)),
    mean: round(sorted.length > 0 ? sum / sorted.length : 0),
    max: round(sorted[sorted.length - 1] ?? 0),
  };
}

/** Runs autocannon once and summarizes it. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  let latencies = new Float64Array(65_536);
  let count = 0;
  let non2xx = 0;
  let nextConnection = 0;
  let nextKey = 0;
  const rotate = options.rotateKeys;
  const perConnection = options.keyPerConnection;

  const request: CannonRequest = {
    method: 'POST',
    path: new URL(options.url).pathname,
    headers: options.headers,
    body: options.body,
    ...(rotate && rotate.length > 0
      ? {
          setupRequest: (req: CannonRequest): CannonRequest => {
            const key = rotate[nextKey % rotate.length] ?? '';
            nextKey += 1;
            return { ...req, headers: { ...req.headers, authorization: `Bearer ${key}` } };
          },
        }
      : {}),
  };

  const result = await new Promise<Result>((resolve, reject) => {
    let instance: Instance | null = null;
    instance = autocannon(
      {
        url: options.url,
        connections: options.connections,
        ...(options.amount !== undefined ? { amount: options.amount } : { duration: options.durationSeconds }),
        timeout: 30,
        requests: [request],
        ...(perConnection
          ? {
              setupClient: (client: Client): void => {
                client.setHeaders({ ...options.headers, authorization: `Bearer ${perConnection(nextConnection)}` });
                nextConnection += 1;
              },
            }
          : {}),
      },
      (error: unknown, finished: Result) => {
        if (instance !== null) active.delete(instance);
        if (error) reject(error instanceof Error ? error : new Error(String(error)));
        else resolve(finished);
      },
    );
    active.add(instance);
    instance.on('response', (_client: Client, statusCode: number, _bytes: number, responseTime: number) => {
      if (count === latencies.length) {
        const grown = new Float64Array(latencies.length * 2);
        grown.set(latencies);
        latencies = grown;
      }
      latencies[count] = responseTime;
      count += 1;
      if (statusCode < 200 || statusCode >= 300) non2xx += 1;
    });
  });

  const samples = latencies.slice(0, count);
  const durationSeconds = result.duration > 0 ? result.duration : options.durationSeconds;
  return {
    requests: count,
    durationSeconds,
    rps: round(count / durationSeconds, 1),
    latencyMs: summarizeLatencies(samples),
    non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    samples,
  };
}
