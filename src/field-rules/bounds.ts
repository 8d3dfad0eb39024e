/**
 * The bounds a field declares on itself: the upstream's ranges by name ({@link BOUNDS},
 * section 8 of the reference), the rules built from them ({@link intRule},
 * {@link lengthRule}), the decorators that attach them to a field
 * ({@link ArgumentBounds}, {@link ValueBounds}) and the readers that find them again in
 * the schema; and the check ({@link checkOperationBounds}) that enforces them from the schema
 * before any upstream request. One module, below the domains (which declare with it) and the
 * pipeline (which checks with it).
 */
import {
  getArgumentValues,
  getNamedType,
  getVariableValues,
  isInputObjectType,
  TypeInfo,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import type {
  DocumentNode,
  GraphQLInputField,
  GraphQLInputObjectType,
  GraphQLSchema,
  OperationDefinitionNode,
} from 'graphql';
import { Extensions } from 'type-graphql';
import { badInputError } from '../errors/gateway-error';
import type { GatewayError } from '../errors/gateway-error';
import { characterLength } from './character-length';
import { executedDocument } from './operation-fragments';

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

/** A bound on one value: an integer range, or a string's length range (counted in code points, as `characterLength` of `src/field-rules/character-length.ts` counts them). */
export type ValueRule =
  { readonly kind: 'int'; readonly range: IntRange } | { readonly kind: 'length'; readonly range: IntRange };

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
export function argumentBoundsOf(field: {
  readonly extensions: Readonly<Record<string, unknown>>;
}): ArgumentRules | undefined {
  const rules = field.extensions[ARGUMENT_BOUNDS];
  return rules && typeof rules === 'object' ? (rules as ArgumentRules) : undefined;
}

/** The bound declared on an input object field, if any. */
export function valueBoundsOf(field: GraphQLInputField): ValueRule | undefined {
  const rule = (field.extensions as Readonly<Record<string, unknown>>)[VALUE_BOUNDS];
  return rule && typeof rule === 'object' ? (rule as ValueRule) : undefined;
}

// The check.
// Enforces the argument bounds of the upstream API (section 8 of the reference). Each
// bounded field declares its rules on itself with `ArgumentBounds` (input object fields
// with `ValueBounds`, both in `src/field-rules/bounds.ts`), its description quotes the
// same rules, and {@link checkOperationBounds} enforces them from the schema before any
// upstream request is made.
function checkValue(rule: ValueRule, value: unknown, where: string): GatewayError | null {
  if (value === null || value === undefined) return null; // an omitted optional argument (validation refuses null for required ones)
  if (rule.kind === 'int') {
    if (typeof value !== 'number' || value < rule.range.min || value > rule.range.max) {
      return badInputError(
        `${where} must be between ${rule.range.min} and ${rule.range.max}, got ${String(value)}.`,
        where,
      );
    }
  } else if (typeof value === 'string' && characterLength(value) > rule.range.max) {
    return badInputError(
      `${where} must be at most ${rule.range.max} characters, got ${characterLength(value)}.`,
      where,
    );
  }
  return null;
}

function checkInput(type: GraphQLInputObjectType, value: unknown, where: string): GatewayError | null {
  if (value === null || typeof value !== 'object') return null;
  for (const field of Object.values(type.getFields())) {
    const rule = valueBoundsOf(field);
    const error = rule
      ? checkValue(rule, (value as Record<string, unknown>)[field.name], `${where}.${field.name}`)
      : null;
    if (error) return error;
  }
  return null;
}

/**
 * Checks every bounded argument of the executed operation (inline values and
 * variables, also inside the fragments it uses) and returns the first violation as a `BAD_USER_INPUT` error, or
 * null. Runs after validation and before execution, so a violation costs no upstream
 * request. Variables that do not coerce are left to the pipeline's `variables` step.
 *
 * @param coercedVariables - `variables` coerced to their declared types, when already done (else coerced here)
 */
export function checkOperationBounds(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>> | undefined,
  coercedVariables?: Record<string, unknown>,
): GatewayError | null {
  const coerced: ReturnType<typeof getVariableValues> = coercedVariables
    ? { coerced: coercedVariables }
    : getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {});
  if (coerced.errors) return null;
  const typeInfo = new TypeInfo(schema);
  let found: GatewayError | null = null;
  visit(
    executedDocument(document, operation),
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        if (found) return false;
        const parent = typeInfo.getParentType();
        const fieldDef = typeInfo.getFieldDef();
        if (!parent || !fieldDef || fieldDef.args.length === 0) return undefined;
        const argumentRules = argumentBoundsOf(fieldDef);
        let args: Record<string, unknown>;
        try {
          args = getArgumentValues(fieldDef, node, coerced.coerced);
        } catch {
          return undefined; // a bad argument value is reported by the executor
        }
        for (const argDef of fieldDef.args) {
          const where = `${parent.name}.${fieldDef.name}(${argDef.name})`;
          const rule = argumentRules?.[argDef.name];
          const value = args[argDef.name];
          const named = getNamedType(argDef.type);
          found =
            (rule ? checkValue(rule, value, where) : null) ??
            (isInputObjectType(named) ? checkInput(named, value, argDef.name) : null);
          if (found) return false;
        }
        return undefined;
      },
    }),
  );
  return found;
}
