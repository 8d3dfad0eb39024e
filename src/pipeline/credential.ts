/**
 * The caller's key, read in one place for every transport: the `Authorization` header
 * over HTTP and graphql-sse, the `authorization` connection parameter (or the upgrade
 * request's header) over graphql-ws. Read once per request (once per connection over
 * graphql-ws), hashed at most once ({@link hashedKey}), and handed as it is to the
 * pipeline and to the operation's context: nothing turns it back into a header.
 */
import { keyId } from '../economy';

import { looksLikeToken } from '../vault';

/**
 * What a request says about its key: a bearer key (`kind: 'key'`, the token in
 * `apiKey`), a gateway access token (`kind: 'token'`: a bearer value with the `svg_`
 * prefix, looked up in the vault by the `token` step), none (`kind: 'none'`), or a value
 * that is set but is not `Bearer <token>` (`kind: 'malformed'`: refused with
 * `UNAUTHENTICATED`, never run as "no key"). A new kind of credential is a new member here
 * and its case in {@link hashedKey}.
 */
export type Credential =
  | { readonly kind: 'key'; readonly apiKey: string }
  | {
      readonly kind: 'token';
      readonly token: string;
      /** The request's `Origin` header (null when none), checked against a token bound to an origin. */
      readonly origin: string | null;
    }
  | { readonly kind: 'none' }
  | { readonly kind: 'malformed' };

/** The token of an `Authorization: Bearer <token>` value (one token, no spaces), or null. */
export function bearerToken(header: string | undefined): string | null {
  const match = /^\s*Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1] ?? null;
}

/**
 * Reads a credential from a header or connection-parameter value: missing, `null` or
 * blank is no key; `Bearer svg_…` is an access token; `Bearer <token>` is a key; anything else (a bare key, a placeholder
 * like `Bearer <your key>`, a value that is not a string) is malformed. `origin` is the
 * request's `Origin` header, kept with a token (see `tokens create --origin`).
 */
export function readCredential(value: unknown, origin?: string | null): Credential {
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) return { kind: 'none' };
  const token = typeof value === 'string' ? bearerToken(value) : null;
  if (!token) return { kind: 'malformed' };
  return looksLikeToken(token) ? { kind: 'token', token, origin: origin ?? null } : { kind: 'key', apiKey: token };
}

/** A key with its hash (`keyId`: what cache entries, limits, logs and metrics name it by). */
export interface HashedKey {
  /** The bearer key, sent upstream and never logged. */
  readonly apiKey: string;
  /** HMAC of the key with `KEY_HASH_SECRET` (see `keyId`). */
  readonly keyId: string;
}

/** Anything that holds a key: a `key` credential, the server's credentials, a vault character. */
export interface KeyHolder {
  /** The bearer key. */
  readonly apiKey: string;
}

/**
 * THE memo of key hashes: each holder's hashed key, computed on first use. A holder is an
 * object that lives as long as its key does (a connection's credential, the public-site
 * policy's server credentials, a character of the opened vault), so a key is hashed once
 * per holder, however many operations, subscriptions and upstream requests use it, and no
 * raw key is ever a map key.
 */
const hashes = new WeakMap<KeyHolder, HashedKey>();

/**
 * A holder's key and its hash (`keyId`: the HMAC with `secret`), computed once per holder
 * object and kept with it.
 *
 * @param secret - `KEY_HASH_SECRET`
 */
export function hashKey(holder: KeyHolder, secret: string): HashedKey {
  let hashed = hashes.get(holder);
  if (hashed?.apiKey !== holder.apiKey) {
    hashed = { apiKey: holder.apiKey, keyId: keyId(holder.apiKey, secret) };
    hashes.set(holder, hashed);
  }
  return hashed;
}

/**
 * The key a credential runs with and its hash, or null when it has none (`none`,
 * `malformed`; a `token` runs with its vault key, see {@link hashKey}). The hash is
 * computed once per credential object and kept with it.
 *
 * @param secret - `KEY_HASH_SECRET`
 */
export function hashedKey(credential: Credential, secret: string): HashedKey | null {
  return credential.kind === 'key' ? hashKey(credential, secret) : null;
}
