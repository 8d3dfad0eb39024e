import type { Scenario } from '../lib/bench';
import { PREMIUM_KEY } from '../lib/bench';
import { measureLoad } from '../lib/measure';
import { defaultGateway, onDefaultGateway } from './shared';

/** warm-10c: warm at 10 connections, the peer's setting. */
export const warm10c: Scenario = {
  name: 'warm-10c',
  uses: [defaultGateway],
  async run(bench) {
    await measureLoad(bench, {
      ...(await onDefaultGateway(bench)),
      name: 'warm-10c',
      description: 'dashboard, warm caches, premium key, 10 connections (compare with the peer)',
      query: 'dashboard',
      connections: 10,
      noCache: false,
      keys: PREMIUM_KEY,
    });
  },
};
