/**
 * The side-by-side group: the same warm operation (bench/queries/peer-comparable.graphql,
 * the dashboard less the fields the peer answers with an error) at 10 connections on
 *
 * - `warm-peer-query`: this gateway with its defaults (a response-cache hit);
 * - `bytes-floor`: a node:http server answering the gateway's stored answer bytes
 *   (bench/bytes-floor-server.ts), the physical floor of a cached answer;
 * - `peer`: GraphQL Mesh served by Hive Gateway (`../shared/peer`, profile `tuned`: a
 *   response cache per Authorization header), over the same simulator.
 *
 * Compared as server CPU per request (`warmVsPeerCpu`, `warmVsBytesFloorCpu` in the summary).
 * The peer needs its packages: `npm ci` in its folder (`--peer-root`, default
 * `../shared/peer`); a full run installs a copy into bench/results/peer when they are
 * missing, a `--quick` run records the peer as skipped instead.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Bench, Scenario } from '../lib/bench';
import { log, operationBody, PREMIUM_KEY, RESULTS, ROOT } from '../lib/bench';
import { assertSuccess, graphqlHeaders, postGraphQL } from '../lib/http';
import { measureLoad } from '../lib/measure';
import { startService } from '../lib/processes';
import { defaultGateway, onDefaultGateway } from './shared';

/** This gateway's form of the operation, and the peer's. */
const GATEWAY_BODY = operationBody('peer-comparable.graphql', 'PeerComparable');
const PEER_BODY = operationBody('peer-comparable.peer.graphql', 'PeerComparable');
/** Connections of the three scenarios (the peer was measured at 10). */
const CONNECTIONS = 10;
/** The answer bytes and headers bytes-floor serves. */
const FLOOR_BODY = join(RESULTS, 'bytes-floor-body.json');
const FLOOR_HEADERS = join(RESULTS, 'bytes-floor-headers.json');

/** The gateway's warm answer to the operation: its text, data and the headers a client sees. */
async function gatewayAnswer(bench: Bench): Promise<{ text: string; data: unknown; headers: Record<string, string> }> {
  const gateway = await bench.shared(defaultGateway);
  const url = `${gateway.origin}/graphql`;
  // The first answer may still be filling; the second comes from the response cache.
  assertSuccess(await postGraphQL(url, GATEWAY_BODY, graphqlHeaders(PREMIUM_KEY, false)), 'warm-peer-query probe');
  const response = await fetch(url, {
    method: 'POST',
    headers: graphqlHeaders(PREMIUM_KEY, false),
    body: GATEWAY_BODY,
  });
  const text = await response.text();
  const headers: Record<string, string> = {};
  // `age` too: the floor then sends the same header bytes as the gateway's hit.
  for (const name of ['age', 'content-type', 'cache-control', 'vary']) {
    const value = response.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  return { text, data: (JSON.parse(text) as { data?: unknown }).data, headers };
}

/** What the peer's and the gateway's answers must share: the ids of every company, building and bank account. */
function identities(data: unknown): string {
  const ids: string[] = [];
  const walk = (value: unknown, path: string): void => {
    if (Array.isArray(value)) value.forEach((item) => walk(item, path));
    else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        if (key === 'id' && typeof child === 'string') ids.push(`${path}:${child}`);
        else walk(child, `${path}.${key}`);
      }
    }
  };
  walk(data, '');
  return ids.sort().join(',');
}

/** warm-peer-query: this gateway's response-cache hit for the side-by-side operation. */
export const warmPeerQuery: Scenario = {
  name: 'warm-peer-query',
  uses: [defaultGateway],
  async run(bench) {
    await measureLoad(bench, {
      ...(await onDefaultGateway(bench)),
      name: 'warm-peer-query',
      description: `the dashboard less the fields the peer fails, warm caches, premium key, ${CONNECTIONS} connections (compare with bytes-floor and peer)`,
      query: 'peer-comparable',
      body: GATEWAY_BODY,
      connections: CONNECTIONS,
      noCache: false,
      keys: PREMIUM_KEY,
    });
  },
};

/** bytes-floor: a node:http server answering the gateway's stored answer bytes. */
export const bytesFloor: Scenario = {
  name: 'bytes-floor',
  uses: [defaultGateway],
  async run(bench) {
    const answer = await gatewayAnswer(bench);
    writeFileSync(FLOOR_BODY, answer.text);
    writeFileSync(FLOOR_HEADERS, JSON.stringify(answer.headers));
    const port = await bench.allocatePort('bytes-floor');
    log(`starting bytes-floor on port ${port}`);
    const server = await startService({
      name: 'bytes-floor',
      args: [
        join(ROOT, 'dist', 'bench', 'bytes-floor-server.js'),
        '--port',
        String(port),
        '--body',
        FLOOR_BODY,
        '--headers',
        FLOOR_HEADERS,
      ],
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'production' },
      cwd: ROOT,
      port,
      ready: /bytes-floor listening on /,
    });
    try {
      await measureLoad(bench, {
        name: 'bytes-floor',
        description: `the gateway's stored answer bytes from node:http, ${CONNECTIONS} connections`,
        server,
        serverLabel: 'bytes floor (node:http, one stored buffer)',
        gateway: false,
        query: 'peer-comparable',
        body: GATEWAY_BODY,
        connections: CONNECTIONS,
        noCache: false,
        keys: PREMIUM_KEY,
      });
    } finally {
      await bench.stopServer(server);
    }
  },
};

/** The peer's folder with its packages installed, or why there is none. */
function peerFolder(bench: Bench): { root: string } | { skipped: string } {
  const given = resolve(bench.args.peerRoot ?? join(ROOT, '..', 'shared', 'peer'));
  const bin = (root: string): string => join(root, 'node_modules', '@graphql-hive', 'gateway', 'package.json');
  if (!existsSync(join(given, 'supergraph.graphql'))) return { skipped: `no peer at ${given} (--peer-root)` };
  if (existsSync(bin(given))) return { root: given };
  const copy = join(RESULTS, 'peer');
  if (existsSync(bin(copy))) return { root: copy };
  if (bench.args.quick)
    return { skipped: `the peer's packages are not installed: npm ci in ${given} (a full run installs a copy)` };
  log(`installing the peer's packages into ${copy} (npm ci, a few minutes)`);
  rmSync(copy, { recursive: true, force: true });
  cpSync(given, copy, { recursive: true, filter: (source) => !source.includes('node_modules') });
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: copy, stdio: ['ignore', 'ignore', 'inherit'] });
  return { root: copy };
}

/** peer: GraphQL Mesh on Hive Gateway, per-key response cache, the same operation in its schema. */
export const peer: Scenario = {
  name: 'peer',
  uses: [defaultGateway],
  async run(bench) {
    const folder = peerFolder(bench);
    if ('skipped' in folder) {
      log(`peer: skipped, ${folder.skipped}`);
      bench.record('peer', { skipped: folder.skipped });
      return;
    }
    const expected = identities((await gatewayAnswer(bench)).data);
    const port = await bench.allocatePort('peer');
    log(`starting the peer (Hive Gateway, profile tuned) on port ${port}`);
    const server = await startService({
      name: 'peer',
      args: [
        join(folder.root, 'node_modules', '.bin', 'hive-gateway'),
        'supergraph',
        'supergraph.graphql',
        '--port',
        String(port),
        '--host',
        '127.0.0.1',
        '--fork',
        '1',
      ],
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        NODE_ENV: 'production',
        NO_COLOR: '1',
        STATEV_BASE_URL: `${bench.sim.origin}/req`,
        PEER_PROFILE: 'tuned',
      },
      cwd: folder.root,
      port,
      ready: /Listening on /,
      timeoutMs: 120_000,
    });
    try {
      await measureLoad(bench, {
        name: 'peer',
        description: `GraphQL Mesh on Hive Gateway (tuned: per-key response cache), the same operation in its schema, ${CONNECTIONS} connections`,
        server,
        serverLabel: 'peer (Hive Gateway 2 + GraphQL Mesh, tuned)',
        gateway: false,
        query: 'peer-comparable',
        body: PEER_BODY,
        connections: CONNECTIONS,
        noCache: false,
        keys: PREMIUM_KEY,
        checkProbe: (data) => {
          if (identities(data) !== expected)
            throw new Error('peer: its answer names other companies, buildings or accounts than the gateway');
        },
      });
    } finally {
      await bench.stopServer(server);
    }
  },
};
