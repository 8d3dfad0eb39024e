/**
 * The key an operation runs with, resolved once per request by the request steps from the
 * request's {@link Credential}: the caller's own key (the `key` step), the site's key for a
 * keyless trusted document (`public-site`), or an access token's vault keys (`token`). Each
 * key is hashed here, in THE memo of key hashes, and nowhere else; the context, the
 * subscription limits, the upstream session and every log line take the hash from here.
 * So do the keys no request carries ({@link hashedKey}): the vault's characters the payment
 * desk polls with, webhooks, alert rules and the keys the console checks.
 */
import { keyId } from '../economy';
import type { ActiveToken, TokenCharacter } from '../vault';
import type { Credential } from './credential';

/** A key with its hash (`keyId`: what cache entries, limits, logs and metrics name it by). */
export interface HashedKey {
  /** The StateV API key, sent upstream and never logged. */
  readonly apiKey: string;
  /** HMAC of the key with `KEY_HASH_SECRET` (see `keyId`). */
  readonly keyId: string;
}

/** Anything that holds a key for as long as the key lives: a `key` credential, the site's key, a vault character, a webhook, an alert rule. */
export interface KeyHolder {
  /** The StateV API key. */
  readonly apiKey: string;
}

/** The site's key in public-site mode (`STATEV_API_KEY`), with its secret for a trusted mutation. */
export interface SiteKey {
  /** The server-held key; never logged or echoed. */
  readonly apiKey: string;
  /** `STATEV_API_SECRET` for a trusted document with a mutation, else null (a write then has no secret to use). */
  readonly apiSecret: string | null;
}

/** One character of an access token, with its key hashed. */
export interface CharacterKey {
  /** The character as the vault opened it (its id, name, key and secret). */
  readonly character: TokenCharacter;
  /** Its key, hashed. */
  readonly key: HashedKey;
}

/**
 * The key an operation runs with and where it comes from:
 *
 * - `caller`: the bearer key the caller sent; its secret, if any, is the caller's
 *   `X-Api-Secret` header;
 * - `site`: public-site mode, a keyless trusted document runs with the site's key and the
 *   secret stored with it (`STATEV_API_SECRET`, trusted mutations only);
 * - `token`: an access token the vault accepted; it runs with its first character's key
 *   and secret (`characters[0]`), a token over several characters with each of them.
 *
 * `key` is the key that runs the operation, hashed. Built once per request by the steps.
 */
export type KeyInUse =
  | { readonly source: 'caller'; readonly key: HashedKey }
  | { readonly source: 'site'; readonly key: HashedKey; readonly storedSecret: string | null }
  | {
      readonly source: 'token';
      readonly key: HashedKey;
      readonly storedSecret: string | null;
      readonly token: ActiveToken;
      readonly characters: readonly CharacterKey[];
    };

/**
 * THE memo of key hashes: each holder's hashed key, computed on first use. A holder is an
 * object that lives as long as its key does (a connection's credential, the public-site
 * policy's site key, a character of the opened vault), so a key is hashed once per holder,
 * however many operations, subscriptions and upstream requests use it, and no raw key is
 * ever a map key.
 */
const hashes = new WeakMap<KeyHolder, HashedKey>();

/**
 * A holder's key and its hash (the HMAC with `secret`, `KEY_HASH_SECRET`), computed once per
 * holder object. The request steps call it through {@link callerKey}, {@link siteKey} and
 * {@link tokenKey}; what holds a key outside a request calls it directly with an object that
 * lives as long as the key (a character of the opened vault, an opened webhook or alert rule,
 * the console's opened character), never with a fresh wrapper per use.
 *
 * @param secret - `KEY_HASH_SECRET`
 */
export function hashedKey(holder: KeyHolder, secret: string): HashedKey {
  let hashed = hashes.get(holder);
  if (hashed?.apiKey !== holder.apiKey) {
    hashed = { apiKey: holder.apiKey, keyId: keyId(holder.apiKey, secret) };
    hashes.set(holder, hashed);
  }
  return hashed;
}

/**
 * The caller's own key (a `key` credential), hashed once per credential object; null for
 * any other credential (`none`, `malformed`, and `token`, which the `token` step resolves).
 *
 * @param secret - `KEY_HASH_SECRET`
 */
export function callerKey(credential: Credential, secret: string): KeyInUse | null {
  return credential.kind === 'key' ? { source: 'caller', key: hashedKey(credential, secret) } : null;
}

/**
 * The site's key (public-site mode), hashed once per {@link SiteKey} object (the policy holds
 * one for trusted queries and one for trusted mutations).
 *
 * @param secret - `KEY_HASH_SECRET`
 */
export function siteKey(site: SiteKey, secret: string): KeyInUse {
  return { source: 'site', key: hashedKey(site, secret), storedSecret: site.apiSecret };
}

/**
 * An access token's keys: each character's, hashed once per character of the opened vault
 * (the vault opens each character once per stored document, so a token's requests share
 * them); the first runs the operation. Null for a token with no character left.
 *
 * @param secret - `KEY_HASH_SECRET`
 */
export function tokenKey(token: ActiveToken, secret: string): KeyInUse | null {
  const known = tokenKeys.get(token);
  if (known?.secret === secret && known.characters === token.characters) return known.inUse;
  const characters = token.characters.map((character) => ({ character, key: hashedKey(character, secret) }));
  const [first] = characters;
  const inUse: KeyInUse | null = first
    ? { source: 'token', key: first.key, storedSecret: first.character.apiSecret, token, characters }
    : null;
  tokenKeys.set(token, { secret, characters: token.characters, inUse });
  return inUse;
}

/**
 * Each token's keys ({@link tokenKey}), built once per token object of the opened vault (a
 * new document opens new objects), not once per request. Keyed by the object, never by
 * the token's text; the vault still checks the token (revocation, expiry) on each request.
 */
const tokenKeys = new WeakMap<
  ActiveToken,
  { readonly secret: string; readonly characters: ActiveToken['characters']; readonly inUse: KeyInUse | null }
>();
