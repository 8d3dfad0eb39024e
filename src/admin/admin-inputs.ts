/**
 * The administration graph's checks of its inputs, before the vault sees them: a key's name,
 * a token's lifetime, origin, budget share and company grants, a page size; and the vault's
 * refusals as client errors. No upstream request; no message names a key or secret.
 */
import { GatewayError } from '../errors/gateway-error';
import { VaultKeyError, VaultUsageError, browserOrigin, durationMs } from '../vault';
import type { AddVaultKeyInput, CreateAccessTokenInput } from './admin-types';

/** Most entries `deliveries` and `auditLog` return. */
export const MAX_FIRST = 200;

/**
 * A page size: `first`, 50 when absent.
 *
 * @throws GatewayError `BAD_USER_INPUT` unless it is a whole number 1..{@link MAX_FIRST}
 */
export function bounded(first: number | null | undefined): number {
  const value = first ?? 50;
  if (!Number.isInteger(value) || value < 1 || value > MAX_FIRST)
    throw new GatewayError('BAD_USER_INPUT', `first must be 1..${MAX_FIRST}.`, { argument: 'first' });
  return value;
}

/** The vault's refusals as client errors (their messages name no key or secret). */
export async function vaultCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof VaultUsageError) throw new GatewayError('BAD_USER_INPUT', error.message);
    if (error instanceof VaultKeyError)
      throw new GatewayError('INTERNAL_SERVER_ERROR', 'The vault does not open with VAULT_MASTER_KEY.');
    throw error;
  }
}

/**
 * `addVaultKey`'s key and secret, trimmed (an empty secret is none).
 *
 * @throws GatewayError `BAD_USER_INPUT` for a bad name or key
 */
export function checkedKeyInput(input: AddVaultKeyInput): { readonly apiKey: string; readonly secret: string | null } {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(input.name)) {
    throw new GatewayError(
      'BAD_USER_INPUT',
      `The key name "${input.name}" is not valid: 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit.`,
      { argument: 'input.name' },
    );
  }
  const apiKey = input.key.trim();
  if (apiKey === '' || /\s/.test(apiKey))
    throw new GatewayError('BAD_USER_INPUT', 'The API key is empty or has spaces.', { argument: 'input.key' });
  const secret = input.secret?.trim() ? input.secret.trim() : null;
  return { apiKey, secret };
}

/**
 * `createAccessToken`'s lifetime in ms and its origin (null for none).
 *
 * @throws GatewayError `BAD_USER_INPUT` for a bad lifetime, origin or budget share
 */
export function checkedTokenInput(input: CreateAccessTokenInput): {
  readonly expiresInMs: number;
  readonly origin: string | null;
} {
  const expiresInMs = durationMs(input.expiresIn);
  if (Number.isNaN(expiresInMs))
    throw new GatewayError('BAD_USER_INPUT', 'expiresIn must be a number and s, m, h, d or w, e.g. 30d.', {
      argument: 'input.expiresIn',
    });
  let origin: string | null = null;
  if (input.origin !== undefined && input.origin !== null) {
    origin = browserOrigin(input.origin);
    if (!origin)
      throw new GatewayError(
        'BAD_USER_INPUT',
        `origin "${input.origin}" is not a browser origin: scheme://host[:port], e.g. https://shop.example.`,
        { argument: 'input.origin' },
      );
  }
  if (input.budgetShare !== undefined && input.budgetShare !== null && input.budgetShare < 1) {
    throw new GatewayError('BAD_USER_INPUT', 'budgetShare must be a whole number of requests per window, 1 or more.', {
      argument: 'input.budgetShare',
    });
  }
  return { expiresInMs, origin };
}

/**
 * Checks that each `factory:<id>` grant of a new token names a company one of its characters
 * owns, as the key check of `addVaultKey` found it (no upstream request).
 *
 * @param factoriesOf - a character's companies, or null when its key was never checked
 * @throws GatewayError `BAD_USER_INPUT` for a company not owned, or owners never checked
 */
export async function checkFactoryGrants(
  input: Pick<CreateAccessTokenInput, 'characters' | 'grants'>,
  factoriesOf: (name: string) => Promise<readonly string[] | null>,
): Promise<void> {
  for (const grant of input.grants) {
    const factory = /^factory:(.+)$/.exec(grant)?.[1];
    if (factory === undefined) continue;
    const owners = await Promise.all(
      input.characters.map(async (name) => ({ name, factories: await factoriesOf(name) })),
    );
    if (owners.some((owner) => owner.factories?.includes(factory))) continue;
    const unknown = owners.filter((owner) => owner.factories === null).map((owner) => owner.name);
    throw new GatewayError(
      'BAD_USER_INPUT',
      unknown.length > 0
        ? `The grant "${grant}": the gateway does not know which companies ${unknown.join(', ')} owns (their keys were added with the command line). Add the key again with addVaultKey (one upstream check), or create this token with statev-gateway tokens create.`
        : `The grant "${grant}" names a company that ${input.characters.join(', ')} does not own.`,
      { argument: 'input.grants' },
    );
  }
}
