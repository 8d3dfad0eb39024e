import type { Scenario } from '../lib/bench';
import { PREMIUM_KEY } from '../lib/bench';
import { measureLoad } from '../lib/measure';
import { defaultGateway, onDefaultGateway } from './shared';

/** warm: the dashboard with warm caches, premium key, 50 connections. */
export const warm: Scenario = {
  name: 'warm',
  uses: [defaultGateway],
  async run(bench) {
    await measureLoad(bench, {
      ...(await onDefaultGateway(bench)),
      name: 'warm',
      description: 'dashboard, warm caches, premium key, 50 connections',
      query: 'dashboard',
      connections: 50,
      noCache: false,
      keys: PREMIUM_KEY,
    });
  },
};
