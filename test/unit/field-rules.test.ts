/**
 * Cost and bounds are declared on the fields themselves (`@UpstreamCost`,
 * `@ArgumentBounds`, `@ValueBounds`). These tests read them back from the built schema:
 * every declared argument rule must name an argument of its field (a renamed argument
 * fails here instead of silently going unchecked), every paging or slot argument must be
 * bounded, the interface field and its implementations agree, and descriptions quote the
 * declared bounds.
 */
import { getOperationAST, isInputObjectType, isInterfaceType, isObjectType, parse } from 'graphql';
import type { GraphQLField, GraphQLSchema } from 'graphql';
import { argumentBoundsOf, boundsText, valueBoundsOf } from '../../src/field-rules/bounds';
import { DEFAULT_CONFIG } from '../../src/config';
import { operationCost, upstreamCostEstimator } from '../../src/field-rules/cost';
import { upstreamCostOf } from '../../src/field-rules/cost';
import { buildGatewaySchema } from '../../src/graph/schema';

type AnyField = GraphQLField<unknown, unknown>;

/** Every field of every object and interface type, as `Type.field`. */
function allFields(schema: GraphQLSchema): [string, AnyField][] {
  const fields: [string, AnyField][] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || !(isObjectType(type) || isInterfaceType(type))) continue;
    for (const field of Object.values(type.getFields())) fields.push([`${type.name}.${field.name}`, field]);
  }
  return fields;
}

/** The problems of the declared argument rules: each names an argument the field does not have. */
function undeclaredArguments(schema: GraphQLSchema): string[] {
  const problems: string[] = [];
  for (const [name, field] of allFields(schema)) {
    for (const argument of Object.keys(argumentBoundsOf(field) ?? {})) {
      if (!field.args.some((arg) => arg.name === argument)) problems.push(`${name}(${argument})`);
    }
  }
  return problems;
}

describe('rules declared on the fields', () => {
  let schema: GraphQLSchema;

  beforeAll(async () => {
    schema = await buildGatewaySchema();
  });

  it('every declared argument rule names an argument of its field', () => {
    expect(undeclaredArguments(schema)).toEqual([]);
  });

  it('the check fails for a rule naming no argument', () => {
    const field = schema.getQueryType()?.getFields().factories;
    if (!field) throw new Error('no Query.factories');
    const original = field.extensions;
    try {
      field.extensions = { ...original, argumentBounds: { limit: { kind: 'int', range: { min: 1, max: 2 } } } };
      expect(undeclaredArguments(schema)).toEqual(['Query.factories(limit)']);
    } finally {
      field.extensions = original;
    }
  });

  it('every limit, skip and slot argument is bounded, and the description quotes the bound', () => {
    const bounded: string[] = [];
    for (const [name, field] of allFields(schema)) {
      for (const arg of field.args) {
        if (!['limit', 'skip', 'slot'].includes(arg.name)) continue;
        const rule = argumentBoundsOf(field)?.[arg.name];
        expect({ argument: `${name}(${arg.name})`, bounded: rule !== undefined }).toEqual({
          argument: `${name}(${arg.name})`,
          bounded: true,
        });
        if (!rule) continue;
        expect(arg.description).toContain(boundsText(arg.name, rule));
        expect(field.description).toContain(boundsText(arg.name, rule));
        bounded.push(`${name}(${arg.name})`);
      }
    }
    expect(bounded.sort()).toEqual(
      [
        'BankAccount.transactions(limit)',
        'BankAccount.transactions(skip)',
        'BuildingBankAccount.transactions(limit)',
        'BuildingBankAccount.transactions(skip)',
        'Factory.buyLog(limit)',
        'Factory.buyLog(skip)',
        'Factory.option(slot)',
        'FactoryBankAccount.transactions(limit)',
        'FactoryBankAccount.transactions(skip)',
        'Subscription.factoryOptionChanged(slot)',
      ].sort(),
    );
  });

  it('the input of updateFactoryOption bounds slot, title and data', () => {
    const input = schema.getType('UpdateFactoryOptionInput');
    if (!isInputObjectType(input)) throw new Error('no UpdateFactoryOptionInput');
    const rules = Object.fromEntries(
      Object.values(input.getFields()).map((field) => [field.name, valueBoundsOf(field)]),
    );
    expect(rules).toEqual({
      factoryId: undefined,
      apiSecret: undefined,
      slot: { kind: 'int', range: { min: 1, max: 10 } },
      title: { kind: 'length', range: { min: 0, max: 64 } },
      data: { kind: 'length', range: { min: 0, max: 2400 } },
    });
  });

  it('an interface field and its implementations declare the same cost and bounds', () => {
    const fieldOf = (type: string): AnyField | undefined => {
      const named = schema.getType(type);
      return isObjectType(named) || isInterfaceType(named) ? named.getFields().transactions : undefined;
    };
    const [base, ...implementations] = ['BankAccount', 'FactoryBankAccount', 'BuildingBankAccount'].map(fieldOf);
    if (!base) throw new Error('no BankAccount.transactions');
    for (const field of implementations) {
      expect(field && upstreamCostOf(field)).toEqual(upstreamCostOf(base));
      expect(field && argumentBoundsOf(field)).toEqual(argumentBoundsOf(base));
    }
  });

  it('every root field reaches the upstream, so each declares its cost (viewer answers from the request alone)', () => {
    const roots = [schema.getQueryType(), schema.getMutationType()]
      .flatMap((type) => Object.values(type?.getFields() ?? {}))
      .filter((field) => field.name !== 'viewer');
    expect(upstreamCostOf(schema.getQueryType()?.getFields().viewer as AnyField)).toBeUndefined();
    expect(roots.length).toBeGreaterThan(0);
    // The site-document mutations read every option slot first (their writes run on a session of their own, reported in upstreamWrites).
    const readsAllSlots = new Set(['setSiteDocument', 'deleteSiteDocument']);
    for (const field of roots) {
      expect({ field: field.name, cost: upstreamCostOf(field)?.requests }).toEqual({
        field: field.name,
        cost: readsAllSlots.has(field.name) ? 'optionSlots' : 1,
      });
    }
  });

  it('Factory.options costs one request per configured option slot (OPTION_SLOTS)', () => {
    const document = parse('{ factory(id: "x") { options { title } } }');
    const operation = getOperationAST(document);
    if (!operation) throw new Error('no operation');
    const cost = (slots: number): number =>
      operationCost(schema, document, operation, {}, [upstreamCostEstimator(DEFAULT_CONFIG.costAssumptions, slots)]);
    expect(cost(10)).toBe(11);
    expect(cost(20)).toBe(21);
  });
});
