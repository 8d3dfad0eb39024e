/**
 * How a subscription of an access token over several characters opens its feeds
 * ({@link PerCharacter}) and its reader ({@link perCharacterOf}). A leaf: domains declare
 * with it, `src/graph/execution/per-character.ts` opens the subscription accordingly, and it imports
 * nothing of either. (Queries and writes declare the same on their `@UpstreamCost`, whose
 * `perCharacter` the cost estimate reads too.)
 */
import { Extensions } from 'type-graphql';

/**
 * `owner`: polled with the key of the character owning what the argument `arg` names (a
 * company, a building, or a bank account of either); `each`: polled with every key, the
 * events merged, each event naming its character in its `character` property.
 */
export type SubscriptionFanOut =
  { readonly owner: 'factories' | 'buildings' | 'bankAccounts'; readonly arg: string } | { readonly each: 'character' };

const PER_CHARACTER = 'perCharacter';

/**
 * Declares on a `@Subscription` how a token over several characters opens it (a
 * TypeGraphQL `@Extensions`); without it, a subscription opens once, with the operation's
 * own key.
 */
export function PerCharacter(fanOut: SubscriptionFanOut): ReturnType<typeof Extensions> {
  return Extensions({ [PER_CHARACTER]: fanOut });
}

/** The fan-out declared on a subscription field, if any. */
export function perCharacterOf(field: {
  readonly extensions: Readonly<Record<string, unknown>>;
}): SubscriptionFanOut | undefined {
  const fanOut = field.extensions[PER_CHARACTER];
  return fanOut && typeof fanOut === 'object' ? (fanOut as SubscriptionFanOut) : undefined;
}

/** The input checks of a write, run with the operation's own context: they throw a `GatewayError` for bad input. */
export type InputCheck = (args: Record<string, unknown>, ctx: unknown) => void;

const CHECKED_FIRST = 'checkedBeforeOwner';

/**
 * Declares on a write (`@UpstreamCost({ perCharacter: 'owner' })`) the input checks that must
 * refuse bad input before any upstream request. With one key the resolver runs them first
 * itself; a token over several characters first looks up which key owns the company (each
 * key's company list, maybe an upstream request), so `src/graph/execution/per-character.ts` runs these
 * before that lookup. The resolver still runs them (cheap, and the same with one key).
 */
export function CheckedBeforeOwner(check: InputCheck): ReturnType<typeof Extensions> {
  return Extensions({ [CHECKED_FIRST]: check });
}

/** The input checks declared on a write, if any. */
export function inputCheckOf(field: {
  readonly extensions: Readonly<Record<string, unknown>>;
}): InputCheck | undefined {
  const check = field.extensions[CHECKED_FIRST];
  return typeof check === 'function' ? (check as InputCheck) : undefined;
}
