/**
 * What an access token may do: its grants, as written on the command line. Parsed here
 * (a bad grant is refused when the token is created); enforced by the pipeline.
 */

/** One grant, parsed. */
export type Grant =
  | { readonly kind: 'read' }
  | { readonly kind: 'read-field'; readonly type: string; readonly field: string }
  | { readonly kind: 'factory'; readonly factoryId: string }
  | { readonly kind: 'write-site-document'; readonly name: string }
  | { readonly kind: 'write-option'; readonly slot: number }
  | { readonly kind: 'write-payments' }
  | { readonly kind: 'subscribe' }
  | { readonly kind: 'admin' };

/** The grants the command line accepts, for messages and `--help`. */
export const GRANT_FORMS = [
  'read',
  'read:<Type>.<field>',
  'factory:<factoryId>',
  'write:siteDocument:<name>',
  'write:option:<slot>',
  'write:payments',
  'subscribe',
  'admin',
] as const;

/** A GraphQL name that is not an introspection name (`__Schema`, `__typename`). */
const NAME = /^(?!__)[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Parses one grant.
 *
 * @returns the grant, or null when `text` is none of {@link GRANT_FORMS}
 */
export function parseGrant(text: string): Grant | null {
  if (text === 'read') return { kind: 'read' };
  if (text === 'subscribe') return { kind: 'subscribe' };
  // The administration graph (/admin/graphql, docs/console.md); nothing of the public graph.
  if (text === 'admin') return { kind: 'admin' };
  if (text === 'write:payments') return { kind: 'write-payments' };
  const field = /^read:([^.]+)\.(.+)$/.exec(text);
  if (field?.[1] && field[2] && NAME.test(field[1]) && NAME.test(field[2]))
    return { kind: 'read-field', type: field[1], field: field[2] };
  const factory = /^factory:([0-9A-Za-z_-]{1,64})$/.exec(text);
  if (factory?.[1]) return { kind: 'factory', factoryId: factory[1] };
  // A site document's name may hold '.', as the site documents' own names do (a-z, 0-9, '-', '_', '.').
  const site = /^write:siteDocument:([0-9A-Za-z._-]{1,64})$/.exec(text);
  if (site?.[1]) return { kind: 'write-site-document', name: site[1] };
  // Slots 1-10: the upstream's option slots.
  const option = /^write:option:(10|[1-9])$/.exec(text);
  if (option?.[1]) return { kind: 'write-option', slot: Number(option[1]) };
  return null;
}
