/**
 * What several scenarios share: the gateway with its defaults (warm, warm-10c, small and
 * the cold scenarios run on one process), the dashboard's analysis it makes when it
 * starts (and the floor serves), and the key names.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SharedServer } from '../lib/bench';
import { log, PREMIUM_KEY, RESULTS } from '../lib/bench';
import type { Bench } from '../lib/bench';
import { assertSuccess, graphqlHeaders, postGraphQL, simRequests, simReset } from '../lib/http';
import type { Service } from '../lib/processes';

/** Keys of the cold-style scenarios: one per connection, never used elsewhere. */
export const coldKey = (connection: number): string => `sim-key-${900_001 + connection}`;

/** What one no-cache dashboard run needs upstream, and the warm response (the floor serves it). */
export interface DashboardAnalysis {
  /** Distinct upstream paths. */
  distinct: number;
  /** Upstream requests. */
  total: number;
  /** Bytes of the warm response. */
  responseBytes: number;
}

/** The file the floor serves: the warm gateway's dashboard `data`. */
export const FLOOR_DATA = join(RESULTS, 'floor-data.json');

const ANALYSIS = 'dashboard-analysis';

/** The dashboard's analysis, once the default gateway has made it (else null). */
export function dashboardAnalysis(bench: Bench): DashboardAnalysis | null {
  return (bench.facts.get(ANALYSIS) as DashboardAnalysis | undefined) ?? null;
}

/** One no-cache dashboard run (DISTINCT paths in the simulator log), then a warm one whose data the floor serves. */
async function analyseDashboard(bench: Bench, gateway: Service): Promise<void> {
  await simReset(bench.sim.origin);
  const cold = await postGraphQL(`${gateway.origin}/graphql`, bench.dashboard, graphqlHeaders(PREMIUM_KEY, true));
  assertSuccess(cold, 'dashboard (no-cache)');
  const upstream = await simRequests(bench.sim.origin);
  const distinct = new Set(upstream.requests.map((request) => `${request.method} ${request.path}`)).size;
  const warm = await postGraphQL(`${gateway.origin}/graphql`, bench.dashboard, graphqlHeaders(PREMIUM_KEY, false));
  assertSuccess(warm, 'dashboard (warm)');
  writeFileSync(FLOOR_DATA, JSON.stringify(warm.json.data));
  const analysis: DashboardAnalysis = { distinct, total: upstream.count, responseBytes: Buffer.byteLength(warm.text) };
  bench.facts.set(ANALYSIS, analysis);
  log(
    `dashboard: ${analysis.total} upstream requests without cache, ${analysis.distinct} distinct paths, ${analysis.responseBytes} bytes of response`,
  );
}

/** The gateway with its defaults; on start it analyses the dashboard (see {@link dashboardAnalysis}). */
export const defaultGateway: SharedServer = {
  name: 'gateway',
  async start(bench, profile) {
    const gateway = await bench.startGateway('gateway', {}, { profile });
    await analyseDashboard(bench, gateway);
    return gateway;
  },
};

/** Makes sure the dashboard was analysed (starting and stopping a default gateway if none ran yet). */
export async function ensureDashboardAnalysis(bench: Bench): Promise<void> {
  if (dashboardAnalysis(bench) !== null) return;
  const gateway = await bench.startGateway('gateway', {}, { profile: false });
  try {
    await analyseDashboard(bench, gateway);
  } finally {
    await bench.stopServer(gateway);
  }
}

/** The part of a load spec every scenario on the default gateway shares. */
export async function onDefaultGateway(bench: Bench): Promise<{ server: Service; serverLabel: string; gateway: true }> {
  return { server: await bench.shared(defaultGateway), serverLabel: 'gateway (defaults)', gateway: true };
}
