/**
 * `npm start`: runs the gateway with the settings from the environment (see README.md and docs/configuration.md).
 * On SIGINT/SIGTERM it drains requests in flight (up to `SHUTDOWN_GRACE_PERIOD_MS`) and stops.
 * A port in use ends it with one line naming `PORT` and exit code 1.
 */
import 'reflect-metadata';
import { loadConfig } from './config';
import { applyHeapGrowth } from './heap-growth';
import { explainPortErrors, runUntilSignal } from './process-lifecycle';
import { startGateway } from './server';

void runUntilSignal(async () => {
  const config = loadConfig();
  applyHeapGrowth(config.heapGrowingPercent);
  const gateway = await explainPortErrors({ name: 'PORT', command: 'npm start' }, () => startGateway(config));
  console.log(`StateV GraphQL gateway on ${gateway.url}/graphql (upstream ${config.upstreamBaseUrl})`);
  return { stop: () => gateway.stop(), gracePeriodMs: config.shutdownGracePeriodMs };
});
