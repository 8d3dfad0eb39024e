/**
 * The caller's key, read in one place for every transport: the `Authorization` header
 * over HTTP and graphql-sse, the `authorization` connection parameter (or the upgrade
 * request's header) over graphql-ws.
 */

import { looksLikeToken } from '../vault';

/**
 * What a request says about its key: a bearer key (`kind: 'key'`, the token in
 * `apiKey`), a gateway access token (`kind: 'token'`: a bearer value with the `svg_`
 * prefix, looked up in the vault by the `token` step), none (`kind: 'none'`), or a value
 * that is set but is not `Bearer <token>` (`kind: 'malformed'`: refused with
 * `UNAUTHENTICATED`, never run as "no key").
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
