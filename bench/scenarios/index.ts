/**
 * The scenario registry: every scenario `npm run bench` knows, in the order it runs them.
 * To add one, write `bench/scenarios/<name>.ts` exporting a `Scenario` and add it here
 * (see bench/README.md, "Adding a scenario").
 */
import type { Scenario } from '../lib/bench';
import { alerts } from './alerts';
import { cold } from './cold';
import { consoleScenario } from './console';
import { cold1c } from './cold-1c';
import { coldSharedKey } from './cold-shared-key';
import { distinctDocuments } from './distinct-documents';
import { executionFloor } from './execution-floor';
import { floor, floor10c } from './floor';
import { hostile } from './hostile';
import { liveCrowd } from './live-crowd';
import { livePage } from './live-page';
import { manyKeys } from './many-keys';
import { metricsKeys } from './metrics-keys';
import { naive } from './naive';
import { payments } from './payments';
import { bytesFloor, peer, warmPeerQuery } from './peer';
import { rateLimited } from './rate-limited';
import { siteDocuments } from './site-documents';
import { replicas } from './replicas';
import { restart } from './restart';
import { small } from './small';
import { subscriptions } from './subscriptions';
import { soak } from './soak';
import { steadyViews } from './steady-views';
import { warm } from './warm';
import { warm10c } from './warm-10c';
import { warmNoResponseCache } from './warm-no-response-cache';
import { warmToken } from './warm-token';

/** Every scenario, in run order. */
export const SCENARIOS: readonly Scenario[] = [
  warm,
  warm10c,
  small,
  cold,
  cold1c,
  coldSharedKey,
  manyKeys,
  warmNoResponseCache,
  executionFloor,
  naive,
  floor,
  floor10c,
  warmPeerQuery,
  bytesFloor,
  peer,
  replicas,
  restart,
  steadyViews,
  subscriptions,
  soak,
  metricsKeys,
  hostile,
  distinctDocuments,
  rateLimited,
  livePage,
  consoleScenario,
  liveCrowd,
  siteDocuments,
  warmToken,
  payments,
  alerts,
];
