/**
 * What the administration tests share: a vault in a temporary folder with one character
 * (the premium demo key, added the command line's way), and requests to /admin/graphql.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_KEYS } from '../../src/simulator';
import { MasterKeys, Vault } from '../../src/vault';
import { FileVaultStorage } from '../../src/vault/storage';
import { send } from '../support';
import type { RawResponse } from '../support';

/** A GraphQL answer. */
export interface Answer {
  data?: Record<string, unknown> | null;
  errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
}

/** A fresh vault: `shop` holds the premium demo key and secret. */
export interface TestVault {
  readonly vaultFile: string;
  readonly masterKey: string;
  readonly vault: Vault;
}

/** Makes a vault in a temporary folder with the character `shop`. */
export async function testVault(): Promise<TestVault> {
  const vaultFile = join(mkdtempSync(join(tmpdir(), 'admin-')), 'vault.json');
  const masterKey = randomBytes(32).toString('base64');
  const vault = new Vault(new FileVaultStorage(vaultFile), MasterKeys.parse(masterKey));
  await vault.addKey('shop', DEMO_KEYS.premium.key, DEMO_KEYS.premium.secret);
  return { vaultFile, masterKey, vault };
}

/** POSTs an operation to /admin/graphql with the given headers (JSON content type added). */
export async function adminPost(
  origin: string,
  query: string,
  headers: Record<string, string> = {},
  variables?: unknown,
): Promise<RawResponse & { body: Answer }> {
  const response = await send(origin, {
    method: 'POST',
    path: '/admin/graphql',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return { ...response, body: JSON.parse(response.text) as Answer };
}
