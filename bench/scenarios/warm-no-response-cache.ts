import type { Scenario } from '../lib/bench';
import { PREMIUM_KEY } from '../lib/bench';
import { measureLoad } from '../lib/measure';

/** warm-no-response-cache: warm, but every operation executes (no whole-response cache). */
export const warmNoResponseCache: Scenario = {
  name: 'warm-no-response-cache',
  async run(bench) {
    const gateway = await bench.startGateway('gateway-no-response-cache', { RESPONSE_CACHE_ENABLED: 'false' });
    try {
      await measureLoad(bench, {
        name: 'warm-no-response-cache',
        description: 'dashboard, warm upstream cache, no response cache (every operation executes), premium key, 50 connections',
        server: gateway,
        serverLabel: 'gateway (RESPONSE_CACHE_ENABLED=false)',
        gateway: true,
        query: 'dashboard',
        connections: 50,
        noCache: false,
        keys: PREMIUM_KEY,
      });
    } finally {
      await bench.stopServer(gateway);
    }
  },
};
