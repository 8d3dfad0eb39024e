/**
 * `npm start`: runs the gateway with the settings from the environment (see README).
 * Stops cleanly on SIGINT/SIGTERM.
 */
import 'reflect-metadata';
import { loadConfig } from './config';
import { startGateway } from './server';

async function main(): Promise<void> {
  const config = loadConfig();
  const gateway = await startGateway(config);
  console.log(`StateV GraphQL gateway on ${gateway.url}/graphql (upstream ${config.upstreamBaseUrl})`);
  const shutdown = (): void => {
    gateway.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
