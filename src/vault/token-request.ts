/**
 * What `tokens create` accepts: the bounds from the settings ({@link TokenBounds}) and the
 * check of a request against them and the vault's keys ({@link checkTokenRequest}).
 */
import type { GraphQLSchema } from 'graphql';
import { DEFAULT_CONFIG } from '../config/gateway-config';
import { GRANT_FORMS, parseGrant } from './grants';
import { grantSchemaProblem, publishedSchema } from './grant-schema';
import type { TokenRequest } from './summaries';
import { VaultUsageError } from './usage-error';
import type { KeyRecord } from './vault-document';

/** A day, ms. */
const DAY_MS = 86_400_000;

const UNITS_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/**
 * A token lifetime as the CLI's `--expires-in` and the administration graph's `expiresIn` take
 * it: a number (up to six digits) and s, m, h, d or w (`90m`, `12h`, `30d`), in ms; NaN when
 * the text is not one.
 */
export function durationMs(text: string): number {
  const match = /^(\d{1,6})([smhdw])$/.exec(text.trim());
  return match?.[1] && match[2] ? Number(match[1]) * (UNITS_MS[match[2]] ?? Number.NaN) : Number.NaN;
}

/** A token's browser origin as given (`scheme://host[:port]`, http or https, a trailing `/` allowed), or null when it is not one. */
export function browserOrigin(text: string): string | null {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === text.replace(/\/$/, '')
      ? url.origin
      : null;
  } catch {
    return null;
  }
}

/** The bounds `tokens create` checks a request against (from the settings; see `Vault`). */
export interface TokenBounds {
  /** The longest lifetime, days (`TOKEN_MAX_LIFETIME_DAYS`, default 366). */
  readonly maxLifetimeDays: number;
  /** The largest budget share: the key's requests per window (`UPSTREAM_RATE_LIMIT`'s N), or null when that limit is off (no bound). */
  readonly maxBudgetShare: number | null;
  /** The schema `read:<Type>.<field>` grants must name a field of, asked for only when such a grant is given (default: schema.graphql at the package root; null: their form only). */
  readonly schema: () => GraphQLSchema | null;
}

/** The bounds of a configuration: `TOKEN_MAX_LIFETIME_DAYS`, `UPSTREAM_RATE_LIMIT`'s N, the published schema. */
export function tokenBounds(
  config: {
    readonly tokenMaxLifetimeDays: number;
    readonly upstreamRateLimit: { readonly requests: number } | null;
  } = DEFAULT_CONFIG,
): TokenBounds {
  return {
    maxLifetimeDays: config.tokenMaxLifetimeDays,
    maxBudgetShare: config.upstreamRateLimit?.requests ?? null,
    schema: publishedSchema,
  };
}

/**
 * Checks a token request against the vault's keys and the bounds.
 *
 * @returns the ids of the keys its characters name, in the request's order
 * @throws VaultUsageError for an unknown character, a bad grant, expiry or share
 */
export function checkTokenRequest(request: TokenRequest, keys: readonly KeyRecord[], bounds: TokenBounds): string[] {
  // An admin-only token (the administration graph) needs no character.
  if (
    request.characters.length === 0 &&
    !(request.grants.length > 0 && request.grants.every((grant) => grant === 'admin'))
  )
    throw new VaultUsageError('A token needs at least one --character <name> (see keys list).');
  if (request.grants.length === 0) throw new VaultUsageError('A token needs at least one --grant.');
  const characters = request.characters.map((name) => {
    const record = keys.find((each) => each.name === name);
    if (!record) throw new VaultUsageError(`The vault has no key named "${name}" (see keys list).`);
    return record.id;
  });
  for (const grant of request.grants) {
    const parsed = parseGrant(grant);
    if (!parsed)
      throw new VaultUsageError(`The grant "${grant}" is not one of: ${GRANT_FORMS.join(', ')} (a slot is 1 to 10).`);
    const schema = parsed.kind === 'read-field' ? bounds.schema() : null;
    const problem = schema ? grantSchemaProblem(parsed, grant, schema) : null;
    if (problem !== null) throw new VaultUsageError(problem);
  }
  if (!Number.isFinite(request.expiresInMs) || request.expiresInMs <= 0)
    throw new VaultUsageError('--expires-in must be a positive duration, e.g. 30d, 12h, 90m.');
  if (request.expiresInMs > bounds.maxLifetimeDays * DAY_MS) {
    throw new VaultUsageError(
      `--expires-in may be at most ${bounds.maxLifetimeDays} days (TOKEN_MAX_LIFETIME_DAYS): create a new token when this one ends.`,
    );
  }
  const share = request.budgetShare ?? null;
  if (share !== null && (!Number.isSafeInteger(share) || share < 1))
    throw new VaultUsageError('--budget-share must be a whole number of requests per window, 1 or more.');
  if (share !== null && bounds.maxBudgetShare !== null && share > bounds.maxBudgetShare) {
    throw new VaultUsageError(
      `--budget-share may be at most ${bounds.maxBudgetShare}: the key's own limit per window (UPSTREAM_RATE_LIMIT).`,
    );
  }
  const label = request.label ?? null;
  if (label !== null && !/^[\x20-\x7e]{1,64}$/.test(label))
    throw new VaultUsageError('A token label is 1 to 64 printable ASCII characters.');
  return characters;
}
