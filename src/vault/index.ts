/**
 * The vault of StateV keys and access tokens (see docs/access-tokens.md): what the command
 * line and the gateway use of it.
 */
import type { GatewayConfig } from '../config';
import { FileVaultStorage } from './storage';
import type { VaultStorage } from './storage';
import { RedisVaultStorage } from './redis-storage';
import { LiveVault } from './live-vault';

export { MasterKeys, VaultKeyError } from './envelope';
export { GRANT_FORMS } from './grants';
export type { VaultStorage } from './storage';
export { Vault, VaultUsageError } from './vault';
export { browserOrigin, durationMs, tokenBounds } from './token-request';
export { LiveVault, NO_VAULT } from './live-vault';
export type { TokenResolver } from './live-vault';
export { TOKEN_REFUSALS } from './vault-view';
export type { ActiveToken, TokenCharacter, TokenRefusal } from './vault-view';
export type { Grant } from './grants';
export { looksLikeToken } from './token-format';
export { TokenBudgets } from './token-budgets';
export { RecordMac } from './record-mac';
export { checkAlertParams, checkAlertUrl } from './alert-rules';
export type {
  AlertParams,
  AlertRequest,
  AlertRuleKind,
  AlertStoreName,
  AlertSummary,
  OpenedAlert,
} from './alert-rules';

/** A vault's storage and how to let it go. */
export interface OpenedStorage {
  /** The storage. */
  readonly storage: VaultStorage;
  /** Closes its connections (Redis); nothing for a file. */
  close(): Promise<void>;
}

/**
 * Opens the vault of a running gateway and keeps it current (see {@link LiveVault}), or
 * null when `VAULT_MASTER_KEY` is not set. `close` stops watching and closes its connections.
 * `onRefused` is told of each token or webhook record the vault refuses (one line, no secret).
 *
 * @throws when the stored vault does not open with the master key
 */
export async function startLiveVault(
  config: Pick<GatewayConfig, 'redisUrl' | 'redisPrefix' | 'vaultFile' | 'vaultMasterKey'>,
  onError: (error: unknown) => void,
  onRefused?: (problem: string) => void,
): Promise<{ readonly vault: LiveVault; allowsOrigin(origin: string): boolean; close(): Promise<void> } | null> {
  if (config.vaultMasterKey === null) return null;
  const opened = vaultStorage(config);
  try {
    const vault = await LiveVault.start(opened.storage, config.vaultMasterKey, onError, onRefused);
    return {
      vault,
      allowsOrigin: (origin) => vault.allowsOrigin(origin),
      close: async () => {
        await vault.close();
        await opened.close();
      },
    };
  } catch (error) {
    await opened.close();
    throw error;
  }
}

/** The vault's storage for a configuration: Redis when `REDIS_URL` is set, else the file `VAULT_FILE`. */
export function vaultStorage(config: Pick<GatewayConfig, 'redisUrl' | 'redisPrefix' | 'vaultFile'>): OpenedStorage {
  if (config.redisUrl) {
    const storage = new RedisVaultStorage(config.redisUrl, config.redisPrefix);
    return { storage, close: () => storage.close() };
  }
  return { storage: new FileVaultStorage(config.vaultFile), close: async () => undefined };
}
