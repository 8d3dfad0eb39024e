/**
 * Alerts, put together for a running gateway: the vault's rules watched on the
 * subscriptions' pollers ({@link AlertWatcher}), their state beside the vault, and the
 * events handed to an {@link AlertSink} (the delivery outbox; without one, a sink that logs).
 */
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config';
import type { LiveVault } from '../vault';
import type { AlertSink } from './alert-event';
import { FileAlertState, RedisAlertState } from './alert-state';
import type { AlertStateStore } from './alert-state';
import { AlertWatcher } from './alert-watcher';
import type { RulePolling } from './alert-watcher';
import { LoggingAlertSink } from './logging-sink';

export type { AlertSink } from './alert-event';
export { AlertWatcher } from './alert-watcher';
export type { RulePolling } from './alert-watcher';
export { LoggingAlertSink } from './logging-sink';

/** The alerts of a running gateway. */
export interface GatewayAlerts {
  /** The watcher (its `lastFiredAt` for the administration graph; `settled` for tests). */
  readonly watcher: AlertWatcher;
  /** Stops watching and closes the state store. */
  close(): Promise<void>;
}

/** The rules' state store of a configuration: Redis with `REDIS_URL`, else `<VAULT_FILE>.alerts-state`. */
async function stateStore(
  config: Pick<GatewayConfig, 'redisUrl' | 'redisPrefix' | 'vaultFile'>,
): Promise<AlertStateStore> {
  return config.redisUrl
    ? new RedisAlertState(config.redisUrl, config.redisPrefix)
    : FileAlertState.open(`${config.vaultFile}.alerts-state`);
}

/**
 * Starts watching the vault's rules (again within 1 s of each change of the vault) on the
 * given pollers. `sink` defaults to one that logs each event.
 */
export async function startAlerts(
  config: Pick<GatewayConfig, 'redisUrl' | 'redisPrefix' | 'vaultFile' | 'keyHashSecret'>,
  parts: {
    readonly vault: LiveVault;
    readonly polling: RulePolling;
    readonly logger: Logger;
    readonly sink?: AlertSink;
    readonly now?: () => number;
    readonly state?: AlertStateStore;
  },
): Promise<GatewayAlerts> {
  const logger = parts.logger.child({ part: 'alerts' });
  const state = parts.state ?? (await stateStore(config));
  const watcher = new AlertWatcher({
    polling: parts.polling,
    rules: () => parts.vault.alerts(),
    sink: parts.sink ?? new LoggingAlertSink(logger),
    state,
    keyHashSecret: config.keyHashSecret,
    now: parts.now,
    onError: (message, error) =>
      logger.warn(error === null ? {} : { error: error instanceof Error ? error.message : String(error) }, message),
  });
  const stopListening = parts.vault.onChange(() => void watcher.sync());
  await watcher.start();
  return {
    watcher,
    close: async () => {
      stopListening();
      await watcher.close();
      await state.close();
    },
  };
}
