import { readFileSync } from 'node:fs';
import type { Scenario } from '../lib/bench';
import { PREMIUM_KEY } from '../lib/bench';
import { measureLoad } from '../lib/measure';
import { ensureDashboardAnalysis, FLOOR_DATA } from './shared';

/**
 * warm-no-response-cache: warm, but every operation executes (no whole-response cache),
 * 50 connections, then 10 (`warm-no-response-cache-10c`, beside `warm-10c`). Its answer
 * must be the default gateway's (the data `floor` and `execution-floor` serve).
 */
export const warmNoResponseCache: Scenario = {
  name: 'warm-no-response-cache',
  async run(bench) {
    await ensureDashboardAnalysis(bench);
    const expected = readFileSync(FLOOR_DATA, 'utf8');
    const gateway = await bench.startGateway('gateway-no-response-cache', { RESPONSE_CACHE_ENABLED: 'false' });
    const spec = {
      server: gateway,
      serverLabel: 'gateway (RESPONSE_CACHE_ENABLED=false)',
      gateway: true,
      query: 'dashboard',
      noCache: false,
      keys: PREMIUM_KEY,
      checkProbe: (data: unknown) => {
        if (JSON.stringify(data) !== expected)
          throw new Error('warm-no-response-cache: its response data differs from the default gateway response');
      },
    } as const;
    try {
      await measureLoad(bench, {
        ...spec,
        name: 'warm-no-response-cache',
        description:
          'dashboard, warm upstream cache, no response cache (every operation executes), premium key, 50 connections',
        connections: 50,
      });
      await measureLoad(bench, {
        ...spec,
        name: 'warm-no-response-cache-10c',
        description: 'as warm-no-response-cache, 10 connections',
        connections: 10,
      });
    } finally {
      await bench.stopServer(gateway);
    }
  },
};
