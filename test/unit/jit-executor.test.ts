/**
 * The graphql-jit executor (src/graph/execution/jit-executor.ts): the same answers as graphql-js
 * (data, null propagation, errors with their path, locations and original error), a
 * document compiled only once it runs again, and graphql-js's own answer when variables
 * do not coerce; its Apollo plugin answers as Apollo's own execution does (formatted
 * errors, HTTP status, coercion errors); and a gateway with `EXECUTION_JIT` on answers
 * as one with it off.
 */
import { ApolloServer } from '@apollo/server';
import type { ApolloServerPlugin } from '@apollo/server';
import { buildSchema, execute, GraphQLError, parse } from 'graphql';
import type { DocumentNode, ExecutionResult } from 'graphql';
import { compileQuery } from 'graphql-jit';
import { formatError } from '../../src/errors/format-error';
import { GatewayError } from '../../src/errors/gateway-error';
import { jitExecute, jitExecution } from '../../src/graph/execution/jit-executor';
import { FIXTURE_IDS } from '../../src/simulator';
import { T0, useStacks } from '../support';
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

async function executor(): Promise<
  (document: DocumentNode, variables?: Record<string, unknown>) => Promise<ExecutionResult>
> {
  const run = jitExecute(schema);
  return async (document, variables) =>
    run({ schema, document, operationName: null, variableValues: variables, contextValue: {} });
}

/**
 * A result as JSON, with each error's original error's message (what the gateway's
 * formatError reads); errors by path (graphql-jit lists a null in a non-null field after
 * the other errors, graphql-js where it happened).
 */
function shown(result: ExecutionResult): unknown {
  const errors = [...(result.errors ?? [])].sort((a, b) =>
    JSON.stringify(a.path).localeCompare(JSON.stringify(b.path)),
  );
  return {
    data: JSON.parse(JSON.stringify(result.data ?? null)) as unknown,
    hasData: 'data' in result,
    errors: errors.map((error) => ({
      ...error.toJSON(),
      original: error.originalError?.message,
      originalExtensions: error.extensions,
    })),
  };
}

describe('JitExecutor', () => {
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
    expect(shown(await run(document, {}))).toEqual(
      shown(await execute({ schema, document, variableValues: {}, contextValue: {} })),
    );
  });
});

describe('jitExecution', () => {
  /** A field failing with a gateway error that carries an HTTP status, as the gateway's refusals do. */
  const withStatus = buildSchema('type Query { limited: String items(limit: Int!): [String!] }');
  const queryFields = withStatus.getQueryType()?.getFields();
  if (!queryFields?.limited || !queryFields.items) throw new Error('schema');
  queryFields.limited.resolve = () => {
    throw new GatewayError('RATE_LIMITED', 'slow down', { retryAfterSeconds: 3 }, 429);
  };
  queryFields.items.resolve = (_root, args: { limit: number }) => ['a', 'b', 'c'].slice(0, args.limit);

  async function answers(query: string, variables: Record<string, unknown>, withPlugin: boolean): Promise<unknown[]> {
    let executions = 0;
    const counting: ApolloServerPlugin = {
      requestDidStart: async () => ({ executionDidStart: async () => void (executions += 1) }),
    };
    const jit = withPlugin ? jitExecution(withStatus, { formatError, includeStacktraceInErrorResponses: false }) : null;
    const apollo = new ApolloServer({
      ...(jit ? { gateway: jit.gateway } : { schema: withStatus }),
      formatError,
      plugins: [counting, ...(jit ? [jit.plugin] : [])],
    });
    await apollo.start();
    const seen: unknown[] = [];
    try {
      for (let run = 0; run < 3; run += 1) {
        const response = await apollo.executeOperation({ query, variables });
        seen.push({ status: response.http.status, body: response.body });
      }
    } finally {
      await apollo.stop();
    }
    return [...seen, { executedByApollo: executions }];
  }

  it("answers as Apollo's own execution: data, formatted and masked errors, the status an error carries", async () => {
    const query = 'query Q($n: Int!) { limited items(limit: $n) }';
    const apollo = await answers(query, { n: 2 }, false);
    const jit = await answers(query, { n: 2 }, true);
    expect(jit.slice(0, 3)).toEqual(apollo.slice(0, 3));
    expect(jit[0]).toMatchObject({
      status: 429,
      body: {
        singleResult: {
          data: { limited: null, items: ['a', 'b'] },
          errors: [{ extensions: { code: 'RATE_LIMITED', retryAfterSeconds: 3 } }],
        },
      },
    });
    // Apollo executed none of them itself: the plugin did (compiled from the second run).
    expect(jit[3]).toEqual({ executedByApollo: 0 });
    expect(apollo[3]).toEqual({ executedByApollo: 3 });
  });

  it('leaves a run that executed nothing (variables that do not coerce) to Apollo, word for word', async () => {
    const query = 'query Q($n: Int!) { items(limit: $n) }';
    const apollo = await answers(query, { n: 'x' }, false);
    const jit = await answers(query, { n: 'x' }, true);
    expect(jit).toEqual(apollo);
    expect(jit[0]).toMatchObject({
      status: 400,
      body: { singleResult: { errors: [{ extensions: { code: 'BAD_USER_INPUT' } }] } },
    });
  });
});

describe('EXECUTION_JIT on and off answer the same', () => {
  const stacks = useStacks();

  it('the README page, once run with graphql-js and then compiled, equals graphql-js every time', async () => {
    // Date stands still: the answers' ages do not depend on how fast the machine filled each cache.
    const jitOn = await stacks.start({ config: { executionJit: true }, fakeDate: T0 });
    const jitOff = await stacks.start({ config: { executionJit: false }, fakeDate: T0 });
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
