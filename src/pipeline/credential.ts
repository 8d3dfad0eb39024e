/**
 * The caller's credential, read in one place for every transport: the `Authorization`
 * header over HTTP and graphql-sse, the `authorization` connection parameter (or the upgrade
 * request's header) over graphql-ws. Read once per request (once per connection over
 * graphql-ws and HTTP keep-alive), then handed as it is to the pipeline, whose steps resolve
 * it once to the key the operation runs with (`key-in-use.ts`): nothing reads it again or
 * turns it back into a header.
 */
import type { IncomingMessage } from 'node:http';
import { looksLikeToken } from '../vault';

/**
 * What a request says about its key: a bearer key (`kind: 'key'`, the token in
 * `apiKey`), a gateway access token (`kind: 'token'`: a bearer value with the `svg_`
 * prefix, looked up in the vault by the `token` step), none (`kind: 'none'`), or a value
 * that is set but is not `Bearer <token>` (`kind: 'malformed'`: refused with
 * `UNAUTHENTICATED`, never run as "no key"). A new kind of credential is a new member here
 * and its case in the `key` and `token` steps.
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
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === ''))
    return { kind: 'none' };
  const token = typeof value === 'string' ? bearerToken(value) : null;
  if (!token) return { kind: 'malformed' };
  return looksLikeToken(token) ? { kind: 'token', token, origin: origin ?? null } : { kind: 'key', apiKey: token };
}

/** Where a connection keeps the credential its last request read (see {@link requestCredential}). */
const LAST_CREDENTIAL = Symbol('lastCredential');

/** A connection with the credential of its last request, and the header values it was read from. */
type CredentialSocket = IncomingMessage['socket'] & {
  [LAST_CREDENTIAL]?: { authorization: string | undefined; origin: string | undefined; credential: Credential };
};

/**
 * The credential of an HTTP request (its `Authorization` and `Origin` headers, see
 * {@link readCredential}): the same object as the previous request's on the connection
 * when both headers are the same, and the same object however often one request asks
 * (graphql-sse reads it before the vault is awaited and again when it subscribes). Why:
 * the key is hashed, and an access token looked up, once per credential object, so a
 * client that keeps its connection open (browsers, bots, load balancers) pays the HMAC
 * once per connection, not once per request. The header value is kept on the connection
 * only, as long as Node keeps the connection; it never becomes a cache key.
 */
export function requestCredential(req: IncomingMessage): Credential {
  const authorization = single(req.headers.authorization);
  const origin = single(req.headers.origin);
  const socket = req.socket as CredentialSocket;
  const last = socket[LAST_CREDENTIAL];
  if (last !== undefined && last.authorization === authorization && last.origin === origin) return last.credential;
  const credential = readCredential(authorization, origin);
  socket[LAST_CREDENTIAL] = { authorization, origin, credential };
  return credential;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}
