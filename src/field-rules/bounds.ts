/**
 * The bounds a field declares on itself: the upstream's ranges by name ({@link BOUNDS},
 * section 8 of the reference), the rules built from them ({@link intRule},
 * {@link lengthRule}), the decorators that attach them to a field
 * ({@link ArgumentBounds}, {@link ValueBounds}) and the readers that find them again in
 * the schema. A leaf: domains declare with it, `src/graph/bounds.ts` enforces what it
 * reads back, and it imports nothing of either.
 */
import type { GraphQLInputField } from 'graphql';
import { Extensions } from 'type-graphql';

/** An inclusive integer range. */
export interface IntRange {
  /** The smallest allowed value (inclusive). */
  readonly min: number;
  /** The largest allowed value (inclusive). */
  readonly max: number;
}

/** The upstream's bounds, by name. */
export const BOUNDS = Object.freeze({
  /** Transactions page size (company and building): 1 to 25. */
  transactionsLimit: { min: 1, max: 25 },
  /** Transactions offset: 0 to 200. */
  transactionsSkip: { min: 0, max: 200 },
  /** Buy log page size: 1 to 50. */
  buyLogLimit: { min: 1, max: 50 },
  /** Buy log offset: 0 to 1000. */
  buyLogSkip: { min: 0, max: 1000 },
  /** Option slot number: 1 to 10. */
  slot: { min: 1, max: 10 },
  /** Option title length in characters (counted as class-validator counts them, see `characterLength`): 0 to 64. */
  titleLength: { min: 0, max: 64 },
  /** Option data length in characters (counted as class-validator counts them): 0 to 2400. */
  dataLength: { min: 0, max: 2400 },
} satisfies Record<string, IntRange>);

/** `"limit 1..25"`: the form descriptions use. */
export function rangeText(name: string, range: IntRange): string {
  return `${name} ${range.min}..${range.max}`;
}

/** A bound on one value: an integer range, or a string's length range (counted in code points, as `characterLength` of `src/domains/shared/character-length.ts` counts them). */
export type ValueRule = { readonly kind: 'int'; readonly range: IntRange } | { readonly kind: 'length'; readonly range: IntRange };

/** Bounds of a field's arguments, by argument name. */
export type ArgumentRules = Readonly<Record<string, ValueRule>>;

/** An integer argument or input field within `range`. */
export function intRule(range: IntRange): ValueRule {
  return { kind: 'int', range };
}

/** A string argument or input field whose length is within `range`. */
export function lengthRule(range: IntRange): ValueRule {
  return { kind: 'length', range };
}

/** `"limit 1..25"` or `"title at most 64 characters"`: how descriptions quote a rule. */
export function boundsText(name: string, rule: ValueRule): string {
  return rule.kind === 'int' ? rangeText(name, rule.range) : `${name} at most ${rule.range.max} characters`;
}

/** `"Bounds: limit 1..25, skip 0..200."`: the sentence a bounded field's description ends with. */
export function describeBounds(rules: ArgumentRules): string {
  return `Bounds: ${Object.entries(rules)
    .map(([name, rule]) => boundsText(name, rule))
    .join(', ')}.`;
}

const ARGUMENT_BOUNDS = 'argumentBounds';
const VALUE_BOUNDS = 'valueBounds';

/**
 * Declares the bounds of a field's arguments on the field itself (a TypeGraphQL
 * `@Extensions`, so they travel with the field into the schema): the request pipeline's `bounds` step
 * enforces them before execution. Quote them in the field's description with
 * {@link describeBounds} on the same object.
 */
export function ArgumentBounds(rules: ArgumentRules): ReturnType<typeof Extensions> {
  return Extensions({ [ARGUMENT_BOUNDS]: rules });
}

/** Declares the bound of one input object field on the field itself (see {@link ArgumentBounds}). */
export function ValueBounds(rule: ValueRule): ReturnType<typeof Extensions> {
  return Extensions({ [VALUE_BOUNDS]: rule });
}

/** The argument bounds declared on a field, if any. */
export function argumentBoundsOf(field: { readonly extensions: Readonly<Record<string, unknown>> }): ArgumentRules | undefined {
  const rules = field.extensions[ARGUMENT_BOUNDS];
  return rules && typeof rules === 'object' ? (rules as ArgumentRules) : undefined;
}

/** The bound declared on an input object field, if any. */
export function valueBoundsOf(field: GraphQLInputField): ValueRule | undefined {
  const rule = (field.extensions as Readonly<Record<string, unknown>>)[VALUE_BOUNDS];
  return rule && typeof rule === 'object' ? (rule as ValueRule) : undefined;
}
