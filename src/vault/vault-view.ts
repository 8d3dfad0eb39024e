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
import type { TokenRecord } from './vault-document';
import { openWebhooks } from './webhooks';
import { RecordMac } from './record-mac';
import { recordName, recordTrust, tokenRecordProblem } from './record-checks';
import type { OpenedWebhook } from './webhooks';
import { openAlerts } from './alert-rules';
import type { OpenedAlert } from './alert-rules';

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
export type TokenRefusal =
  'malformed' | 'unknown' | 'expired' | 'revoked' | 'key-removed' | 'no-vault' | 'wrong-origin' | 'unverified';

/**
 * A bearer token to look up: its text, or an object that holds it for as long as the token is
 * used (the request's credential, read once per request or connection): the token's keyed
 * hash is then computed once per holder (and vault token key), not once per lookup.
 */
export type TokenText = string | { readonly token: string };

/** What is known of one holder's token, found once and kept with the holder (see {@link holderFacts}). */
interface HolderFacts {
  /** The token text these facts are of: a holder whose text changed starts again. */
  readonly token: string;
  /** Whether it is well formed ({@link wellFormed}), once asked. */
  ok?: boolean;
  /** Its keyed hash and the vault token key it was computed under ({@link hashOf}), once asked. */
  hashed?: { readonly hashKey: Buffer; readonly hash: string };
}

/**
 * One record per holder of a token: whether the token is well formed, and its hash by the
 * vault token key it was computed under. Keyed by the holder object, never by the token's
 * text: no token in clear is a map key, and an entry lives only as long as its holder (a
 * connection's credential).
 */
const holders = new WeakMap<{ readonly token: string }, HolderFacts>();

/** The facts kept for `holder`'s token: new ones when it has none, or held another text then. */
function holderFacts(holder: { readonly token: string }): HolderFacts {
  let facts = holders.get(holder);
  if (facts?.token !== holder.token) holders.set(holder, (facts = { token: holder.token }));
  return facts;
}

/** The keyed hash of a token under `hashKey` (see `tokenHash`), once per holder and key. */
function hashOf(hashKey: Buffer, text: TokenText): string {
  if (typeof text === 'string') return tokenHash(hashKey, text);
  const facts = holderFacts(text);
  if (facts.hashed?.hashKey.equals(hashKey)) return facts.hashed.hash;
  const hash = tokenHash(hashKey, text.token);
  facts.hashed = { hashKey, hash };
  return hash;
}

/**
 * True when a bearer value has the token prefix, shape and checksum (see `tokenChecksumValid`):
 * computed once per holder (a connection's credential), not once per request.
 */
export function wellFormed(text: TokenText): boolean {
  if (typeof text === 'string') return looksLikeToken(text) && tokenChecksumValid(text);
  const facts = holderFacts(text);
  facts.ok ??= looksLikeToken(text.token) && tokenChecksumValid(text.token);
  return facts.ok;
}

/** What a bearer token is: usable, or refused and why. */
export type TokenCheck =
  { readonly kind: 'ok'; readonly token: ActiveToken } | { readonly kind: 'refused'; readonly reason: TokenRefusal };

/** The sentence a refused token is answered with (UNAUTHENTICATED). */
export const TOKEN_REFUSALS: Readonly<Record<TokenRefusal, string>> = {
  malformed:
    'The access token is malformed (its checksum does not match): copy it again, whole, as tokens create printed it.',
  unknown: 'The access token is not known to this gateway: it was never issued here, or its vault was replaced.',
  expired: 'The access token has expired: ask for a new one (statev-gateway tokens create).',
  revoked: 'The access token was revoked: ask for a new one (statev-gateway tokens create).',
  'key-removed': 'The access token covers a character whose key was removed from the vault: ask for a new one.',
  'wrong-origin':
    'The access token is bound to a browser origin, and this request did not come from it (its Origin header differs or is missing).',
  unverified:
    "The access token's record in the vault does not verify (it was changed outside statev-gateway's command line, or the vault was written before records were signed): the operator must check it (statev-gateway tokens list) and run statev-gateway vault rotate, or create a new token.",
  'no-vault':
    'This gateway has no vault (VAULT_MASTER_KEY is not set), so it accepts no access tokens: send a StateV API key.',
};

/**
 * One stored document, opened: token lookups are synchronous map reads. A running gateway
 * builds a new view when the document changes (see `LiveVault`).
 */
export class VaultView {
  private readonly tokens = new Map<
    string,
    ActiveToken | { readonly revoked: true } | { readonly removed: true } | { readonly unverified: true }
  >();
  private readonly expiry = new Map<string, number>();
  private readonly origins = new Set<string>();
  /**
   * The hashes of every token this process has seen revoked: a revocation is for good, so a
   * later document that shows one of them unrevoked (an older copy put back) does not revive it.
   */
  private readonly revoked = new Set<string>();
  /**
   * Why records of the document were refused (one line each: the record's id and what is
   * wrong, never a secret or a hash), for the log.
   */
  readonly problems: string[] = [];
  /** The webhooks whose key is in the vault, opened. */
  readonly webhooks: OpenedWebhook[] = [];
  /** The alert rules whose key is in the vault, opened. */
  readonly alerts: OpenedAlert[] = [];
  /** Every character the vault holds, its key opened (in memory only; never log them); the tokens' characters are these objects. */
  readonly characters: TokenCharacter[] = [];

  private constructor(private readonly hashKey: Buffer | null) {}

  /** A view with nothing in it (no vault, or none yet). */
  static empty(): VaultView {
    return new VaultView(null);
  }

  /**
   * Opens a stored document. Token and webhook records are checked one by one (shape,
   * then MAC): one that fails is refused and named in {@link problems}, the rest serve.
   *
   * @param previous - the view this one replaces: the tokens it saw revoked stay revoked
   * @throws VaultKeyError when the master keys do not open it, or a key record is malformed
   */
  static fromText(text: string | null, master: MasterKeys, previous?: VaultView): VaultView {
    if (text === null) return VaultView.empty();
    const document = parseDocument(text);
    const mac = new RecordMac(master);
    const view = new VaultView(master.unwrap(document.tokenKey, 'tokens'));
    if (previous && previous.hashKey?.equals(view.hashKey as Buffer))
      for (const hash of previous.revoked) view.revoked.add(hash);
    const keys = new Map(document.keys.map((record) => [record.id, openKey(master, record)]));
    const webhooks = openWebhooks(document, keys, master, mac);
    view.webhooks.push(...webhooks.opened);
    view.problems.push(...webhooks.problems);
    const alerts = openAlerts(document, keys, master, mac);
    view.alerts.push(...alerts.opened);
    view.problems.push(...alerts.problems);
    view.characters.push(...keys.values());
    document.tokens.forEach((record: unknown, index) => view.addToken(record, index, keys, mac));
    return view;
  }

  /** Adds one token record, checked: a record that is malformed or does not verify is refused (and noted in {@link problems}). */
  private addToken(value: unknown, index: number, keys: ReadonlyMap<string, TokenCharacter>, mac: RecordMac): void {
    const problem = tokenRecordProblem(value);
    const hash =
      typeof (value as { hash?: unknown } | null)?.hash === 'string' ? (value as { hash: string }).hash : null;
    if (problem !== null) {
      this.problems.push(`Token record ${recordName(value, index)} is refused: ${problem}.`);
      if (hash !== null) this.tokens.set(hash, { unverified: true });
      return;
    }
    const record = value as TokenRecord;
    const trust = recordTrust(mac, 'token', record as unknown as Record<string, unknown>);
    if (trust !== 'signed') {
      this.problems.push(
        trust === 'unsigned'
          ? `Token record ${record.id} is refused: it is not signed (written before vault records were signed); check it with statev-gateway tokens list, then run statev-gateway vault rotate to sign the vault's records.`
          : `Token record ${record.id} is refused: its MAC does not verify (it was changed outside statev-gateway's command line, or signed under a master key VAULT_MASTER_KEY does not hold).`,
      );
      this.tokens.set(record.hash, { unverified: true });
      return;
    }
    this.expiry.set(record.hash, Date.parse(record.expiresAt));
    if (record.revokedAt !== null || this.revoked.has(record.hash)) {
      this.revoked.add(record.hash);
      this.tokens.set(record.hash, { revoked: true });
      return;
    }
    const characters = record.characters.map((id) => keys.get(id));
    if (characters.some((character) => character === undefined)) {
      this.tokens.set(record.hash, { removed: true });
      return;
    }
    if (record.origin !== null) this.origins.add(record.origin);
    this.tokens.set(record.hash, {
      id: record.id,
      characters: characters as TokenCharacter[],
      grantTexts: record.grants,
      grants: record.grants.map((grant) => parseGrant(grant)).filter((grant): grant is Grant => grant !== null),
      expiresAt: new Date(record.expiresAt),
      origin: record.origin,
      budgetShare: record.budgetShare,
    });
  }

  /** True when the token (a well-formed one) has a record in this view, whatever its state. */
  knows(token: TokenText): boolean {
    return this.hashKey !== null && this.tokens.has(hashOf(this.hashKey, token));
  }

  /** True when a token that is not revoked is bound to this browser origin (CORS lets it through). */
  allowsOrigin(origin: string): boolean {
    return this.origins.has(origin);
  }

  /** Checks a bearer token (one with the token prefix): usable now, or refused and why. */
  check(token: TokenText, now: number = Date.now()): TokenCheck {
    if (!wellFormed(token)) return { kind: 'refused', reason: 'malformed' };
    if (!this.hashKey) return { kind: 'refused', reason: 'unknown' };
    const hash = hashOf(this.hashKey, token);
    const found = this.tokens.get(hash);
    if (!found) return { kind: 'refused', reason: 'unknown' };
    if ('unverified' in found) return { kind: 'refused', reason: 'unverified' };
    if ('revoked' in found) return { kind: 'refused', reason: 'revoked' };
    // A missing or unparseable expiry (NaN) is expired, never "never expires".
    if (!((this.expiry.get(hash) ?? Number.NaN) > now)) return { kind: 'refused', reason: 'expired' };
    if ('removed' in found) return { kind: 'refused', reason: 'key-removed' };
    return { kind: 'ok', token: found };
  }
}
