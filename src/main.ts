#!/usr/bin/env node
/**
 * `statev-gateway` and `npm start`: runs the gateway with the settings from the environment
 * and the command line (`statev-gateway --help` lists them; see README.md and
 * docs/configuration.md). On SIGINT/SIGTERM it drains requests in flight (up to
 * `SHUTDOWN_GRACE_PERIOD_MS`) and stops. `statev-gateway keys|tokens|vault …` changes the
 * vault instead (src/cli/vault-cli.ts) and exits; `statev-gateway console` prints a console
 * sign-in link (src/cli/console-cli.ts). A bad flag or setting exits with code 2; a port in
 * use ends it with one line naming `PORT` and exit code 1.
 */
import 'reflect-metadata';
import { gatewayCommand } from './cli/gateway-cli';
import { VAULT_COMMANDS, vaultCommand } from './cli/vault-cli';
import { redactUrlCredentials } from './config';
import { applyHeapGrowth } from './heap-growth';
import { explainPortErrors, runUntilSignal } from './process-lifecycle';

/** Standard input, read to its end (`keys add` reads the key and secret from it). */
async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  return text;
}

const argv = process.argv.slice(2);
const command =
  (VAULT_COMMANDS as readonly string[]).includes(argv[0] ?? '') || argv[0] === 'console' ? null : gatewayCommand(argv);
if (argv[0] === 'console') {
  // `console [--sign-out-all]`: a one-time sign-in link, or every session ended (src/cli/console-cli.ts, loaded only here).
  void import('./cli/console-cli')
    .then(({ consoleCommand }) => consoleCommand(argv))
    .then((result) => {
      process.stdout.write(result.stdout);
      process.stderr.write(result.stderr);
      process.exitCode = result.exitCode;
    });
} else if (command === null) {
  // `keys …`, `tokens …`, `vault rotate`: change the vault and exit.
  void vaultCommand(argv, readStdin).then((result) => {
    process.stdout.write(result.stdout);
    process.stderr.write(result.stderr);
    process.exitCode = result.exitCode;
  });
} else if ('run' in command) {
  const config = command.run;
  void runUntilSignal(async () => {
    applyHeapGrowth(config.heapGrowingPercent);
    // Loaded here, so the vault commands start without loading the server.
    const { startGateway } = await import('./server');
    const gateway = await explainPortErrors({ name: 'PORT', command: 'npm start' }, () => startGateway(config));
    // The parser and the bound rules compiled for large texts before a client's first (ValidatedDocuments.warmUp):
    // in the process only, not in every in-process start (the tests start hundreds).
    gateway.pipeline.warmUp();
    console.log(
      `StateV GraphQL gateway on ${gateway.url}/graphql (upstream ${redactUrlCredentials(config.upstreamBaseUrl)})`,
    );
    return { stop: () => gateway.stop(), gracePeriodMs: config.shutdownDelayMs + config.shutdownGracePeriodMs };
  });
} else {
  if (command.stdout) process.stdout.write(command.stdout);
  if (command.stderr) process.stderr.write(command.stderr);
  process.exitCode = command.exitCode;
}
