/**
 * What several scenarios share: the gateway with its defaults (warm, warm-10c, small and
 * the cold scenarios run on one process), the dashboard's analysis it makes when it
 * starts (and the floor serves), the key names, and the gateway over a vault of a
 * scenario's own with a receiver of webhook POSTs (payments, alerts).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'graphql-ws';
import type { Client } from 'graphql-ws';
import WebSocket from 'ws';
import type { SharedServer } from '../lib/bench';
import { log, PREMIUM_KEY, RESULTS } from '../lib/bench';
import type { Bench } from '../lib/bench';
import { assertSuccess, graphqlHeaders, postGraphQL, PROBE_HEADERS, simRequests, simReset } from '../lib/http';
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
  const cold = await postGraphQL(`${gateway.origin}/graphql`, bench.dashboard, {
    ...graphqlHeaders(PREMIUM_KEY, true),
    ...PROBE_HEADERS,
  });
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

/** The settings of a vault of a scenario's own: its file and a random master key. */
export interface VaultSettings {
  readonly VAULT_FILE: string;
  readonly VAULT_MASTER_KEY: string;
}

/** A gateway over a vault of a scenario's own, a receiver of webhook POSTs and a WebSocket client (see {@link startVaultGateway}). */
export interface VaultGateway {
  /** The gateway's process. */
  readonly gateway: Service;
  /** Its `/graphql` URL. */
  readonly url: string;
  /** The vault's settings, for the command line or a `Vault` of the scenario. */
  readonly vaultEnv: VaultSettings;
  /** Every POST the receiver got: when it arrived, and its body. */
  readonly posts: ReadonlyArray<{ readonly at: number; readonly text: string }>;
  /** The receiver's URL for `path` (e.g. `/hook`), on 127.0.0.1. */
  receiverUrl(path: string): string;
  /** A graphql-ws client on the key (`authorization: Bearer <key>`, no retry). */
  readonly client: Client;
  /** Disposes the client, stops the gateway and the receiver, removes the vault's folder. */
  close(): Promise<void>;
}

/**
 * Starts what the webhook and alert scenarios share: a vault in a temporary folder with a
 * random master key (`addKey` puts the scenario's key in it before the gateway starts), a
 * receiver of POSTs on 127.0.0.1, the gateway `name` over that vault (`PAYMENTS_FILE=off`,
 * then `settings`) and a WebSocket client on `key`.
 */
export async function startVaultGateway(
  bench: Bench,
  options: {
    readonly name: string;
    readonly key: string;
    readonly settings: Record<string, string>;
    readonly addKey: (vaultEnv: VaultSettings) => unknown;
  },
): Promise<VaultGateway> {
  const folder = mkdtempSync(join(tmpdir(), `statev-bench-${options.name}-`));
  const vaultEnv = { VAULT_FILE: join(folder, 'vault.json'), VAULT_MASTER_KEY: randomBytes(32).toString('base64') };
  const posts: Array<{ at: number; text: string }> = [];
  const receiver = createServer((request, response) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => {
      posts.push({ at: Date.now(), text });
      response.writeHead(204).end();
    });
  });
  const closeReceiver = (): Promise<void> => new Promise<void>((resolve) => receiver.close(() => resolve()));
  let gateway: Service;
  try {
    await options.addKey(vaultEnv);
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    gateway = await bench.startGateway(options.name, { ...vaultEnv, PAYMENTS_FILE: 'off', ...options.settings });
  } catch (error) {
    if (receiver.listening) await closeReceiver();
    rmSync(folder, { recursive: true, force: true });
    throw error;
  }
  const url = `${gateway.origin}/graphql`;
  const client = createClient({
    url: url.replace(/^http/, 'ws'),
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${options.key}` },
    retryAttempts: 0,
  });
  return {
    gateway,
    url,
    vaultEnv,
    posts,
    receiverUrl: (path) => `http://127.0.0.1:${(receiver.address() as AddressInfo).port}${path}`,
    client,
    async close() {
      await client.dispose();
      await bench.stopServer(gateway);
      await closeReceiver();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
