/**
 * A property over random fragment graphs of up to 40 levels (the doubling shape of the
 * fragment bomb, `fragment Fi on Query { ...Fi+1 ...Fi+1 }`, and random DAGs with heavy sharing, on
 * Query and on Factory): every walk of the gateway over a document (the grants rule for
 * company-scoped and field-scoped tokens, the depth and introspection rules, the cost,
 * the bounds, the executed part, the introspection-only check, and graphql-js's own
 * rules) reads each fragment a bounded number of times, however often it is spread
 * (graphql-js's OverlappingFieldsCanBeMerged: each pair of fragments once).
 *
 * The count is the assertion that matters: each fragment's `selectionSet` is read through
 * a counting getter that throws past the bound, so a walk that expands spreads fails at
 * once instead of running for hours; a bounded count bounds the work linearly. Time is not
 * asserted here (a loaded machine makes any bound flaky): the bench's hostile scenario
 * measures the fragment bombs' event-loop delay. graphql-js's own rules have a looser
 * count: their OverlappingFieldsCanBeMerged compares
 * fragments in pairs (each pair once, its memo), quadratic in the fragments, and a walk of
 * every rule over an 80-fragment document is not a few milliseconds on a loaded machine.
 */
import fc from 'fast-check';
import { getOperationAST, parse, specifiedRules, validate } from 'graphql';
import type {
  DocumentNode,
  FragmentDefinitionNode,
  GraphQLSchema,
  OperationDefinitionNode,
  SelectionSetNode,
} from 'graphql';
import { DEFAULT_CONFIG } from '../../src/config';
import { checkOperationBounds } from '../../src/field-rules/bounds';
import { operationCost, upstreamCostEstimator } from '../../src/field-rules/cost';
import { depthLimitRule } from '../../src/graph/validation/depth.rule';
import { grantsRule } from '../../src/graph/validation/grants.rule';
import { introspectionCostRule } from '../../src/graph/validation/introspection.rule';
import { executedDocument } from '../../src/field-rules/operation-fragments';
import { buildGatewaySchema } from '../../src/graph/schema';
import { isIntrospectionOnly } from '../../src/pipeline/trusted-documents';
import { FIXTURE_IDS } from '../../src/simulator';
import { parseGrant } from '../../src/vault/grants';
import type { Grant } from '../../src/vault/grants';

/** Reads of one fragment's selections one walk may make (graphql-js's `visit` of the definition, the walk itself, once per position). */
const READS_PER_FRAGMENT = 6;

/** graphql-js's own rules, which Apollo runs on every new document (counted, not timed). */
const GRAPHQL_JS_RULES = "graphql-js's rules";

/** A random fragment graph: per fragment, its type and the fragments it spreads (only later ones: a DAG), with repeats. */
interface FragmentGraph {
  /** Fragments on Query: for each, the later Query fragments it spreads, and whether it selects `factories { ...H0 }`. */
  query: { spreads: number[]; factories: boolean; leaf: string }[];
  /** Fragments on Factory: for each, the later Factory fragments it spreads and a leaf field. */
  factory: { spreads: number[]; leaf: string }[];
}

const QUERY_LEAVES = ['__typename', 'factories { id }', `factory(id: "${FIXTURE_IDS.shop}") { id }`];
const FACTORY_LEAVES = ['__typename', 'id', 'name'];

function documentText(graph: FragmentGraph): string {
  const parts = ['query Walk { ...F0 }'];
  graph.query.forEach((fragment, i) => {
    const body = [
      fragment.leaf,
      ...fragment.spreads.map((j) => `...F${j}`),
      ...(fragment.factories && graph.factory.length > 0 ? ['factories { ...H0 }'] : []),
    ];
    parts.push(`fragment F${i} on Query { ${body.join(' ')} }`);
  });
  graph.factory.forEach((fragment, i) =>
    parts.push(
      `fragment H${i} on Factory { ${[fragment.leaf, ...fragment.spreads.map((j) => `...H${j}`)].join(' ')} }`,
    ),
  );
  return parts.join('\n');
}

/** Spreads of fragment `i` of `count`: random later fragments, each possibly several times, always the next one at least twice (the doubling shape). */
function spreadsArbitrary(i: number, count: number): fc.Arbitrary<number[]> {
  if (i >= count - 1) return fc.constant([]);
  return fc
    .array(fc.integer({ min: i + 1, max: count - 1 }), { maxLength: 4 })
    .map((extra) => [i + 1, i + 1, ...extra]);
}

const graphArbitrary: fc.Arbitrary<FragmentGraph> = fc
  .record({ queryLevels: fc.integer({ min: 1, max: 40 }), factoryLevels: fc.integer({ min: 0, max: 40 }) })
  .chain(({ queryLevels, factoryLevels }) =>
    fc.record({
      query: fc.tuple(
        ...Array.from({ length: queryLevels }, (_, i) =>
          fc.record({
            spreads: spreadsArbitrary(i, queryLevels),
            factories: fc.boolean(),
            leaf: fc.constantFrom(...QUERY_LEAVES),
          }),
        ),
      ),
      factory:
        factoryLevels === 0
          ? fc.constant([])
          : fc.tuple(
              ...Array.from({ length: factoryLevels }, (_, i) =>
                fc.record({ spreads: spreadsArbitrary(i, factoryLevels), leaf: fc.constantFrom(...FACTORY_LEAVES) }),
              ),
            ),
    }),
  );

/** The document with a counting getter on each fragment's selections: `reads()` so far; throws past `limit` reads. */
function counted(
  text: string,
  limit: number,
): { document: DocumentNode; operation: OperationDefinitionNode; reads: () => number; reset: () => void } {
  const document = parse(text);
  const operation = getOperationAST(document);
  if (!operation) throw new Error('no operation');
  let reads = 0;
  for (const definition of document.definitions) {
    if (definition.kind !== 'FragmentDefinition') continue;
    const selectionSet: SelectionSetNode = definition.selectionSet;
    Object.defineProperty(definition as FragmentDefinitionNode, 'selectionSet', {
      enumerable: true,
      get() {
        reads += 1;
        if (reads > limit) throw new Error(`more than ${limit} reads of fragments' selections: a walk expands spreads`);
        return selectionSet;
      },
    });
  }
  return {
    document,
    operation,
    reads: () => reads,
    reset: () => {
      reads = 0;
    },
  };
}

const grantsOf = (texts: readonly string[]): Grant[] => texts.map((text) => parseGrant(text) as Grant);

/** Every walk, by name. */
function walks(
  schema: GraphQLSchema,
): Record<string, (document: DocumentNode, operation: OperationDefinitionNode) => unknown> {
  const grantsWalk = (texts: readonly string[]) => (document: DocumentNode, operation: OperationDefinitionNode) =>
    validate(schema, document, [grantsRule({ grants: grantsOf(texts), operation, variables: {} })]);
  return {
    'grants (company-scoped token)': grantsWalk([`factory:${FIXTURE_IDS.shop}`]),
    'grants (field-scoped token)': grantsWalk(['read:Factory.name']),
    'grants (company and field)': grantsWalk([`factory:${FIXTURE_IDS.shop}`, 'read:Factory.id', 'subscribe']),
    depth: (document) => validate(schema, document, [depthLimitRule({ maxDepth: 100, maxCost: 1000 })]),
    introspection: (document) => validate(schema, document, [introspectionCostRule()]),
    cost: (document, operation) =>
      operationCost(schema, document, operation, {}, [upstreamCostEstimator(DEFAULT_CONFIG.costAssumptions)]),
    bounds: (document, operation) => checkOperationBounds(schema, document, operation, {}),
    'executed part': (document, operation) => executedDocument(document, operation),
    'introspection only': (document) => isIntrospectionOnly(document),
    [GRAPHQL_JS_RULES]: (document) => validate(schema, document, specifiedRules),
  };
}

describe('every walk over random fragment graphs of up to 40 levels reads each fragment a bounded number of times', () => {
  let schema: GraphQLSchema;

  beforeAll(async () => {
    schema = await buildGatewaySchema();
  });

  it('the doubling shape of the issue (40 levels, company-scoped token): each walk within the bounds', () => {
    const text = [
      'query Walk { ...F0 }',
      ...Array.from({ length: 39 }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`),
      'fragment F39 on Query { __typename }',
    ].join('\n');
    for (const [name, walk] of Object.entries(walks(schema))) {
      const { document, operation, reads, reset } = counted(text, READS_PER_FRAGMENT * 40);
      reset();
      walk(document, operation);
      expect({ name, reads: reads() <= READS_PER_FRAGMENT * 40 }).toEqual({ name, reads: true });
    }
  });

  it('the property: any DAG of fragments with repeated and shared spreads', () => {
    const all = walks(schema);
    // Warm every walk once (the first call compiles).
    for (const walk of Object.values(all)) {
      const { document, operation } = counted('query Walk { ...F0 } fragment F0 on Query { __typename }', 100);
      walk(document, operation);
    }
    fc.assert(
      fc.property(graphArbitrary, (graph) => {
        const fragments = graph.query.length + graph.factory.length;
        for (const [name, walk] of Object.entries(all)) {
          // graphql-js's OverlappingFieldsCanBeMerged compares fragments in pairs, each pair once (its memo).
          const limit =
            name === GRAPHQL_JS_RULES ? 8 * fragments * fragments + 100 : READS_PER_FRAGMENT * fragments + 4;
          const { document, operation, reads, reset } = counted(documentText(graph), limit);
          reset();
          walk(document, operation);
          expect({ name, reads: reads() <= limit }).toEqual({ name, reads: true });
        }
      }),
      { numRuns: 30 },
    );
  });
});
