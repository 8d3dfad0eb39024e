import type { Scenario } from '../lib/bench';
import { measureLoad } from '../lib/measure';
import { coldKey } from './shared';

/** naive: the cold load on a gateway without loaders and cache (benchmark-only settings). */
export const naive: Scenario = {
  name: 'naive',
  async run(bench) {
    const gateway = await bench.startGateway('gateway-naive', { LOADERS_ENABLED: 'false', CACHE_ENABLED: 'false' });
    try {
      await measureLoad(bench, {
        name: 'naive',
        description:
          'dashboard on a gateway with LOADERS_ENABLED=false CACHE_ENABLED=false (benchmark-only), cold-style load: no-cache, 10 connections, one key per connection',
        server: gateway,
        serverLabel: 'gateway (LOADERS_ENABLED=false CACHE_ENABLED=false)',
        gateway: true,
        query: 'dashboard',
        connections: 10,
        noCache: true,
        keys: `${coldKey(0)}..${coldKey(9)}, one per connection`,
        keyPerConnection: coldKey,
      });
    } finally {
      await bench.stopServer(gateway);
    }
  },
};
