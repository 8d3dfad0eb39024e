/**
 * Argument bounds of the upstream API (section 8 of the reference), in one place:
 * the GraphQL descriptions quote them and {@link checkOperationBounds} enforces them
 * before any upstream request is made.
 */
import { getArgumentValues, getNamedType, getVariableValues, isInputObjectType, TypeInfo, visit, visitWithTypeInfo } from 'graphql';
import type { DocumentNode, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import { characterLength } from '../domains/shared/character-length';
import { badInputError } from '../errors/gateway-error';
import type { GatewayError } from '../errors/gateway-error';
import { executedDocument } from './operation-fragments';

/** An inclusive integer range. */
export interface IntRange {
  readonly min: number;
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

type ValueRule = { kind: 'int'; range: IntRange } | { kind: 'length'; range: IntRange };

const TRANSACTIONS_ARGS = { limit: { kind: 'int', range: BOUNDS.transactionsLimit }, skip: { kind: 'int', range: BOUNDS.transactionsSkip } } as const;

/** Bounds of field arguments, by `Type.field` then argument name. */
const ARGUMENT_RULES: Readonly<Record<string, Readonly<Record<string, ValueRule>>>> = {
  'Factory.buyLog': { limit: { kind: 'int', range: BOUNDS.buyLogLimit }, skip: { kind: 'int', range: BOUNDS.buyLogSkip } },
  'Factory.option': { slot: { kind: 'int', range: BOUNDS.slot } },
  'BankAccount.transactions': TRANSACTIONS_ARGS,
  'FactoryBankAccount.transactions': TRANSACTIONS_ARGS,
  'BuildingBankAccount.transactions': TRANSACTIONS_ARGS,
  'Subscription.factoryOptionChanged': { slot: { kind: 'int', range: BOUNDS.slot } },
};

/** Bounds of input object fields, by input type then field name. */
const INPUT_RULES: Readonly<Record<string, Readonly<Record<string, ValueRule>>>> = {
  UpdateFactoryOptionInput: {
    slot: { kind: 'int', range: BOUNDS.slot },
    title: { kind: 'length', range: BOUNDS.titleLength },
    data: { kind: 'length', range: BOUNDS.dataLength },
  },
};

function checkValue(rule: ValueRule, value: unknown, where: string): GatewayError | null {
  if (value === null || value === undefined) return null; // an omitted optional argument (validation refuses null for required ones)
  if (rule.kind === 'int') {
    if (typeof value !== 'number' || value < rule.range.min || value > rule.range.max) {
      return badInputError(`${where} must be between ${rule.range.min} and ${rule.range.max}, got ${String(value)}.`, where);
    }
  } else if (typeof value === 'string' && characterLength(value) > rule.range.max) {
    return badInputError(`${where} must be at most ${rule.range.max} characters, got ${characterLength(value)}.`, where);
  }
  return null;
}

function checkInput(typeName: string, value: unknown, where: string): GatewayError | null {
  const rules = INPUT_RULES[typeName];
  if (!rules || value === null || typeof value !== 'object') return null;
  for (const [field, rule] of Object.entries(rules)) {
    const error = checkValue(rule, (value as Record<string, unknown>)[field], `${where}.${field}`);
    if (error) return error;
  }
  return null;
}

/**
 * Checks every bounded argument of the executed operation (inline values and
 * variables, also inside the fragments it uses) and returns the first violation as a `BAD_USER_INPUT` error, or
 * null. Runs after validation and before execution, so a violation costs no upstream
 * request. Variables that do not coerce are left to the executor's own error.
 */
export function checkOperationBounds(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>> | undefined,
): GatewayError | null {
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {});
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
        const argumentRules = ARGUMENT_RULES[`${parent.name}.${fieldDef.name}`];
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
          found = (rule ? checkValue(rule, value, where) : null) ?? (isInputObjectType(getNamedType(argDef.type)) ? checkInput(getNamedType(argDef.type).name, value, argDef.name) : null);
          if (found) return false;
        }
        return undefined;
      },
    }),
  );
  return found;
}
