/**
 * The vault of StateV keys and access tokens (see docs/access-tokens.md): what the command
 * line and the gateway use of it.
 */
import type { GatewayConfig } from '../config';
import { FileVaultStorage } from './storage';
import type { VaultStorage } from './storage';
import { RedisVaultStorage } from './redis-storage';

export { MasterKeys, VaultKeyError } from './envelope';
export { GRANT_FORMS } from './grants';
export type { VaultStorage } from './storage';
export { Vault, VaultUsageError } from './vault';
export { LiveVault } from './live-vault';

/** A vault's storage and how to let it go. */
export interface OpenedStorage {
  /** The storage. */
  readonly storage: VaultStorage;
  /** Closes its connections (Redis); nothing for a file. */
  close(): Promise<void>;
}

/** The vault's storage for a configuration: Redis when `REDIS_URL` is set, else the file `VAULT_FILE`. */
export function vaultStorage(config: Pick<GatewayConfig, 'redisUrl' | 'redisPrefix' | 'vaultFile'>): OpenedStorage {
  if (config.redisUrl) {
    const storage = new RedisVaultStorage(config.redisUrl, config.redisPrefix);
    return { storage, close: () => storage.close() };
  }
  return { storage: new FileVaultStorage(config.vaultFile), close: async () => undefined };
}
