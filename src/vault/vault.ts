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
import { RecordMac } from './record-mac';
import {
  alertRecordProblem,
  isIsoTime,
  recordName,
  recordTrust,
  refusalOf,
  signRecord,
  tokenRecordProblem,
  webhookRecordProblem,
} from './record-checks';
import { newToken, tokenHash } from './token-format';
import { checkTokenRequest, tokenBounds } from './token-request';
import type { TokenBounds } from './token-request';
import type { VaultStorage } from './storage';
import { VaultUsageError } from './usage-error';
import { FORMAT, openKey, parseDocument } from './vault-document';
import type { KeyRecord, TokenRecord, VaultDocument } from './vault-document';
import { addWebhookRecord, removeWebhookRecord, rewrapWebhooks, webhookSummaries } from './webhooks';
import type { WebhookSummary } from './webhooks';
import { addAlertRecord, alertSummaries, removeAlertRecord, rewrapAlerts } from './alert-rules';
import type { AlertRequest, AlertSummary } from './alert-rules';
import type { KeySummary, TokenRequest, TokenSummary } from './summaries';

export type { WebhookSummary } from './webhooks';

export type { KeySummary, TokenRequest, TokenSummary } from './summaries';

export { VaultUsageError } from './usage-error';

/** Records loaded from the storage and which of them verify (only those are signed again when saved). */
interface Loaded {
  readonly document: VaultDocument;
  /** The token and webhook records the command line may sign again: those whose MAC verifies, and the new ones. */
  readonly trusted: Set<object>;
}

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
  private readonly mac: RecordMac;

  /**
   * @param storage - where the document is kept
   * @param master - the master keys (`VAULT_MASTER_KEY`)
   * @param now - the clock (tests)
   * @param bounds - what `tokens create` accepts (default: the default settings', see {@link tokenBounds})
   */
  constructor(
    private readonly storage: VaultStorage,
    private readonly master: MasterKeys,
    private readonly now: () => Date = () => new Date(),
    private readonly bounds: TokenBounds = tokenBounds(),
  ) {
    this.mac = new RecordMac(master);
  }

  /** The stored document, or a new empty one (with a fresh token key). */
  private async load(): Promise<VaultDocument> {
    return (await this.loadChecked()).document;
  }

  /** The stored document (or a new one) and its token and webhook records that verify. */
  private async loadChecked(): Promise<Loaded> {
    const text = await this.storage.read();
    if (text === null)
      return {
        document: { format: FORMAT, tokenKey: this.master.wrap(newDataKey(), 'tokens'), keys: [], tokens: [] },
        trusted: new Set(),
      };
    const document = parseDocument(text);
    const trusted = new Set<object>();
    for (const record of document.tokens)
      if (
        tokenRecordProblem(record) === null &&
        recordTrust(this.mac, 'token', record as unknown as Record<string, unknown>) === 'signed'
      )
        trusted.add(record);
    for (const record of document.webhooks ?? [])
      if (
        webhookRecordProblem(record) === null &&
        recordTrust(this.mac, 'webhook', record as unknown as Record<string, unknown>) === 'signed'
      )
        trusted.add(record);
    for (const record of document.alerts ?? [])
      if (
        alertRecordProblem(record) === null &&
        recordTrust(this.mac, 'alert', record as unknown as Record<string, unknown>) === 'signed'
      )
        trusted.add(record);
    return { document, trusted };
  }

  /**
   * Writes the document back, signing the trusted records again (under the current master
   * key); the others are written as they were read, so gateways go on refusing them.
   */
  private async save(document: VaultDocument, trusted: ReadonlySet<object>): Promise<void> {
    for (const record of document.tokens) if (trusted.has(record)) signRecord(this.mac, 'token', record);
    for (const record of document.webhooks ?? []) if (trusted.has(record)) signRecord(this.mac, 'webhook', record);
    for (const record of document.alerts ?? []) if (trusted.has(record)) signRecord(this.mac, 'alert', record);
    await this.storage.write(`${JSON.stringify(document, null, 1)}\n`);
  }

  /**
   * Adds (or replaces) a key under a name; the key and secret are sealed before they are stored.
   *
   * @throws VaultUsageError for a bad name or an empty key
   */
  async addKey(name: string, apiKey: string, apiSecret: string | null): Promise<KeySummary> {
    if (!KEY_NAME.test(name))
      throw new VaultUsageError(
        `The key name "${name}" is not valid: 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit.`,
      );
    if (apiKey.trim() === '' || /\s/.test(apiKey))
      throw new VaultUsageError('The API key is empty or has spaces: give it on standard input, one line.');
    const { document, trusted } = await this.loadChecked();
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
    await this.save(document, trusted);
    return { id, name, addedAt: new Date(record.addedAt), hasSecret: apiSecret !== null };
  }

  /** Every key, by name (never the key or the secret). */
  async listKeys(): Promise<KeySummary[]> {
    const document = await this.load();
    return document.keys
      .map((record) => ({
        id: record.id,
        name: record.name,
        addedAt: new Date(record.addedAt),
        hasSecret: openKey(this.master, record).apiSecret !== null,
      }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * Removes a key; tokens covering it are refused from then on.
   *
   * @throws VaultUsageError when there is no key of that name
   */
  async removeKey(name: string): Promise<void> {
    const { document, trusted } = await this.loadChecked();
    const index = document.keys.findIndex((record) => record.name === name);
    if (index < 0) throw new VaultUsageError(`The vault has no key named "${name}" (see keys list).`);
    document.keys.splice(index, 1);
    await this.save(document, trusted);
  }

  /**
   * Re-wraps every data key and the token key under the current (first) master key, after
   * checking each record opens, and signs every token and webhook record under it: those
   * that verify, and those written before records were signed (the migration: see
   * docs/access-tokens.md). A record whose MAC does not verify, or that is malformed, is
   * left as it is (gateways go on refusing it) and counted in `refused`.
   *
   * @returns how many records were rewritten, how many of them were signed for the first time, how many were refused, and the id of the master key they are under now
   * @throws VaultKeyError when a record does not open with any of the master keys
   */
  async rotate(): Promise<{
    readonly records: number;
    readonly newlySigned: number;
    readonly refused: readonly string[];
    readonly masterKeyId: string;
  }> {
    const { document, trusted } = await this.loadChecked();
    const tokenKey = this.master.unwrap(document.tokenKey, 'tokens');
    document.tokenKey = this.master.wrap(tokenKey, 'tokens');
    for (const record of document.keys) {
      openKey(this.master, record);
      record.dataKey = this.master.wrap(this.master.unwrap(record.dataKey, `key:${record.id}`), `key:${record.id}`);
    }
    let newlySigned = 0;
    const refused: string[] = [];
    const adopt = (record: object & { mac?: unknown }, index: number, problem: string | null, kind: string): void => {
      if (trusted.has(record)) return;
      if (problem === null && record.mac === undefined) {
        trusted.add(record);
        newlySigned += 1;
      } else refused.push(`${kind} ${recordName(record, index)}`);
    };
    document.tokens.forEach((record, index) => adopt(record, index, tokenRecordProblem(record), 'token'));
    (document.webhooks ?? []).forEach((record, index) => adopt(record, index, webhookRecordProblem(record), 'webhook'));
    (document.alerts ?? []).forEach((record, index) => adopt(record, index, alertRecordProblem(record), 'alert'));
    rewrapWebhooks(document, this.master, (record) => trusted.has(record));
    rewrapAlerts(document, this.master, (record) => trusted.has(record));
    await this.save(document, trusted);
    return {
      records: document.keys.length + trusted.size + 1,
      newlySigned,
      refused,
      masterKeyId: this.master.currentId,
    };
  }

  /**
   * Creates a token and returns it: the only time it exists in clear.
   *
   * @throws VaultUsageError for an unknown character, a bad grant, expiry, origin or share
   */
  async createToken(request: TokenRequest): Promise<{ readonly id: string; readonly token: string }> {
    const { document, trusted } = await this.loadChecked();
    const characters = checkTokenRequest(request, document.keys, this.bounds);
    const share = request.budgetShare ?? null;
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
      budgetShare: share,
      revokedAt: null,
      ...(request.label ? { label: request.label } : {}),
    };
    document.tokens.push(record);
    trusted.add(record);
    await this.save(document, trusted);
    return { id: record.id, token };
  }

  /**
   * Adds a webhook (see webhooks.ts); its signing secret is returned here only.
   *
   * @throws VaultUsageError for an unknown character, an empty company or a URL that is not https
   */
  async addWebhook(
    character: string,
    factoryId: string,
    url: string,
  ): Promise<{ readonly id: string; readonly secret: string }> {
    const { document, trusted } = await this.loadChecked();
    const added = addWebhookRecord(document, this.master, { character, factoryId, url, now: this.now() });
    const record = document.webhooks?.at(-1);
    if (record) trusted.add(record);
    await this.save(document, trusted);
    return added;
  }

  /** Every webhook, oldest first (never a secret); `refused` says why gateways refuse a record that is malformed or does not verify. */
  async listWebhooks(): Promise<WebhookSummary[]> {
    const { document, trusted } = await this.loadChecked();
    return webhookSummaries(document, trusted);
  }

  /**
   * Removes a webhook by id.
   *
   * @throws VaultUsageError when there is none of that id
   */
  async removeWebhook(id: string): Promise<void> {
    const { document, trusted } = await this.loadChecked();
    removeWebhookRecord(document, id);
    await this.save(document, trusted);
  }

  /**
   * Adds an alert rule (see alert-rules.ts); a WEBHOOK rule's signing secret is returned here only.
   *
   * @param allowHosts - hosts a URL may name although private (`WEBHOOK_ALLOW_HOSTS`)
   * @throws VaultUsageError for an unknown character, a parameter its kind lacks or a URL the outbound rules refuse
   */
  async addAlert(
    request: AlertRequest,
    allowHosts: readonly string[] = [],
  ): Promise<{ readonly id: string; readonly secret: string | null; readonly summary: AlertSummary }> {
    const { document, trusted } = await this.loadChecked();
    const added = addAlertRecord(document, this.master, request, this.now(), allowHosts);
    trusted.add(added.record);
    await this.save(document, trusted);
    const summary = alertSummaries(document, trusted).find((each) => each.id === added.id) as AlertSummary;
    return { id: added.id, secret: added.secret, summary };
  }

  /** Every alert rule, oldest first (the URL's secret part elided, never a signing secret). */
  async listAlerts(): Promise<AlertSummary[]> {
    const { document, trusted } = await this.loadChecked();
    return alertSummaries(document, trusted);
  }

  /**
   * Removes an alert rule by id.
   *
   * @throws VaultUsageError when there is none of that id
   */
  async removeAlert(id: string): Promise<void> {
    const { document, trusted } = await this.loadChecked();
    removeAlertRecord(document, id);
    await this.save(document, trusted);
  }

  /** Every token, oldest first; `refused` says why gateways refuse a record that is malformed or does not verify. */
  async listTokens(): Promise<TokenSummary[]> {
    const { document, trusted } = await this.loadChecked();
    const names = new Map(document.keys.map((record) => [record.id, record.name]));
    const uses = await this.storage.readUsage();
    const date = (value: unknown): Date => new Date(isIsoTime(value) ? value : 0);
    return (document.tokens as unknown[]).map((value, index) => {
      const problem = tokenRecordProblem(value);
      const record = value as Partial<Record<keyof TokenRecord, unknown>>;
      const id = recordName(value, index);
      const strings = (list: unknown): string[] =>
        Array.isArray(list) ? list.filter((each): each is string => typeof each === 'string') : [];
      return {
        id,
        characters: strings(record.characters).map((key) => names.get(key) ?? key),
        grants: strings(record.grants),
        createdAt: date(record.createdAt),
        expiresAt: date(record.expiresAt),
        revokedAt: isIsoTime(record.revokedAt) ? new Date(record.revokedAt) : null,
        origin: typeof record.origin === 'string' ? record.origin : null,
        budgetShare: typeof record.budgetShare === 'number' ? record.budgetShare : null,
        lastUsedAt: uses[id] ? new Date(uses[id] as string) : null,
        label: typeof record.label === 'string' ? record.label : null,
        refused: refusalOf(problem, trusted, value),
      };
    });
  }

  /** Removes the expired tokens that carry `label` and verify (each console editing session's); returns how many. */
  async removeExpiredTokens(label: string): Promise<number> {
    const { document, trusted } = await this.loadChecked();
    const now = this.now().getTime();
    const expired = (record: TokenRecord): boolean =>
      trusted.has(record) && record.label === label && Date.parse(record.expiresAt) <= now;
    const kept = document.tokens.filter((record) => !expired(record));
    const removed = document.tokens.length - kept.length;
    if (removed > 0) await this.save({ ...document, tokens: kept }, trusted);
    return removed;
  }

  /**
   * Revokes a token by id (it stays listed, as revoked).
   *
   * @throws VaultUsageError when there is no token of that id
   */
  async revokeToken(id: string): Promise<void> {
    const { document, trusted } = await this.loadChecked();
    const record = document.tokens.find((each) => (each as Partial<TokenRecord> | null)?.id === id);
    if (!record) throw new VaultUsageError(`The vault has no token with id "${id}" (see tokens list).`);
    if (tokenRecordProblem(record) !== null)
      throw new VaultUsageError(
        `The token record "${id}" is malformed (see tokens list): gateways refuse it already; remove it from the vault by hand or restore a backup.`,
      );
    record.revokedAt ??= this.now().toISOString();
    // A revocation only takes power away: the record is signed revoked even when it did not
    // verify before (it can never be used again, and the revocation cannot be undone).
    trusted.add(record);
    await this.save(document, trusted);
  }
}
