import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Scenario } from '../lib/bench';
import { log, PREMIUM_KEY, ROOT } from '../lib/bench';
import { measureLoad } from '../lib/measure';
import { startService } from '../lib/processes';
import { ensureDashboardAnalysis, FLOOR_DATA } from './shared';

/**
 * execution-floor: graphql-js `execute` over schema.graphql with plain resolvers reading
 * the cached upstream answers from a Map (bench/execution-floor-server.ts), behind the same
 * HTTP bridge, 50 connections: what `warm-no-response-cache` would cost with nothing but
 * execution. Its answer must be the gateway's exactly (the data `floor` serves).
 */
export const executionFloor: Scenario = {
  name: 'execution-floor',
  async run(bench) {
    await ensureDashboardAnalysis(bench);
    const expected = readFileSync(FLOOR_DATA, 'utf8');
    const port = await bench.allocatePort('execution-floor');
    log(`starting execution-floor on port ${port}`);
    const server = await startService({
      name: 'execution-floor',
      args: [
        ...bench.profileFlags(bench.profiling),
        join(ROOT, 'dist', 'bench', 'execution-floor-server.js'),
        '--port',
        String(port),
        '--simulator',
        `${bench.sim.origin}/req`,
        '--key',
        PREMIUM_KEY,
      ],
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'production' },
      cwd: ROOT,
      port,
      ready: /execution-floor listening on /,
    });
    if (bench.profiling) bench.markProfiled(server);
    try {
      await measureLoad(bench, {
        name: 'execution-floor',
        description:
          'dashboard by graphql-js execute with plain resolvers over the upstream answers in a Map, 50 connections',
        server,
        serverLabel: 'execution floor (graphql-js execute, answers from a Map)',
        gateway: false,
        query: 'dashboard',
        connections: 50,
        noCache: false,
        keys: PREMIUM_KEY,
        checkProbe: (data) => {
          if (JSON.stringify(data) !== expected)
            throw new Error('execution-floor: its response data differs from the gateway response');
        },
      });
    } finally {
      await bench.stopServer(server);
    }
  },
};
