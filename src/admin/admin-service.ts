/**
 * What the administration graph's resolvers do, over the vault (`Vault`, as the command
 * line changes it), the economy's per-key budgets, the payments outbox and the console's
 * audit log. Nothing here sends an upstream request except `addVaultKey`'s one key check
 * (GET /factory/list/ within the new key's budget). Keys and secrets go into the vault
 * and are never returned, logged or put in an error.
 */
import type { UpstreamEconomy } from '../economy';
import { UpstreamSession } from '../economy';
import { hashedKey } from '../pipeline/key-in-use';
import { fetchFactoryList } from '../domains/factories/factories.api';
import type { PaymentStore } from '../domains/payments/payment-request.store';
import type { AlertOutbox } from '../alerts/alert-outbox';
import { GatewayError } from '../errors/gateway-error';
import { MasterKeys, Vault, tokenBounds } from '../vault';
import type { TokenCharacter, VaultStorage } from '../vault';
import { openKey, parseDocument } from '../vault/vault-document';
import { AlertRules } from '../alerts/alert-admin';
import type { AlertWatcher } from '../alerts';
import type { HostResolver } from '../upstream/outbound-url';
import type { ConsoleAuth } from './console-auth';
import { AuditEntry, CreatedAccessToken, Delivery, DeliveryStatus, KeyBudget, VaultCharacter } from './admin-types';
import type { AccessTokenSummary, AddVaultKeyInput, CreateAccessTokenInput } from './admin-types';
import type { Alert } from './alert-types';
import type { CreateAlertInput } from './alert-types';
import { MAX_FIRST, bounded, checkFactoryGrants, checkedKeyInput, checkedTokenInput, vaultCall } from './admin-inputs';
import { alertOf, outboxDelivery, summary, unmatchedOf } from './admin-records';
import { BudgetHistory } from './budget-history';
import type { BudgetPoint } from './budget-history';
import { BudgetSample, CacheSummary } from './overview-types';
import type { AdminUnmatchedTransfer } from './payment-types';
import { adminRequest } from './payment-types';
import type { AdminPaymentRequest, AssignTransferInput } from './payment-types';
import { assignTransfer } from './payment-assign';
import { mintEditorToken } from './document-editor';
import type { EditorToken, SiteDocumentEditorInput } from './editor-types';

/** What the service needs. */
export interface AdminServiceParts {
  /** The vault's storage (file or Redis), read and written as the command line does. */
  readonly storage: VaultStorage;
  /** `VAULT_MASTER_KEY`. */
  readonly masterKey: string;
  /** `KEY_HASH_SECRET`, to name a key's budget. */
  readonly keyHashSecret: string;
  /** The economy (budgets; the key check of `addVaultKey`). */
  readonly economy: UpstreamEconomy;
  /** `UPSTREAM_RATE_LIMIT` (null when off): also the largest budget share of a token. */
  readonly rateLimit: { readonly requests: number; readonly windowSeconds: number } | null;
  /** `TOKEN_MAX_LIFETIME_DAYS` (default 366). */
  readonly tokenMaxLifetimeDays?: number;
  /** The payment store (its outbox of webhook deliveries). */
  readonly payments: PaymentStore;
  /** The alerts' outbox (its deliveries, pending or finished), when the gateway delivers alerts. */
  readonly alerts?: Pick<AlertOutbox, 'deliveries' | 'redeliver'>;
  /** Codes, sessions and the audit log. */
  readonly auth: ConsoleAuth;
  /** The clock, ms. */
  readonly now?: () => number;
  /** `WEBHOOK_ALLOW_HOSTS`: hosts an alert URL may name although private. */
  readonly allowHosts?: readonly string[];
  /** The running alert watcher (an alert's `lastFiredAt`), if any. */
  readonly alertWatcher?: AlertWatcher | null;
  /** How host names resolve (tests). */
  readonly resolve?: HostResolver;
  /** The upstream-answer cache's lookups since the start (the gateway's metrics); absent: all 0. */
  readonly cacheOutcomes?: () => { readonly hit: number; readonly miss: number; readonly stale: number };
  /** Makes this replica's public graph take the vault's new tokens now (else within 1 s). */
  readonly tokensChanged?: () => Promise<void>;
}

/** The administration graph's operations. One per gateway. */
export class AdminService {
  private readonly master: MasterKeys;
  private readonly vault: Vault;
  private readonly now: () => number;
  private readonly rules: AlertRules;
  private readonly history = new BudgetHistory();
  /**
   * The characters of the stored vault as last read, opened once per stored text: the holders
   * of their keys for THE memo of key hashes (`hashedKey`), so each key is hashed once per
   * stored document however often the console asks.
   */
  private opened: { readonly text: string; readonly characters: readonly TokenCharacter[] } | null = null;

  /** @param parts - see {@link AdminServiceParts} */
  constructor(private readonly parts: AdminServiceParts) {
    this.master = MasterKeys.parse(parts.masterKey);
    this.now = parts.now ?? (() => Date.now());
    const bounds = tokenBounds({
      tokenMaxLifetimeDays: parts.tokenMaxLifetimeDays ?? 366,
      upstreamRateLimit: parts.rateLimit,
    });
    this.vault = new Vault(parts.storage, this.master, () => new Date(this.now()), bounds);
    this.rules = new AlertRules({
      vault: this.vault,
      keyOf: async (name) => (await this.characters()).find((each) => each.name === name) ?? null,
      economy: parts.economy,
      keyHashSecret: parts.keyHashSecret,
      allowHosts: parts.allowHosts ?? [],
      watcher: parts.alertWatcher,
      resolve: parts.resolve,
    });
  }

  /** The stored vault's characters, their keys opened (never returned or logged): opened again only when the stored text changed. */
  private async characters(): Promise<readonly TokenCharacter[]> {
    const text = await this.parts.storage.read();
    if (text === null) return [];
    if (this.opened?.text !== text)
      this.opened = { text, characters: parseDocument(text).keys.map((record) => openKey(this.master, record)) };
    return this.opened.characters;
  }

  /** Every alert rule, oldest first. */
  async alerts(): Promise<Alert[]> {
    return (await this.rules.list()).map(alertOf);
  }

  /** Creates an alert rule (see `AlertRules.create`). */
  async createAlert(input: CreateAlertInput): Promise<Alert> {
    const defined = <T>(value: T | null | undefined): T | undefined => value ?? undefined;
    const created = await this.rules.create({
      character: input.character,
      kind: input.kind,
      target: input.target,
      url: input.url,
      params: {
        factoryId: defined(input.factoryId),
        item: defined(input.item),
        store: defined(input.store),
        threshold: defined(input.threshold),
        bankAccountId: defined(input.bankAccountId),
        minAmount: defined(input.minAmount),
        buildingId: defined(input.buildingId),
        days: defined(input.days),
      },
    });
    return alertOf(created);
  }

  /** Deletes an alert rule (`NOT_FOUND` when there is none of that id). */
  deleteAlert(id: string): Promise<boolean> {
    return this.rules.remove(id);
  }

  /** Every character of the vault, by name. */
  async vaultCharacters(): Promise<VaultCharacter[]> {
    const keys = await vaultCall(() => this.vault.listKeys());
    return Promise.all(
      keys.map(async (key) =>
        Object.assign(new VaultCharacter(), {
          id: key.id,
          name: key.name,
          addedAt: key.addedAt,
          hasSecret: key.hasSecret,
          companies: await this.parts.auth.factoriesOf(key.name),
        }),
      ),
    );
  }

  /** Every token, newest first. */
  async accessTokens(): Promise<AccessTokenSummary[]> {
    const tokens = await vaultCall(() => this.vault.listTokens());
    return tokens.map(summary).sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  }

  /** Each character's name and hashed key (the economy's and the payment store's id of it). */
  private async characterKeys(): Promise<Array<{ readonly name: string; readonly keyId: string }>> {
    return (await this.characters()).map((character) => ({
      name: character.name,
      keyId: hashedKey(character, this.parts.keyHashSecret).keyId,
    }));
  }

  /** Each character's budget now, from this replica's economy (no upstream request). */
  private async budgetsNow(): Promise<Map<string, BudgetPoint>> {
    const points = new Map<string, BudgetPoint>();
    const at = this.now();
    for (const record of await this.characterKeys()) {
      const stats = this.parts.economy.stats(record.keyId);
      const queued = Object.values(stats.queued).reduce((sum, count) => sum + count, 0);
      points.set(record.name, { at, usedInWindow: stats.windowRequests, upstream429s: stats.upstream429s, queued });
    }
    return points;
  }

  /** Takes the minute's sample of every character's budget (the gateway calls it once a minute). */
  async sampleBudgets(): Promise<void> {
    this.history.record(await this.budgetsNow());
  }

  /** Each character's budget now and over the last hour, from this replica's economy (no upstream request). */
  async keyBudgets(): Promise<KeyBudget[]> {
    const now = await this.budgetsNow();
    this.history.record(now);
    return [...now]
      .map(([character, point]) =>
        Object.assign(new KeyBudget(), {
          character,
          limit: this.parts.rateLimit?.requests ?? 0,
          windowSeconds: this.parts.rateLimit?.windowSeconds ?? 0,
          usedInWindow: point.usedInWindow,
          upstream429s: point.upstream429s,
          queued: point.queued,
          history: this.history
            .of(character)
            .map((each) => Object.assign(new BudgetSample(), { ...each, at: new Date(each.at) })),
        }),
      )
      .sort((a, b) => a.character.localeCompare(b.character));
  }

  /**
   * The payment requests and unmatched transfers of every character, for the companies its
   * key check found (from the payment store; no upstream request).
   */
  async payments(): Promise<{ requests: AdminPaymentRequest[]; unmatched: AdminUnmatchedTransfer[] }> {
    const requests: AdminPaymentRequest[] = [];
    const unmatched: AdminUnmatchedTransfer[] = [];
    for (const { name, keyId: owner } of await this.characterKeys()) {
      for (const factoryId of (await this.parts.auth.factoriesOf(name)) ?? []) {
        for (const request of await this.parts.payments.list(owner, factoryId)) {
          requests.push(adminRequest(name, request));
        }
        for (const transfer of await this.parts.payments.unmatched(owner, factoryId)) {
          unmatched.push(unmatchedOf(name, factoryId, transfer));
        }
      }
    }
    requests.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
    unmatched.sort((a, b) => b.bookedAt.getTime() - a.bookedAt.getTime());
    return { requests, unmatched };
  }

  /**
   * Moves an unmatched transfer onto an open request of its company (payment-assign.ts; no upstream request).
   *
   * @throws GatewayError `NOT_FOUND` (no such character, company, transfer or request), `CONFLICT` (the request is not open)
   */
  async assignTransfer(input: AssignTransferInput): Promise<AdminPaymentRequest> {
    const owner = (await this.characterKeys()).find((each) => each.name === input.character)?.keyId;
    if (!owner || !((await this.parts.auth.factoriesOf(input.character)) ?? []).includes(input.factoryId))
      throw new GatewayError(
        'NOT_FOUND',
        `The vault has no character "${input.character}" owning the company ${input.factoryId} (as its key check found).`,
      );
    const request = await assignTransfer(
      this.parts.payments,
      { owner, factoryId: input.factoryId, transferId: input.transferId, reference: input.reference },
      this.now(),
    );
    return adminRequest(input.character, request);
  }

  /** The upstream-answer cache's lookups since the start. */
  cacheSummary(): CacheSummary {
    const { hit, miss, stale } = this.parts.cacheOutcomes?.() ?? { hit: 0, miss: 0, stale: 0 };
    const total = hit + miss + stale;
    return Object.assign(new CacheSummary(), {
      hits: hit,
      misses: miss,
      stale,
      hitRatio: total === 0 ? null : hit / total,
    });
  }

  /** The alerts' deliveries (pending, delivered or failed) and the payments outbox's (those not yet delivered), newest first. */
  async deliveries(first: number | null | undefined): Promise<Delivery[]> {
    const count = bounded(first);
    const payments = (await this.parts.payments.outbox()).map(outboxDelivery);
    const alerts = (await this.parts.alerts?.deliveries(count)) ?? [];
    return [
      ...payments,
      ...alerts.map((each) => Object.assign(new Delivery(), { ...each, status: DeliveryStatus[each.status] })),
    ]
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
      .slice(0, count);
  }

  /**
   * Makes a delivery due now: a payment webhook's pending one, or an alert's whatever its
   * status (the outboxes attempt them within their next round).
   *
   * @throws GatewayError `NOT_FOUND` when neither outbox has such a delivery (a delivered payment webhook's left it)
   */
  async redeliver(id: string): Promise<Delivery> {
    const entry = (await this.parts.payments.outbox()).find((each) => each.id === id);
    if (!entry) {
      const alert = await this.parts.alerts?.redeliver(id);
      if (alert) return Object.assign(new Delivery(), { ...alert, status: DeliveryStatus[alert.status] });
      throw new GatewayError(
        'NOT_FOUND',
        `No outbox has a delivery "${id}": a payment webhook's delivered deliveries leave it (see deliveries).`,
      );
    }
    await this.parts.payments.putOutbox({ ...entry, nextAt: this.now() });
    const [delivery] = (await this.deliveries(MAX_FIRST)).filter((each) => each.id === id);
    if (!delivery) throw new GatewayError('NOT_FOUND', `The delivery "${id}" left the outbox meanwhile (delivered).`);
    return delivery;
  }

  /** The newest audit entries. */
  async auditLog(first: number | null | undefined): Promise<AuditEntry[]> {
    const entries = await this.parts.auth.auditLog(bounded(first));
    return entries.map((entry) => Object.assign(new AuditEntry(), { ...entry, at: new Date(entry.at) }));
  }

  /**
   * Checks a key upstream once (GET /factory/list/ within the key's own budget, fresh), then
   * seals it into the vault. What the StateV API answered comes back as the error (e.g.
   * `FORBIDDEN` for a wrong key, `RATE_LIMITED` with `retryAfterSeconds`); nothing is stored then.
   *
   * @throws GatewayError `BAD_USER_INPUT` for a bad name or key, before any upstream request
   */
  async addVaultKey(input: AddVaultKeyInput): Promise<VaultCharacter> {
    const { apiKey, secret } = checkedKeyInput(input);
    // A key no vault holds yet: hashed in THE memo, its holder this check.
    const key = hashedKey({ apiKey }, this.parts.keyHashSecret);
    const session = new UpstreamSession(this.parts.economy, key.apiKey, key.keyId, true);
    const factories = await fetchFactoryList(session);
    const added = await vaultCall(() => this.vault.addKey(input.name, apiKey, secret));
    await this.parts.auth.rememberFactories(
      input.name,
      factories.map((factory) => factory.id),
    );
    return Object.assign(new VaultCharacter(), {
      id: added.id,
      name: added.name,
      addedAt: added.addedAt,
      hasSecret: added.hasSecret,
      companies: factories.map((factory) => factory.id),
    });
  }

  /**
   * Removes a key by name.
   *
   * @throws GatewayError `BAD_USER_INPUT` when there is none of that name
   */
  async removeVaultKey(name: string): Promise<boolean> {
    await vaultCall(() => this.vault.removeKey(name));
    return true;
  }

  /**
   * Creates a token. A `factory:<id>` grant must name a company one of its characters owns,
   * as the key check of `addVaultKey` found it (no upstream request here).
   *
   * @throws GatewayError `BAD_USER_INPUT` for an unknown character, bad grant, lifetime, origin or share, or a company not owned
   */
  async createAccessToken(input: CreateAccessTokenInput): Promise<CreatedAccessToken> {
    const { expiresInMs, origin } = checkedTokenInput(input);
    await checkFactoryGrants(input, (name) => this.parts.auth.factoriesOf(name));
    const created = await vaultCall(() =>
      this.vault.createToken({
        characters: input.characters,
        grants: input.grants,
        expiresInMs,
        origin,
        budgetShare: input.budgetShare ?? null,
      }),
    );
    const token = (await vaultCall(() => this.vault.listTokens())).find((each) => each.id === created.id);
    if (!token) throw new Error('The token just created is not listed.');
    return Object.assign(new CreatedAccessToken(), { token: created.token, summary: summary(token) });
  }

  /** The console's short-lived token for editing one company's site documents on the public graph (document-editor.ts; no upstream request). */
  siteDocumentEditor(input: SiteDocumentEditorInput, origin: string): Promise<EditorToken> {
    const factoriesOf = (name: string): Promise<string[] | null> => this.parts.auth.factoriesOf(name);
    const { rateLimit, tokensChanged } = this.parts;
    return mintEditorToken({ vault: this.vault, factoriesOf, rateLimit, tokensChanged }, input, origin);
  }

  /**
   * Revokes a token by id.
   *
   * @throws GatewayError `BAD_USER_INPUT` when there is none of that id
   */
  async revokeAccessToken(id: string): Promise<AccessTokenSummary> {
    await vaultCall(() => this.vault.revokeToken(id));
    const token = (await vaultCall(() => this.vault.listTokens())).find((each) => each.id === id);
    if (!token) throw new Error('The token just revoked is not listed.');
    return summary(token);
  }
}
