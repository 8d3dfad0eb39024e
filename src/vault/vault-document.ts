/**
 * The vault's stored document: its records (keys sealed under data keys of their own,
 * tokens as keyed hashes, webhooks) and how to parse it and open a key record. Both the
 * command line's {@link Vault} (vault.ts) and a running gateway's `VaultView`
 * (vault-view.ts) read it.
 */
import { VaultKeyError, open } from './envelope';
import type { MasterKeys, WrappedKey } from './envelope';
import type { WebhookRecord } from './webhooks';
import type { AlertRecord } from './alert-rules';
import { keyRecordProblem, recordName } from './record-checks';

/** The document's format marker. */
export const FORMAT = 'statev-gateway-vault/1';

/** One StateV key, sealed. */
export interface KeyRecord {
  /** `key_` and 12 hex digits. */
  readonly id: string;
  /** The name given to `keys add`. */
  readonly name: string;
  /** ISO time it was added. */
  readonly addedAt: string;
  /** Its data key, wrapped under the master key. */
  dataKey: WrappedKey;
  /** `{apiKey, apiSecret}` as JSON, sealed under the data key. */
  readonly sealed: string;
}

/** One access token: its keyed hash, never the token. */
export interface TokenRecord {
  /** `tok_` and 12 hex digits: what lists, logs and metrics show. */
  readonly id: string;
  /** HMAC-SHA-256 of the token under the token key. */
  readonly hash: string;
  /** The ids of the keys (characters) it covers. */
  readonly characters: readonly string[];
  /** The grants as written. */
  readonly grants: readonly string[];
  /** ISO time it was created. */
  readonly createdAt: string;
  /** ISO time it stops working. */
  readonly expiresAt: string;
  /** The browser origin it is bound to, or null. */
  readonly origin: string | null;
  /** Its share of its key's requests per window, or null for all of it. */
  readonly budgetShare: number | null;
  /** ISO time it was revoked, or null. */
  revokedAt: string | null;
  /** What made it, when not a person (e.g. the console's site-document editor); absent for tokens made by hand. */
  readonly label?: string;
  /** The record's MAC (see `RecordMac`): absent in vaults written before records were signed. */
  mac?: string;
}

/** The stored document. */
export interface VaultDocument {
  /** {@link FORMAT}. */
  readonly format: typeof FORMAT;
  /** The token key, wrapped under the master key. */
  tokenKey: WrappedKey;
  /** The StateV keys, sealed. */
  readonly keys: KeyRecord[];
  /** The access tokens, as keyed hashes. */
  readonly tokens: TokenRecord[];
  /** Webhooks (absent in vaults written before there were any). */
  webhooks?: WebhookRecord[];
  /** Alert rules (absent in vaults written before there were any). */
  alerts?: AlertRecord[];
}

/**
 * Parses a stored document.
 *
 * @throws VaultKeyError when the text is not a vault document
 */
export function parseDocument(text: string): VaultDocument {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new VaultKeyError('The vault is not JSON: was it edited by hand?');
  }
  const document = value as Partial<VaultDocument> | null;
  if (
    !document ||
    document.format !== FORMAT ||
    !Array.isArray(document.keys) ||
    !Array.isArray(document.tokens) ||
    !document.tokenKey
  ) {
    throw new VaultKeyError(`The vault is not a ${FORMAT} document.`);
  }
  const tokenKey = document.tokenKey as Partial<WrappedKey> | null;
  if (
    typeof tokenKey !== 'object' ||
    tokenKey === null ||
    typeof tokenKey.kid !== 'string' ||
    typeof tokenKey.box !== 'string'
  )
    throw new VaultKeyError("The vault's tokenKey is not a wrapped key: was it edited by hand?");
  if (document.webhooks !== undefined && !Array.isArray(document.webhooks))
    throw new VaultKeyError("The vault's webhooks are not a list: was it edited by hand?");
  if (document.alerts !== undefined && !Array.isArray(document.alerts))
    throw new VaultKeyError("The vault's alerts are not a list: was it edited by hand?");
  document.keys.forEach((record: unknown, index) => {
    const problem = keyRecordProblem(record);
    if (problem !== null)
      throw new VaultKeyError(
        `The vault's key record ${recordName(record, index)} is not valid: ${problem}. Was it edited by hand? Remove it (statev-gateway keys remove) or restore the vault from a backup.`,
      );
  });
  return document as VaultDocument;
}

/** The document's keys opened: the key and secret of each, by id. */
export interface OpenedKey {
  /** The record's id (`key_…`). */
  readonly id: string;
  /** The name given to `keys add`. */
  readonly name: string;
  /** The StateV API key, in clear (memory only). */
  readonly apiKey: string;
  /** Its API secret, or null when none was stored. */
  readonly apiSecret: string | null;
}

/** Opens one key record. */
export function openKey(master: MasterKeys, record: KeyRecord): OpenedKey {
  const dataKey = master.unwrap(record.dataKey, `key:${record.id}`);
  const plain = JSON.parse(open(dataKey, record.sealed, `key:${record.id}:${record.name}`).toString('utf8')) as {
    apiKey: string;
    apiSecret: string | null;
  };
  return { id: record.id, name: record.name, apiKey: plain.apiKey, apiSecret: plain.apiSecret };
}
