import type { Scenario } from '../lib/bench';
import { PREMIUM_KEY } from '../lib/bench';
import { measureLoad } from '../lib/measure';
import { defaultGateway, onDefaultGateway } from './shared';

/** cold-shared-key: cold dashboards of one key at once, which share in-flight upstream requests. */
export const coldSharedKey: Scenario = {
  name: 'cold-shared-key',
  uses: [defaultGateway],
  async run(bench) {
    await measureLoad(bench, {
      ...(await onDefaultGateway(bench)),
      name: 'cold-shared-key',
      description:
        'dashboard with Cache-Control: no-cache, 10 connections, all with the premium key (concurrent operations share in-flight upstream requests)',
      query: 'dashboard',
      connections: 10,
      noCache: true,
      keys: PREMIUM_KEY,
    });
  },
};
