/**
 * What a running gateway reads of the vault: one stored document opened, with token
 * lookups as synchronous map reads (see `LiveVault`, which builds a new view when the
 * document changes), and why a token is refused.
 */
import type { MasterKeys } from './envelope';
import { parseGrant } from './grants';
import type { Grant } from './grants';
import { looksLikeToken, tokenChecksumValid, tokenHash } from './token-format';
import { parseDocument, openKey } from './vault-document';
import { openWebhooks } from './webhooks';
import type { OpenedWebhook } from './webhooks';

/** A character a token covers, opened: its key and secret (in memory only). */
export interface TokenCharacter {
  /** The vault entry's id. */
  readonly id: string;
  /** Its name. */
  readonly name: string;
  /** The StateV API key. */
  readonly apiKey: string;
  /** Its API secret, or null. */
  readonly apiSecret: string | null;
}

/** A token that may be used now. */
export interface ActiveToken {
  /** Its id (never the token). */
  readonly id: string;
  /** Its characters, opened, in the order given. */
  readonly characters: readonly TokenCharacter[];
  /** Its grants as written. */
  readonly grantTexts: readonly string[];
  /** Its grants, parsed. */
  readonly grants: readonly Grant[];
  /** When it expires. */
  readonly expiresAt: Date;
  /** The origin it is bound to, or null. */
  readonly origin: string | null;
  /** Its share of its key's budget, or null. */
  readonly budgetShare: number | null;
}

/** Why a token is refused. */
export type TokenRefusal = 'malformed' | 'unknown' | 'expired' | 'revoked' | 'key-removed' | 'no-vault' | 'wrong-origin';

/** What a bearer token is: usable, or refused and why. */
export type TokenCheck = { readonly kind: 'ok'; readonly token: ActiveToken } | { readonly kind: 'refused'; readonly reason: TokenRefusal };

/** The sentence a refused token is answered with (UNAUTHENTICATED). */
export const TOKEN_REFUSALS: Readonly<Record<TokenRefusal, string>> = {
  malformed: 'The access token is malformed (its checksum does not match): copy it again, whole, as tokens create printed it.',
  unknown: 'The access token is not known to this gateway: it was never issued here, or its vault was replaced.',
  expired: 'The access token has expired: ask for a new one (statev-gateway tokens create).',
  revoked: 'The access token was revoked: ask for a new one (statev-gateway tokens create).',
  'key-removed': 'The access token covers a character whose key was removed from the vault: ask for a new one.',
  'wrong-origin': 'The access token is bound to a browser origin, and this request did not come from it (its Origin header differs or is missing).',
  'no-vault': 'This gateway has no vault (VAULT_MASTER_KEY is not set), so it accepts no access tokens: send a StateV API key.',
};

/**
 * One stored document, opened: token lookups are synchronous map reads. A running gateway
 * builds a new view when the document changes (see `LiveVault`).
 */
export class VaultView {
  private readonly tokens = new Map<string, ActiveToken | { readonly revoked: true } | { readonly removed: true }>();
  private readonly expiry = new Map<string, number>();
  private readonly origins = new Set<string>();
  /** The webhooks whose key is in the vault, opened. */
  readonly webhooks: OpenedWebhook[] = [];
  /** Every StateV key the vault holds, opened (in memory only; never log them). */
  readonly apiKeys: string[] = [];

  private constructor(private readonly hashKey: Buffer | null) {}

  /** A view with nothing in it (no vault, or none yet). */
  static empty(): VaultView {
    return new VaultView(null);
  }

  /**
   * Opens a stored document.
   *
   * @throws VaultKeyError when the master keys do not open it
   */
  static fromText(text: string | null, master: MasterKeys): VaultView {
    if (text === null) return VaultView.empty();
    const document = parseDocument(text);
    const view = new VaultView(master.unwrap(document.tokenKey, 'tokens'));
    const keys = new Map(document.keys.map((record) => [record.id, openKey(master, record)]));
    view.webhooks.push(...openWebhooks(document, keys, master));
    view.apiKeys.push(...[...keys.values()].map((key) => key.apiKey));
    for (const record of document.tokens) {
      view.expiry.set(record.hash, Date.parse(record.expiresAt));
      if (record.revokedAt !== null) {
        view.tokens.set(record.hash, { revoked: true });
        continue;
      }
      const characters = record.characters.map((id) => keys.get(id));
      if (characters.some((character) => character === undefined)) {
        view.tokens.set(record.hash, { removed: true });
        continue;
      }
      if (record.origin !== null) view.origins.add(record.origin);
      view.tokens.set(record.hash, {
        id: record.id,
        characters: characters as TokenCharacter[],
        grantTexts: record.grants,
        grants: record.grants.map((grant) => parseGrant(grant)).filter((grant): grant is Grant => grant !== null),
        expiresAt: new Date(record.expiresAt),
        origin: record.origin,
        budgetShare: record.budgetShare,
      });
    }
    return view;
  }

  /** True when a token that is not revoked is bound to this browser origin (CORS lets it through). */
  allowsOrigin(origin: string): boolean {
    return this.origins.has(origin);
  }

  /** Checks a bearer token (one with the token prefix): usable now, or refused and why. */
  check(token: string, now: number = Date.now()): TokenCheck {
    if (!looksLikeToken(token) || !tokenChecksumValid(token)) return { kind: 'refused', reason: 'malformed' };
    if (!this.hashKey) return { kind: 'refused', reason: 'unknown' };
    const hash = tokenHash(this.hashKey, token);
    const found = this.tokens.get(hash);
    if (!found) return { kind: 'refused', reason: 'unknown' };
    if ('revoked' in found) return { kind: 'refused', reason: 'revoked' };
    if ((this.expiry.get(hash) ?? 0) <= now) return { kind: 'refused', reason: 'expired' };
    if ('removed' in found) return { kind: 'refused', reason: 'key-removed' };
    return { kind: 'ok', token: found };
  }
}
