import type { Scenario } from '../lib/bench';
import { PREMIUM_KEY } from '../lib/bench';
import { measureLoad } from '../lib/measure';
import { defaultGateway, onDefaultGateway } from './shared';

/** small: `{ factories { id name } }` with warm caches, 50 connections. */
export const small: Scenario = {
  name: 'small',
  uses: [defaultGateway],
  async run(bench) {
    await measureLoad(bench, {
      ...(await onDefaultGateway(bench)),
      name: 'small',
      description: '{ factories { id name } }, warm caches, premium key, 50 connections',
      query: 'small',
      connections: 50,
      noCache: false,
      keys: PREMIUM_KEY,
    });
  },
};
