/**
 * `npm start`: runs the gateway with the settings from the environment (see README.md and docs/configuration.md).
 * Stops cleanly on SIGINT/SIGTERM.
 */
import 'reflect-metadata';
import { loadConfig } from './config';
import { runUntilSignal } from './process-lifecycle';
import { startGateway } from './server';

runUntilSignal(async () => {
  const config = loadConfig();
  const gateway = await startGateway(config);
  console.log(`StateV GraphQL gateway on ${gateway.url}/graphql (upstream ${config.upstreamBaseUrl})`);
  return () => gateway.stop();
});
