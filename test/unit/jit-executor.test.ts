/**
 * The graphql-jit executor (src/graph/jit-executor.ts): the same answers as graphql-js
 * (data, null propagation, errors with their path, locations and original error), a
 * document compiled only once it runs again, and graphql-js's own answer when variables
 * do not coerce; and a gateway with `EXECUTION_JIT` on answers as one with it off.
 */
import { buildSchema, execute, GraphQLError, parse } from 'graphql';
import type { DocumentNode, ExecutionResult } from 'graphql';
import { compileQuery } from 'graphql-jit';
import { jitGateway } from '../../src/graph/jit-executor';
import { FIXTURE_IDS } from '../../src/simulator';
import { useStacks } from '../support';
import { readmePage } from '../support/readme-page';

jest.mock('graphql-jit', () => {
  const actual = jest.requireActual<typeof import('graphql-jit')>('graphql-jit');
  return { ...actual, compileQuery: jest.fn(actual.compileQuery) };
});

class CodedError extends GraphQLError {
  constructor(message: string) {
    super(message, { extensions: { code: 'UPSTREAM_ERROR' } });
  }
}

const schema = buildSchema(`
  type Item { id: ID! name: String! price: Int }
  type Query { items(limit: Int!): [Item!] broken: Item failing: String plain: String }
`);
const ITEMS = [
  { id: '1', name: 'a', price: 3 },
  { id: '2', name: null, price: 4 },
];
const fields = schema.getQueryType()?.getFields();
if (!fields?.items || !fields.broken || !fields.failing || !fields.plain) throw new Error('schema');
fields.items.resolve = async (_root, args: { limit: number }) => Promise.resolve(ITEMS.slice(0, args.limit));
fields.broken.resolve = () => ({ id: '3', name: 'c', price: 5 });
fields.failing.resolve = async () => Promise.reject(new CodedError('upstream down'));
fields.plain.resolve = () => {
  throw new Error('secret detail');
};

async function executor(): Promise<(document: DocumentNode, variables?: Record<string, unknown>) => Promise<ExecutionResult>> {
  const gateway = jitGateway(schema);
  gateway.onSchemaLoadOrUpdate(() => undefined);
  const { executor: run } = await gateway.load({ apollo: {} });
  if (!run) throw new Error('no executor');
  // The executor reads the document, operation name, variables and context of Apollo's request context.
  return (document, variables) => run({ document, operationName: null, request: { variables }, context: {} } as unknown as Parameters<typeof run>[0]);
}

/**
 * A result as JSON, with each error's original error's message (what the gateway's
 * formatError reads); errors by path (graphql-jit lists a null in a non-null field after
 * the other errors, graphql-js where it happened).
 */
function shown(result: ExecutionResult): unknown {
  const errors = [...(result.errors ?? [])].sort((a, b) => JSON.stringify(a.path).localeCompare(JSON.stringify(b.path)));
  return { data: JSON.parse(JSON.stringify(result.data ?? null)) as unknown, hasData: 'data' in result, errors: errors.map((error) => ({ ...error.toJSON(), original: error.originalError?.message, originalExtensions: error.extensions })) };
}

describe('jitGateway', () => {
  beforeEach(() => jest.mocked(compileQuery).mockClear());

  it('answers as graphql-js, on the first run and once compiled: data, null propagation, errors', async () => {
    const run = await executor();
    const compile = jest.mocked(compileQuery);
    const document = parse('query Q($n: Int!) { items(limit: $n) { id name price } broken { id } failing plain }');
    const expected = shown(await execute({ schema, document, variableValues: { n: 2 }, contextValue: {} }));
    expect(shown(await run(document, { n: 2 }))).toEqual(expected);
    expect(compile).not.toHaveBeenCalled();
    expect(shown(await run(document, { n: 2 }))).toEqual(expected);
    expect(shown(await run(document, { n: 2 }))).toEqual(expected);
    expect(compile).toHaveBeenCalledTimes(1);
    const errors = (await run(document, { n: 2 })).errors ?? [];
    expect(errors.every((error) => error instanceof GraphQLError && typeof error.extensions === 'object')).toBe(true);
  });

  it('gives graphql-js answer when the variables do not coerce, also once compiled', async () => {
    const run = await executor();
    const document = parse('query Q($n: Int!) { items(limit: $n) { id } }');
    await run(document, { n: 1 });
    await run(document, { n: 1 });
    const expected = shown(await execute({ schema, document, variableValues: { n: 'x' }, contextValue: {} }));
    expect(shown(await run(document, { n: 'x' }))).toEqual(expected);
    expect(shown(await run(document, {}))).toEqual(shown(await execute({ schema, document, variableValues: {}, contextValue: {} })));
  });
});

describe('EXECUTION_JIT on and off answer the same', () => {
  const stacks = useStacks();

  it('the README page, once run with graphql-js and then compiled, equals graphql-js every time', async () => {
    const jitOn = await stacks.start({ config: { executionJit: true } });
    const jitOff = await stacks.start({ config: { executionJit: false } });
    const variables = { id: FIXTURE_IDS.shop };
    // Both caches filled first: the answers then differ in nothing, `extensions.upstream` included.
    expect((await jitOff.executeText(readmePage(), variables)).errors ?? []).toEqual([]);
    expect((await jitOn.executeText(readmePage(), variables)).errors ?? []).toEqual([]);
    const expected = await jitOff.executeText(readmePage(), variables);
    expect(expected.extensions).toMatchObject({ upstream: { requests: 0 } });
    for (let run = 0; run < 3; run += 1) {
      expect(await jitOn.executeText(readmePage(), variables)).toEqual(expected);
      expect(await jitOff.executeText(readmePage(), variables)).toEqual(expected);
    }
  });
});
