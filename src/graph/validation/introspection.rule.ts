import {
  getIntrospectionQuery,
  getNamedType,
  GraphQLError,
  getNullableType,
  isAbstractType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isObjectType,
  Kind,
  parse,
} from 'graphql';
import type {
  ASTVisitor,
  DefinitionNode,
  FragmentDefinitionNode,
  GraphQLNamedType,
  GraphQLSchema,
  OperationDefinitionNode,
  SelectionSetNode,
  ValidationContext,
  ValidationRule,
} from 'graphql';
import { GatewayError } from '../../errors/gateway-error';
import { fragmentMeasure, STOP_VALIDATION } from '../../field-rules/operation-fragments';

/**
 * How many full introspection queries' worth one operation may ask for: 1.5, so the
 * introspection query of every tool (GraphiQL, GraphQL Code Generator, Apollo's tools,
 * some with deeper `ofType` chains than graphql-js's own) passes, and no document can
 * ask for the schema several times over (aliases of `__schema` or of `types`, or nested
 * `fields { type { fields … } }`): a document may introspect once.
 */
export const INTROSPECTION_ALLOWANCE = 1.5;

/** List fields of the introspection types, by `Type.field`, and how many items each has on average in this schema. */
type ListSizes = ReadonlyMap<string, number>;

/** What the measure needs of one field of an introspection type: the type below it and how many items it counts for. */
interface MeasuredField {
  /** The field's named type (what its selection is measured on). */
  readonly type: GraphQLNamedType;
  /** Items one occurrence counts for: the list's average size in this schema, 1 for a field that is no list. */
  readonly items: number;
}

/** What the measure needs of a schema, computed once per schema. */
interface SchemaFacts {
  readonly sizes: ListSizes;
  /** The cost of graphql-js's full introspection query on this schema. */
  readonly fullQuery: number;
  /** The fields of each introspection type (`__Schema`, `__Type`…), by name: one lookup per field of a document. */
  readonly fields: ReadonlyMap<GraphQLNamedType, ReadonlyMap<string, MeasuredField>>;
  readonly schemaType: GraphQLNamedType | undefined;
  readonly typeType: GraphQLNamedType | undefined;
}

const factsOf = new WeakMap<GraphQLSchema, SchemaFacts>();

/**
 * How many items each introspection list has in `schema`: all types, all directives,
 * and, per type, field or directive, its fields, interfaces, possible types, enum
 * values, input fields and arguments on average (a list of every type's fields then
 * counts as many items as the schema has fields, as the real answer does).
 */
function listSizes(schema: GraphQLSchema): ListSizes {
  const types = Object.values(schema.getTypeMap());
  const directives = schema.getDirectives();
  const mean = (counts: number[]): number =>
    counts.length === 0 ? 0 : counts.reduce((sum, count) => sum + count, 0) / counts.length;
  const fields = types.flatMap((type) =>
    isObjectType(type) || isInterfaceType(type) ? Object.values(type.getFields()) : [],
  );
  return new Map([
    ['__Schema.types', types.length],
    ['__Schema.directives', directives.length],
    ['__Type.fields', fields.length / types.length],
    [
      '__Type.interfaces',
      mean(types.map((type) => (isObjectType(type) || isInterfaceType(type) ? type.getInterfaces().length : 0))),
    ],
    [
      '__Type.possibleTypes',
      mean(types.map((type) => (isAbstractType(type) ? schema.getPossibleTypes(type).length : 0))),
    ],
    ['__Type.enumValues', mean(types.map((type) => (isEnumType(type) ? type.getValues().length : 0)))],
    [
      '__Type.inputFields',
      mean(types.map((type) => (isInputObjectType(type) ? Object.keys(type.getFields()).length : 0))),
    ],
    ['__Field.args', mean(fields.map((field) => field.args.length))],
    ['__Directive.args', mean(directives.map((directive) => directive.args.length))],
  ]);
}

/** The fields of each introspection object type of `schema`, with what the measure needs of each (see {@link MeasuredField}). */
function measuredFields(
  schema: GraphQLSchema,
  sizes: ListSizes,
): Map<GraphQLNamedType, ReadonlyMap<string, MeasuredField>> {
  const tables = new Map<GraphQLNamedType, ReadonlyMap<string, MeasuredField>>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!type.name.startsWith('__') || !(isObjectType(type) || isInterfaceType(type))) continue;
    const table = new Map<string, MeasuredField>();
    for (const field of Object.values(type.getFields())) {
      const items = isListType(getNullableType(field.type)) ? (sizes.get(`${type.name}.${field.name}`) ?? 1) : 1;
      table.set(field.name, { type: getNamedType(field.type), items });
    }
    tables.set(type, table);
  }
  return tables;
}

/** The measure of {@link introspectionCosts}, with the facts it reads (`fullQuery` is not read). */
function measureCosts(
  schema: GraphQLSchema,
  facts: Omit<SchemaFacts, 'fullQuery'>,
  definitions: readonly DefinitionNode[],
): Map<OperationDefinitionNode, number> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION && !fragments.has(definition.name.value))
      fragments.set(definition.name.value, definition);
  }
  // Unknown or cyclic: 0 (validation reports it).
  const fragmentCost = fragmentMeasure(schema, fragments, (fragment, type) =>
    selectionCost(fragment.selectionSet, type),
  );
  function selectionCost(selectionSet: SelectionSetNode, parent: GraphQLNamedType): number {
    // Only the fields of introspection types count (others: not introspection, or unknown: validation reports it).
    const fields = facts.fields.get(parent);
    let total = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        const name = selection.name.value;
        if (name === '__typename') continue;
        const metaType = name === '__schema' ? facts.schemaType : name === '__type' ? facts.typeType : undefined;
        if (metaType) {
          total += 1 + (selection.selectionSet ? selectionCost(selection.selectionSet, metaType) : 0);
          continue;
        }
        const field = fields?.get(name);
        if (!field) continue;
        total += 1 + (selection.selectionSet ? field.items * selectionCost(selection.selectionSet, field.type) : 0);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const inner = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent;
        if (inner) total += selectionCost(selection.selectionSet, inner);
      } else {
        total += fragmentCost(selection.name.value);
      }
    }
    return total;
  }
  const costs = new Map<OperationDefinitionNode, number>();
  for (const definition of definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    const root = schema.getRootType(definition.operation);
    costs.set(definition, root ? selectionCost(definition.selectionSet, root) : 0);
  }
  return costs;
}

/**
 * The introspection cost of every operation of a document: how many introspection
 * objects and fields its answer can hold at most. Each field occurrence counts (aliases
 * and repeated fragments count again, as in the upstream cost), and a list multiplies
 * what is below it by the items it has in this schema (see `listSizes`). Fields outside
 * `__schema` and `__type` cost nothing here (`__typename` neither). Each fragment is
 * measured once, so the walk is linear in the document's size; each field is one lookup
 * in its type's table, made once per schema.
 */
export function introspectionCosts(
  schema: GraphQLSchema,
  definitions: readonly DefinitionNode[],
): Map<OperationDefinitionNode, number> {
  return measureCosts(schema, schemaFacts(schema), definitions);
}

/** The list sizes of a schema, its introspection types' fields and the cost of graphql-js's full introspection query on it, computed once per schema. */
function schemaFacts(schema: GraphQLSchema): SchemaFacts {
  let facts = factsOf.get(schema);
  if (!facts) {
    const sizes = listSizes(schema);
    const measured = {
      sizes,
      fields: measuredFields(schema, sizes),
      schemaType: schema.getType('__Schema') ?? undefined,
      typeType: schema.getType('__Type') ?? undefined,
    };
    const full = parse(
      getIntrospectionQuery({
        descriptions: true,
        specifiedByUrl: true,
        directiveIsRepeatable: true,
        schemaDescription: true,
        inputValueDeprecation: true,
        oneOf: true,
      }),
    );
    facts = { ...measured, fullQuery: Math.max(0, ...measureCosts(schema, measured, full.definitions).values()) };
    factsOf.set(schema, facts);
  }
  return facts;
}

/** The most introspection cost one operation may have on `schema`: {@link INTROSPECTION_ALLOWANCE} full introspection queries. */
export function maxIntrospectionCost(schema: GraphQLSchema): number {
  return INTROSPECTION_ALLOWANCE * schemaFacts(schema).fullQuery;
}

/**
 * A graphql-js validation rule: introspection needs no key, but an operation whose
 * introspection could answer more than {@link INTROSPECTION_ALLOWANCE} full
 * introspection queries (see {@link introspectionCosts}) fails validation with
 * `QUERY_TOO_EXPENSIVE` (HTTP 400, extensions `{introspectionCost,
 * maxIntrospectionCost}`), before anything is executed. This stops alias
 * amplification (hundreds of `__schema` aliases in a few kilobytes) without touching
 * ordinary introspection. A refused document is not validated further (see
 * `STOP_VALIDATION`): its answer is this one error.
 *
 * @param schema - the schema it will validate against: its facts (list sizes, the full
 *   query's cost) are computed here rather than during the first request that introspects
 */
export function introspectionCostRule(schema?: GraphQLSchema): ValidationRule {
  // The schema's facts are measured now, at startup, not by the first request that introspects.
  if (schema) schemaFacts(schema);
  return (context: ValidationContext): ASTVisitor => ({
    Document(document) {
      const schema = context.getSchema();
      const max = Math.ceil(maxIntrospectionCost(schema));
      let refused = false;
      for (const cost of introspectionCosts(schema, document.definitions).values()) {
        if (cost <= max) continue;
        refused = true;
        context.reportError(
          new GatewayError(
            'QUERY_TOO_EXPENSIVE',
            `The operation's introspection could answer ${Number.isFinite(cost) ? Math.ceil(cost) : 'too many'} schema objects; at most ${max} (one and a half full introspection queries) are allowed. Ask for the schema once, without aliases.`,
            { introspectionCost: Number.isFinite(cost) ? Math.ceil(cost) : null, maxIntrospectionCost: max },
            400,
          ),
        );
      }
      // The whole document is measured here; a refused one is not walked by any rule.
      return refused ? STOP_VALIDATION : false;
    },
  });
}

/**
 * A graphql-js validation rule for `INTROSPECTION=false`: each `__schema` or `__type`
 * field fails validation (`GRAPHQL_VALIDATION_FAILED`, one error per field, as Apollo
 * Server's own rule reports it); `__typename` stays allowed.
 */
export const noIntrospectionRule: ValidationRule = (context) => ({
  Field(node) {
    const name = node.name.value;
    if (name === '__schema' || name === '__type') {
      context.reportError(
        new GraphQLError(
          `GraphQL introspection is disabled on this gateway (INTROSPECTION=false), but the query contains the field "${name}".`,
          { nodes: [node] },
        ),
      );
    }
  },
});
