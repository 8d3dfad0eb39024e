#!/usr/bin/env node
/**
 * `statev-gateway` and `npm start`: runs the gateway with the settings from the environment
 * and the command line (`statev-gateway --help` lists them; see README.md and
 * docs/configuration.md). On SIGINT/SIGTERM it drains requests in flight (up to
 * `SHUTDOWN_GRACE_PERIOD_MS`) and stops. A bad flag or setting exits with code 2; a port in
 * use ends it with one line naming `PORT` and exit code 1.
 */
import 'reflect-metadata';
import { gatewayCommand } from './cli/gateway-cli';
import { redactUrlCredentials } from './config';
import { applyHeapGrowth } from './heap-growth';
import { explainPortErrors, runUntilSignal } from './process-lifecycle';
import { startGateway } from './server';

const command = gatewayCommand(process.argv.slice(2));
if ('run' in command) {
  const config = command.run;
  void runUntilSignal(async () => {
    applyHeapGrowth(config.heapGrowingPercent);
    const gateway = await explainPortErrors({ name: 'PORT', command: 'npm start' }, () => startGateway(config));
    console.log(`StateV GraphQL gateway on ${gateway.url}/graphql (upstream ${redactUrlCredentials(config.upstreamBaseUrl)})`);
    return { stop: () => gateway.stop(), gracePeriodMs: config.shutdownDelayMs + config.shutdownGracePeriodMs };
  });
} else {
  if (command.stdout) process.stdout.write(command.stdout);
  if (command.stderr) process.stderr.write(command.stderr);
  process.exitCode = command.exitCode;
}
