import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_KEYS } from '../../src/simulator';
import { MasterKeys, Vault } from '../../src/vault';
import { FileVaultStorage } from '../../src/vault/storage';

/** A file vault of a test: the vault, its file and master key (what the gateway's config names), and its folder. */
export interface TestVault {
  readonly vault: Vault;
  /** The new temporary folder holding the vault file. */
  readonly folder: string;
  /** `<folder>/vault.json`, the gateway's `vaultFile`. */
  readonly vaultFile: string;
  /** A fresh 32-byte master key in base64, the gateway's `vaultMasterKey`. */
  readonly masterKey: string;
}

/** A new, empty file vault in a new temporary folder named after `prefix`, under a fresh master key. */
export function testVault(prefix: string): TestVault {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  const vaultFile = join(folder, 'vault.json');
  const masterKey = randomBytes(32).toString('base64');
  return {
    vault: new Vault(new FileVaultStorage(vaultFile), MasterKeys.parse(masterKey)),
    folder,
    vaultFile,
    masterKey,
  };
}

/** Adds the two characters most token tests use: `max` (the demo premium key) and `erika` (another character's key), without secrets. */
export async function addMaxAndErika(vault: Vault): Promise<void> {
  await vault.addKey('max', DEMO_KEYS.premium.key, null);
  await vault.addKey('erika', DEMO_KEYS.other.key, null);
}
