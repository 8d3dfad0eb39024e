/**
 * Enforces the argument bounds of the upstream API (section 8 of the reference). Each
 * bounded field declares its rules on itself with `ArgumentBounds` (input object fields
 * with `ValueBounds`, both in `src/field-rules/bounds.ts`), its description quotes the
 * same rules, and {@link checkOperationBounds} enforces them from the schema before any
 * upstream request is made.
 */
import { getArgumentValues, getNamedType, getVariableValues, isInputObjectType, TypeInfo, visit, visitWithTypeInfo } from 'graphql';
import type { DocumentNode, GraphQLInputObjectType, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import { characterLength } from '../domains/shared/character-length';
import { badInputError } from '../errors/gateway-error';
import type { GatewayError } from '../errors/gateway-error';
import { argumentBoundsOf, valueBoundsOf } from '../field-rules/bounds';
import type { ValueRule } from '../field-rules/bounds';
import { executedDocument } from './operation-fragments';

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

function checkInput(type: GraphQLInputObjectType, value: unknown, where: string): GatewayError | null {
  if (value === null || typeof value !== 'object') return null;
  for (const field of Object.values(type.getFields())) {
    const rule = valueBoundsOf(field);
    const error = rule ? checkValue(rule, (value as Record<string, unknown>)[field.name], `${where}.${field.name}`) : null;
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
          found = (rule ? checkValue(rule, value, where) : null) ?? (isInputObjectType(named) ? checkInput(named, value, argDef.name) : null);
          if (found) return false;
        }
        return undefined;
      },
    }),
  );
  return found;
}
