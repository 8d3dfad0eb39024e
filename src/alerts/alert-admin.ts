/**
 * What the administration graph does with alert rules (`createAlert`, `alerts`,
 * `deleteAlert`): checks before any upstream request (the character, the kind's inputs,
 * the target URL after DNS under the outbound rules), then, for RENT_OVERDUE only, one
 * upstream request (the building's tenants, within the key's budget) to see that the key
 * has the scope `building.tenants.activity`; the rule is then sealed into the vault.
 */
import type { UpstreamEconomy } from '../economy';
import { UpstreamSession } from '../economy';
import { hashedKey } from '../pipeline/key-in-use';
import type { KeyHolder } from '../pipeline/key-in-use';
import { fetchTenants } from '../domains/buildings/buildings.api';
import { GatewayError } from '../errors/gateway-error';
import { OutboundUrlError, resolveOutboundUrl } from '../upstream/outbound-url';
import type { HostResolver } from '../upstream/outbound-url';
import { VaultUsageError, checkAlertParams, checkAlertUrl } from '../vault';
import type { AlertRequest, AlertSummary, Vault } from '../vault';
import type { AlertWatcher } from './alert-watcher';

/** The scope RENT_OVERDUE needs (the tenants' `lastPayDate`). */
export const RENT_SCOPE = 'building.tenants.activity';

/** A rule as the administration graph shows it. */
export interface AlertRuleView {
  /** `alr_…`. */
  readonly id: string;
  /** The character whose key watches. */
  readonly character: string;
  /** What it watches. */
  readonly kind: AlertSummary['kind'];
  /** The URL, its secret part replaced by an ellipsis. */
  readonly url: string;
  /** Where it goes. */
  readonly target: AlertSummary['target'];
  /** WEBHOOK: the signing secret, in `create`'s answer only; null everywhere else. */
  readonly signingSecret: string | null;
  /** When it was created. */
  readonly createdAt: Date;
  /** When it last fired, or null. */
  readonly lastFiredAt: Date | null;
}

/** What {@link AlertRules} needs. */
export interface AlertRulesParts {
  /** The vault (as the command line changes it). */
  readonly vault: Vault;
  /** A character, its StateV key opened (never logged; the key's holder for `hashedKey`), or null when the vault has none of that name. */
  readonly keyOf: (character: string) => Promise<KeyHolder | null>;
  /** The economy (RENT_OVERDUE's scope check). */
  readonly economy: UpstreamEconomy;
  /** `KEY_HASH_SECRET`. */
  readonly keyHashSecret: string;
  /** `WEBHOOK_ALLOW_HOSTS`. */
  readonly allowHosts: readonly string[];
  /** The running watcher (for `lastFiredAt`), if any. */
  readonly watcher?: AlertWatcher | null;
  /** How host names resolve (tests). */
  readonly resolve?: HostResolver;
}

/** A vault refusal as a client error. */
async function usage<T>(call: () => Promise<T> | T): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof VaultUsageError) throw new GatewayError('BAD_USER_INPUT', error.message);
    throw error;
  }
}

/** Alert rules for the administration graph. */
export class AlertRules {
  /** @param parts - see {@link AlertRulesParts} */
  constructor(private readonly parts: AlertRulesParts) {}

  /**
   * Creates a rule; a WEBHOOK rule's signing secret is in this answer only.
   *
   * @throws GatewayError `BAD_USER_INPUT` (before any upstream request) for an unknown character, a missing input or a refused URL; `FORBIDDEN` naming the scope when a RENT_OVERDUE key lacks it; the upstream's error of the tenants check
   */
  async create(request: AlertRequest): Promise<AlertRuleView> {
    const holder = await this.parts.keyOf(request.character);
    if (holder === null)
      throw new GatewayError(
        'BAD_USER_INPUT',
        `The vault has no character named "${request.character}" (see vaultCharacters).`,
        { argument: 'input.character' },
      );
    const params = await usage(() => checkAlertParams(request.kind, request.params));
    await usage(() => checkAlertUrl(request.target, request.url, this.parts.allowHosts));
    try {
      await resolveOutboundUrl(request.url, { allowHosts: this.parts.allowHosts }, this.parts.resolve);
    } catch (error) {
      if (error instanceof OutboundUrlError)
        throw new GatewayError(
          'BAD_USER_INPUT',
          `The ${request.target === 'DISCORD' ? 'Discord' : 'webhook'} URL is refused: ${error.message}.`,
          { argument: 'input.url' },
        );
      throw error;
    }
    if (request.kind === 'RENT_OVERDUE') await this.checkRentScope(holder, request.character, params.buildingId ?? '');
    const added = await usage(() => this.parts.vault.addAlert({ ...request, params }, this.parts.allowHosts));
    return { ...this.view(added.summary, null), signingSecret: added.secret };
  }

  /** Every rule, oldest first, with when it last fired. */
  async list(): Promise<AlertRuleView[]> {
    const summaries = await this.parts.vault.listAlerts();
    return Promise.all(summaries.map(async (summary) => this.view(summary, await this.lastFiredAt(summary))));
  }

  /**
   * Deletes a rule.
   *
   * @throws GatewayError `NOT_FOUND` when there is none of that id
   */
  async remove(id: string): Promise<boolean> {
    try {
      await this.parts.vault.removeAlert(id);
    } catch (error) {
      if (error instanceof VaultUsageError) throw new GatewayError('NOT_FOUND', error.message);
      throw error;
    }
    return true;
  }

  /** One upstream request: the building's tenants carry `lastPayDate` only with the scope. */
  private async checkRentScope(holder: KeyHolder, character: string, buildingId: string): Promise<void> {
    const key = hashedKey(holder, this.parts.keyHashSecret);
    const session = new UpstreamSession(this.parts.economy, key.apiKey, key.keyId);
    const tenants = await fetchTenants(session, buildingId);
    if (tenants.length > 0 && tenants.every((tenant) => tenant.lastPayDate === null)) {
      throw new GatewayError(
        'FORBIDDEN',
        `RENT_OVERDUE needs the scope ${RENT_SCOPE} on ${character}'s key (the tenants' lastPayDate): the StateV API leaves it out for this key. Create a key with that scope in the game's web portal and add it again.`,
        {
          requiredScopes: [RENT_SCOPE],
        },
      );
    }
  }

  private async lastFiredAt(summary: AlertSummary): Promise<Date | null> {
    const watcher = this.parts.watcher;
    if (!watcher || summary.refused !== null) return null;
    return watcher.lastFiredAt({
      id: summary.id,
      kind: summary.kind,
      params: summary.params,
      createdAt: summary.createdAt.getTime(),
    });
  }

  private view(summary: AlertSummary, lastFiredAt: Date | null): AlertRuleView {
    return {
      id: summary.id,
      character: summary.character,
      kind: summary.kind,
      url: summary.url,
      target: summary.target,
      signingSecret: null,
      createdAt: summary.createdAt,
      lastFiredAt,
    };
  }
}
