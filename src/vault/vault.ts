/**
 * The vault: StateV API keys (and their secrets) sealed at rest, and the access tokens
 * that use them. {@link Vault} changes it (the command line); `VaultView` (vault-view.ts)
 * is what a running gateway reads, opened once per change of the stored document
 * (vault-document.ts).
 *
 * The document holds no key, secret or token in clear: each key record is sealed with
 * AES-256-GCM under a data key of its own, wrapped under the master key
 * (`VAULT_MASTER_KEY`); a token is kept only as an HMAC under the vault's token key, a
 * random key wrapped under the master key like a data key (so rotating the master key
 * keeps every token working).
 */
import { randomBytes } from 'node:crypto';
import { newDataKey, seal } from './envelope';
import type { MasterKeys } from './envelope';
import { parseGrant } from './grants';
import { newToken, tokenHash } from './token-format';
import type { VaultStorage } from './storage';
import { VaultUsageError } from './usage-error';
import { FORMAT, openKey, parseDocument } from './vault-document';
import type { KeyRecord, TokenRecord, VaultDocument } from './vault-document';
import { addWebhookRecord, removeWebhookRecord, rewrapWebhooks, webhookSummaries } from './webhooks';
import type { WebhookSummary } from './webhooks';
import type { KeySummary, TokenRequest, TokenSummary } from './summaries';

export type { WebhookSummary } from './webhooks';

export type { KeySummary, TokenRequest, TokenSummary } from './summaries';

export { VaultUsageError } from './usage-error';

/** A new record id: the prefix and 12 hex digits. */
function newId(prefix: 'key' | 'tok'): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

/** The key names `keys add` accepts. */
const KEY_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/**
 * The vault as the command line changes it: load, change, save. Each method reads the
 * stored document afresh and writes it back whole.
 */
export class Vault {
  /**
   * @param storage - where the document is kept
   * @param master - the master keys (`VAULT_MASTER_KEY`)
   * @param now - the clock (tests)
   */
  constructor(
    private readonly storage: VaultStorage,
    private readonly master: MasterKeys,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The stored document, or a new empty one (with a fresh token key). */
  private async load(): Promise<VaultDocument> {
    const text = await this.storage.read();
    if (text !== null) return parseDocument(text);
    return { format: FORMAT, tokenKey: this.master.wrap(newDataKey(), 'tokens'), keys: [], tokens: [] };
  }

  private async save(document: VaultDocument): Promise<void> {
    await this.storage.write(`${JSON.stringify(document, null, 1)}\n`);
  }

  /**
   * Adds (or replaces) a key under a name; the key and secret are sealed before they are stored.
   *
   * @throws VaultUsageError for a bad name or an empty key
   */
  async addKey(name: string, apiKey: string, apiSecret: string | null): Promise<KeySummary> {
    if (!KEY_NAME.test(name)) throw new VaultUsageError(`The key name "${name}" is not valid: 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit.`);
    if (apiKey.trim() === '' || /\s/.test(apiKey)) throw new VaultUsageError('The API key is empty or has spaces: give it on standard input, one line.');
    const document = await this.load();
    // The token key must open: a wrong master key is refused before anything is written.
    this.master.unwrap(document.tokenKey, 'tokens');
    const existing = document.keys.findIndex((record) => record.name === name);
    const id = existing >= 0 ? (document.keys[existing] as KeyRecord).id : newId('key');
    const dataKey = newDataKey();
    const record: KeyRecord = {
      id,
      name,
      addedAt: this.now().toISOString(),
      dataKey: this.master.wrap(dataKey, `key:${id}`),
      sealed: seal(dataKey, Buffer.from(JSON.stringify({ apiKey, apiSecret }), 'utf8'), `key:${id}:${name}`),
    };
    if (existing >= 0) document.keys.splice(existing, 1, record);
    else document.keys.push(record);
    await this.save(document);
    return { id, name, addedAt: new Date(record.addedAt), hasSecret: apiSecret !== null };
  }

  /** Every key, by name (never the key or the secret). */
  async listKeys(): Promise<KeySummary[]> {
    const document = await this.load();
    return document.keys
      .map((record) => ({ id: record.id, name: record.name, addedAt: new Date(record.addedAt), hasSecret: openKey(this.master, record).apiSecret !== null }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * Removes a key; tokens covering it are refused from then on.
   *
   * @throws VaultUsageError when there is no key of that name
   */
  async removeKey(name: string): Promise<void> {
    const document = await this.load();
    const index = document.keys.findIndex((record) => record.name === name);
    if (index < 0) throw new VaultUsageError(`The vault has no key named "${name}" (see keys list).`);
    document.keys.splice(index, 1);
    await this.save(document);
  }

  /**
   * Re-wraps every data key and the token key under the current (first) master key, after
   * checking each record opens. Returns how many wrapped keys were rewritten and the id of the master key they are under now.
   *
   * @throws VaultKeyError when a record does not open with any of the master keys
   */
  async rotate(): Promise<{ readonly records: number; readonly masterKeyId: string }> {
    const document = await this.load();
    const tokenKey = this.master.unwrap(document.tokenKey, 'tokens');
    document.tokenKey = this.master.wrap(tokenKey, 'tokens');
    for (const record of document.keys) {
      openKey(this.master, record);
      record.dataKey = this.master.wrap(this.master.unwrap(record.dataKey, `key:${record.id}`), `key:${record.id}`);
    }
    rewrapWebhooks(document, this.master);
    await this.save(document);
    return { records: document.keys.length + (document.webhooks?.length ?? 0) + 1, masterKeyId: this.master.currentId };
  }

  /**
   * Creates a token and returns it: the only time it exists in clear.
   *
   * @throws VaultUsageError for an unknown character, a bad grant, expiry, origin or share
   */
  async createToken(request: TokenRequest): Promise<{ readonly id: string; readonly token: string }> {
    const document = await this.load();
    // An admin-only token (the administration graph) needs no character.
    if (request.characters.length === 0 && !(request.grants.length > 0 && request.grants.every((grant) => grant === 'admin'))) throw new VaultUsageError('A token needs at least one --character <name> (see keys list).');
    if (request.grants.length === 0) throw new VaultUsageError('A token needs at least one --grant.');
    const characters = request.characters.map((name) => {
      const record = document.keys.find((each) => each.name === name);
      if (!record) throw new VaultUsageError(`The vault has no key named "${name}" (see keys list).`);
      return record.id;
    });
    for (const grant of request.grants) {
      if (!parseGrant(grant)) throw new VaultUsageError(`The grant "${grant}" is not one of: read, read:<Type>.<field>, factory:<factoryId>, write:siteDocument:<name>, write:option:<slot>, write:payments, subscribe, admin.`);
    }
    if (!Number.isFinite(request.expiresInMs) || request.expiresInMs <= 0) throw new VaultUsageError('--expires-in must be a positive duration, e.g. 30d, 12h, 90m.');
    const token = newToken();
    const created = this.now();
    const record: TokenRecord = {
      id: newId('tok'),
      hash: tokenHash(this.master.unwrap(document.tokenKey, 'tokens'), token),
      characters: [...new Set(characters)],
      grants: [...request.grants],
      createdAt: created.toISOString(),
      expiresAt: new Date(created.getTime() + request.expiresInMs).toISOString(),
      origin: request.origin ?? null,
      budgetShare: request.budgetShare ?? null,
      revokedAt: null,
    };
    document.tokens.push(record);
    await this.save(document);
    return { id: record.id, token };
  }

  /**
   * Adds a webhook (see webhooks.ts); its signing secret is returned here only.
   *
   * @throws VaultUsageError for an unknown character, an empty company or a URL that is not https
   */
  async addWebhook(character: string, factoryId: string, url: string): Promise<{ readonly id: string; readonly secret: string }> {
    const document = await this.load();
    const added = addWebhookRecord(document, this.master, { character, factoryId, url, now: this.now() });
    await this.save(document);
    return added;
  }

  /** Every webhook, oldest first (never a secret). */
  async listWebhooks(): Promise<WebhookSummary[]> {
    return webhookSummaries(await this.load());
  }

  /**
   * Removes a webhook by id.
   *
   * @throws VaultUsageError when there is none of that id
   */
  async removeWebhook(id: string): Promise<void> {
    const document = await this.load();
    removeWebhookRecord(document, id);
    await this.save(document);
  }

  /** Every token, oldest first. */
  async listTokens(): Promise<TokenSummary[]> {
    const document = await this.load();
    const names = new Map(document.keys.map((record) => [record.id, record.name]));
    const uses = await this.storage.readUsage();
    return document.tokens.map((record) => ({
      id: record.id,
      characters: record.characters.map((id) => names.get(id) ?? id),
      grants: record.grants,
      createdAt: new Date(record.createdAt),
      expiresAt: new Date(record.expiresAt),
      revokedAt: record.revokedAt === null ? null : new Date(record.revokedAt),
      origin: record.origin,
      budgetShare: record.budgetShare,
      lastUsedAt: uses[record.id] ? new Date(uses[record.id] as string) : null,
    }));
  }

  /**
   * Revokes a token by id (it stays listed, as revoked).
   *
   * @throws VaultUsageError when there is no token of that id
   */
  async revokeToken(id: string): Promise<void> {
    const document = await this.load();
    const record = document.tokens.find((each) => each.id === id);
    if (!record) throw new VaultUsageError(`The vault has no token with id "${id}" (see tokens list).`);
    record.revokedAt ??= this.now().toISOString();
    await this.save(document);
  }
}
