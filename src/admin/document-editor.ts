/**
 * `siteDocumentEditor`: the console edits site documents on the public graph, with a
 * short-lived access token minted here, because reading or writing a document reads and
 * writes the company's option slots upstream and the administration graph's answers spend
 * no upstream budget. Minting is a vault write only (no upstream request): the company is
 * checked against what `addVaultKey`'s key check found.
 */
import { GatewayError } from '../errors/gateway-error';
import { NAME_PATTERN } from '../domains/site-documents/site-document.codec';
import type { Vault } from '../vault';
import { checkFactoryGrants, vaultCall } from './admin-inputs';
import { EditorToken } from './editor-types';
import type { SiteDocumentEditorInput } from './editor-types';

/** The label of the console's editor tokens (`accessTokens`, `tokens list`). */
export const EDITOR_LABEL = 'console: site documents';

/** How long an editor token works: one editing session; the page mints another when it ends. */
export const EDITOR_LIFETIME_MS = 15 * 60_000;

/** What minting needs of the administration service. */
export interface EditorParts {
  /** The vault (its token machinery, as `createAccessToken` uses it). */
  readonly vault: Vault;
  /** A character's companies as its key check found them, or null when never checked. */
  readonly factoriesOf: (name: string) => Promise<readonly string[] | null>;
  /** `UPSTREAM_RATE_LIMIT` (null when off): the token's budget share is its N. */
  readonly rateLimit: { readonly requests: number } | null;
  /** Makes this replica's public graph take the new token now (other replicas: within 1 s). */
  readonly tokensChanged?: () => Promise<void>;
}

/**
 * Mints an editor token: `factory:<id>` and, for a named document, `write:siteDocument:<name>`,
 * bound to the gateway's own origin, for {@link EDITOR_LIFETIME_MS}, labelled {@link EDITOR_LABEL}.
 * Expired editor tokens leave the vault first.
 *
 * @param origin - the gateway's own origin (the console's)
 * @throws GatewayError `BAD_USER_INPUT` for an unknown character, a company it does not own (or whose companies are unknown) or a bad name
 */
export async function mintEditorToken(
  parts: EditorParts,
  input: SiteDocumentEditorInput,
  origin: string,
): Promise<EditorToken> {
  const name = input.name ?? null;
  if (name !== null && !NAME_PATTERN.test(name))
    throw new GatewayError(
      'BAD_USER_INPUT',
      `The site document name "${name.slice(0, 64)}" is not valid: 1 to 32 characters: a-z, 0-9, '-', '_' and '.'.`,
      { argument: 'input.name' },
    );
  const grants = [`factory:${input.factoryId}`, ...(name === null ? [] : [`write:siteDocument:${name}`])];
  if (!(await vaultCall(() => parts.vault.listKeys())).some((key) => key.name === input.character))
    throw new GatewayError('BAD_USER_INPUT', `The vault has no character "${input.character.slice(0, 64)}".`, {
      argument: 'input.character',
    });
  await checkFactoryGrants({ characters: [input.character], grants }, parts.factoriesOf);
  await vaultCall(() => parts.vault.removeExpiredTokens(EDITOR_LABEL));
  const budgetShare = parts.rateLimit?.requests ?? null;
  const created = await vaultCall(() =>
    parts.vault.createToken({
      characters: [input.character],
      grants,
      expiresInMs: EDITOR_LIFETIME_MS,
      origin,
      budgetShare,
      label: EDITOR_LABEL,
    }),
  );
  await parts.tokensChanged?.();
  const token = (await vaultCall(() => parts.vault.listTokens())).find((each) => each.id === created.id);
  if (!token) throw new Error('The token just created is not listed.');
  return Object.assign(new EditorToken(), {
    token: created.token,
    id: created.id,
    grants,
    expiresAt: token.expiresAt,
    origin,
    budgetShare,
  });
}
