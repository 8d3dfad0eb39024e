import type { Scenario } from '../lib/bench';
import { measureLoad } from '../lib/measure';
import { coldKey, defaultGateway, onDefaultGateway } from './shared';

/** cold: the dashboard with `Cache-Control: no-cache`, 10 connections, one key per connection. */
export const cold: Scenario = {
  name: 'cold',
  uses: [defaultGateway],
  async run(bench) {
    await measureLoad(bench, {
      ...(await onDefaultGateway(bench)),
      name: 'cold',
      description:
        'dashboard with Cache-Control: no-cache, 10 connections, one key per connection (no sharing between operations)',
      query: 'dashboard',
      connections: 10,
      noCache: true,
      keys: `${coldKey(0)}..${coldKey(9)}, one per connection`,
      keyPerConnection: coldKey,
    });
  },
};
