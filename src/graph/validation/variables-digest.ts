import { hash } from 'node:crypto';

/** The digest of no variables (as of `{}`). */
const EMPTY_DIGEST = hash('sha256', '{}', 'base64url');

/** Digest of each variables object already digested, by the object: a request's checks and cache keys share one. */
const digests = new WeakMap<object, string | null>();

/**
 * sha256 (base64url) of the JSON of a request's variables, computed once per variables
 * object: the memos of the operation phase (grants, bounds, cost) and the response
 * cache's key all name the same object, so large variables are serialized and hashed
 * once per request, not once per check. Null when they cannot be serialized (a cycle, a
 * BigInt). Remembered by the object's identity (a `WeakMap`: it goes with the request), so
 * the object must not be changed once digested; the gateway replaces variables, never
 * edits them.
 *
 * @param variables - the request's variables (undefined: none, the digest of `{}`)
 */
export function variablesDigest(variables: Readonly<Record<string, unknown>> | undefined): string | null {
  if (variables === undefined) return EMPTY_DIGEST;
  const known = digests.get(variables);
  if (known !== undefined) return known;
  let digest: string | null;
  try {
    digest = hash('sha256', JSON.stringify(variables), 'base64url');
  } catch {
    digest = null;
  }
  digests.set(variables, digest);
  return digest;
}
