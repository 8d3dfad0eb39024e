/**
 * The upstream cost a field declares on itself ({@link UpstreamCost}) and its reader
 * ({@link upstreamCostOf}). A leaf: domains declare with it, `src/graph/cost.ts` sums the
 * costs of an operation, and it imports nothing of either.
 */
import { Extensions } from 'type-graphql';
import type { CostAssumptions } from '../config';

/** What one field costs: its own upstream requests, and the list size its children repeat over. */
export interface FieldCost {
  /** Its own upstream requests: a number, or `'optionSlots'` for one request per option slot (`OPTION_SLOTS`). */
  readonly requests: number | 'optionSlots';
  /** For a list field: the `COST_ASSUMED_*` size (number of items) its children's cost is multiplied by; absent for a single object (×1). */
  readonly list?: keyof CostAssumptions;
  /**
   * What an access token over several characters makes of it (absent: the same as with one
   * key): `each`, the whole field once per character (a root list merged across the
   * characters' keys: `factories`, `buildings`, the auction lists); `find`, its own requests
   * once per character and what is below once (an id looked up in every key's list:
   * `factory(id)`, `building(id)`); `owner`, one more request per character (a write that
   * first finds which key's list holds its company).
   */
  readonly perCharacter?: 'each' | 'find' | 'owner';
}

const UPSTREAM_COST = 'upstreamCost';

/**
 * Declares a field's upstream cost on the field itself (a TypeGraphQL `@Extensions`):
 * the requests resolving it makes, and, for a list of companies, buildings, bank
 * accounts or rooms, the assumed size its children repeat over. A field without it
 * costs nothing of its own (it is read from its parent's answer).
 */
export function UpstreamCost(cost: FieldCost): ReturnType<typeof Extensions> {
  return Extensions({ [UPSTREAM_COST]: cost });
}

/** The upstream cost declared on a field, if any. */
export function upstreamCostOf(field: { readonly extensions: Readonly<Record<string, unknown>> }): FieldCost | undefined {
  const cost = field.extensions[UPSTREAM_COST];
  return cost && typeof cost === 'object' ? (cost as FieldCost) : undefined;
}
