import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Bench, Scenario, SharedServer } from '../lib/bench';
import { log, PREMIUM_KEY, ROOT } from '../lib/bench';
import { measureLoad } from '../lib/measure';
import { startService } from '../lib/processes';
import { ensureDashboardAnalysis, FLOOR_DATA } from './shared';

/** The floor: bare Apollo Server 5 (bench/floor-server.ts) serving the gateway's captured dashboard response. */
const floorServer: SharedServer = {
  name: 'floor',
  async start(bench, profile) {
    await ensureDashboardAnalysis(bench);
    const port = await bench.allocatePort('floor');
    log(`starting floor on port ${port}`);
    const floor = await startService({
      name: 'floor',
      args: [
        ...bench.profileFlags(profile),
        join(ROOT, 'dist', 'bench', 'floor-server.js'),
        '--port',
        String(port),
        '--data',
        FLOOR_DATA,
      ],
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'production' },
      cwd: ROOT,
      port,
      ready: /floor listening on /,
    });
    if (profile) bench.markProfiled(floor);
    return floor;
  },
};

async function measureFloor(bench: Bench, name: string, connections: number): Promise<void> {
  const expected = readFileSync(FLOOR_DATA, 'utf8');
  await measureLoad(bench, {
    name,
    description: `the captured dashboard response from static resolvers, ${connections} connections`,
    server: await bench.shared(floorServer),
    serverLabel: 'floor (bare Apollo Server 5, static data)',
    gateway: false,
    query: 'dashboard',
    connections,
    noCache: false,
    keys: PREMIUM_KEY,
    checkProbe: (data) => {
      if (JSON.stringify(data) !== expected)
        throw new Error('floor: its response data differs from the gateway response it serves');
    },
  });
}

/** floor: what Apollo itself costs for the dashboard, 50 connections. */
export const floor: Scenario = { name: 'floor', uses: [floorServer], run: (bench) => measureFloor(bench, 'floor', 50) };

/** floor-10c: the floor at 10 connections. */
export const floor10c: Scenario = {
  name: 'floor-10c',
  uses: [floorServer],
  run: (bench) => measureFloor(bench, 'floor-10c', 10),
};
