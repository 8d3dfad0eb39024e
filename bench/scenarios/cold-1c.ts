import type { Scenario } from '../lib/bench';
import { measureLoad } from '../lib/measure';
import { coldKey, defaultGateway, onDefaultGateway } from './shared';

/** cold-1c: one cold dashboard at a time, latency without load. */
export const cold1c: Scenario = {
  name: 'cold-1c',
  uses: [defaultGateway],
  async run(bench) {
    await measureLoad(bench, {
      ...(await onDefaultGateway(bench)),
      name: 'cold-1c',
      description:
        'dashboard with Cache-Control: no-cache, 1 connection (one operation at a time: latency without load)',
      query: 'dashboard',
      connections: 1,
      noCache: true,
      keys: coldKey(0),
      keyPerConnection: coldKey,
    });
  },
};
