/**
 * Over HTTP the request pipeline parses and validates a request once (`prepareAdmitted`,
 * as for the streams) and hands the document to Apollo Server through its public
 * `documentStore` option (`ApolloDocumentStore`), relying on Apollo's key shape (its
 * `queryHash`, the sha256 of the query text, at the end). These tests fail if Apollo ever
 * parses or validates a request the pipeline prepared: a plugin counts Apollo's
 * `parsingDidStart` and `validationDidStart` calls in a test server, and the gateway's
 * store counts the documents Apollo stores after parsing and validating one itself. A
 * request the pipeline refuses (a syntax or validation error, an `operation` step, CSRF)
 * is parsed at most once, by the pipeline, and never reaches Apollo: its answer is
 * `RequestPipeline.refuse`'s.
 */
import { createHash } from 'node:crypto';
import { ApolloServer, HeaderMap } from '@apollo/server';
import type { BaseContext } from '@apollo/server';
import { DEFAULT_CONFIG } from '../../src/config';
import { buildGatewaySchema } from '../../src/graph/schema';
import { ApolloDocumentStore } from '../../src/pipeline/apollo-documents';
import { readCredential } from '../../src/pipeline/credential';
import { operationRequest } from '../../src/pipeline/operation-request';
import { RequestPipeline } from '../../src/pipeline/pipeline';
import { DEMO_KEYS } from '../../src/simulator';
import { useStack } from '../support';

describe('Apollo Server on a request the pipeline prepared (a test server)', () => {
  let apollo: ApolloServer<BaseContext>;
  let pipeline: RequestPipeline;
  const counts = { parsing: 0, validation: 0 };

  beforeAll(async () => {
    const schema = await buildGatewaySchema();
    pipeline = RequestPipeline.fromConfig(schema, DEFAULT_CONFIG);
    const options = pipeline.apolloOptions<BaseContext>();
    apollo = new ApolloServer<BaseContext>({
      schema,
      documentStore: options.documentStore,
      parseOptions: options.parseOptions,
      validationRules: options.validationRules,
      plugins: [
        options.plugin,
        {
          requestDidStart: async () => ({
            parsingDidStart: async () => void (counts.parsing += 1),
            validationDidStart: async () => void (counts.validation += 1),
          }),
        },
      ],
    });
    await apollo.start();
  });
  afterAll(() => apollo.stop());

  /** Prepares `body` as the HTTP handler does, holds its document when `hold`, and runs it on Apollo. */
  async function run(body: Record<string, unknown>, hold: boolean): Promise<string> {
    counts.parsing = 0;
    counts.validation = 0;
    const admission = pipeline.admit('http', { kind: 'post', body }, readCredential(undefined), { body, search: '' });
    if (admission.kind !== 'run') throw new Error('refused');
    const prepared = pipeline.prepareAdmitted('http', admission, operationRequest(admission.parameters));
    if (prepared.kind !== 'run' || prepared.queryHash === undefined) throw new Error('not prepared');
    const release = hold ? pipeline.holdDocument(prepared.queryHash, prepared.document) : () => undefined;
    try {
      const response = await apollo.executeHTTPGraphQLRequest({
        httpGraphQLRequest: {
          method: 'POST',
          headers: new HeaderMap([['content-type', 'application/json']]),
          search: '',
          body,
        },
        context: async () => ({ passedSteps: prepared }),
      });
      return response.body.kind === 'complete' ? response.body.string : '';
    } finally {
      release();
    }
  }

  it('neither parses nor validates a document the pipeline holds for it', async () => {
    const text = await run({ query: 'query Held { __typename }', operationName: 'Held' }, true);
    expect(JSON.parse(text)).toEqual({ data: { __typename: 'Query' } });
    expect(counts).toEqual({ parsing: 0, validation: 0 });
  });

  it('parses and validates itself when nothing is held (the counting works)', async () => {
    const text = await run({ query: 'query NotHeld { __typename }' }, false);
    expect(JSON.parse(text)).toEqual({ data: { __typename: 'Query' } });
    expect(counts).toEqual({ parsing: 1, validation: 1 });
  });
});

describe("the gateway's HTTP requests", () => {
  const stack = useStack({ http: true });

  it.each([
    ['a syntax error', { query: '{ factories { id }' }, {}, 400, 'GRAPHQL_PARSE_FAILED', 1],
    ['two validation errors', { query: '{ nope factories { alsoNope } }' }, {}, 400, 'GRAPHQL_VALIDATION_FAILED', 1],
    [
      'two operations and no operationName',
      { query: 'query A { __typename } query B { __typename }' },
      {},
      400,
      'OPERATION_RESOLUTION_FAILURE',
      1,
    ],
    [
      'an operation over the cost limit',
      { query: `{ ${Array.from({ length: 60 }, (_, i) => `a${i}: factories { options { title } }`).join(' ')} }` },
      {},
      400,
      'QUERY_TOO_EXPENSIVE',
      1,
    ],
    [
      'a variable that does not coerce to its declared type',
      { query: 'query Q($id: ID!) { factory(id: $id) { id } }', variables: { id: { no: 1 } } },
      {},
      400,
      'BAD_USER_INPUT',
      1,
    ],
    ['no query text', { operationName: 'Q' }, {}, 400, 'BAD_REQUEST', 1],
    [
      'a possible cross-site forgery',
      { query: '{ factories { id }' },
      { 'content-type': 'text/plain' },
      400,
      'BAD_REQUEST',
      0,
    ],
    [
      'an Accept no GraphQL response has',
      { query: '{ factories { id }' },
      { accept: 'image/png' },
      406,
      'BAD_REQUEST',
      0,
    ],
  ])(
    'refused for %s: parsed at most once, by the pipeline, and never given to Apollo',
    async (_name, body, headers, status, code, parses) => {
      const apollo = jest.spyOn(stack.gateway.apollo, 'executeHTTPGraphQLRequest');
      const stored = jest.spyOn(ApolloDocumentStore.prototype, 'set');
      const ran: string[] = [];
      const stop = stack.gateway.pipeline.observe((step) => ran.push(step));
      try {
        const response = await fetch(stack.endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${DEMO_KEYS.premium.key}`, ...headers },
          body: JSON.stringify(body),
        });
        const text = await response.text();
        expect([
          response.status,
          (JSON.parse(text) as { errors: Array<{ extensions: { code: string } }> }).errors[0]?.extensions.code,
        ]).toEqual([status, code]);
        expect(ran.filter((step) => step === 'parse')).toHaveLength(parses);
        expect(apollo).not.toHaveBeenCalled();
        expect(stored).not.toHaveBeenCalled();
      } finally {
        stop();
        apollo.mockRestore();
        stored.mockRestore();
      }
    },
  );

  it('an accepted document is parsed once, by the pipeline, and run by Apollo', async () => {
    const apollo = jest.spyOn(stack.gateway.apollo, 'executeHTTPGraphQLRequest');
    const ran: string[] = [];
    const stop = stack.gateway.pipeline.observe((step) => ran.push(step));
    try {
      const answer = await stack.post({ query: 'query Once { __typename }' }, { key: DEMO_KEYS.premium.key });
      expect(answer.status).toBe(200);
      expect(ran.filter((step) => step === 'parse')).toHaveLength(1);
      expect(apollo).toHaveBeenCalledTimes(1);
    } finally {
      stop();
      apollo.mockRestore();
    }
  });

  it('are parsed and validated once, by the pipeline: Apollo stores no document of its own', async () => {
    const stored = jest.spyOn(ApolloDocumentStore.prototype, 'set');
    try {
      for (const query of ['{ __typename }', 'query Named { __typename }', '{ __typename }']) {
        const answer = await stack.post({ query }, { key: DEMO_KEYS.premium.key });
        expect(answer.status).toBe(200);
      }
      expect(stored).not.toHaveBeenCalled();
    } finally {
      stored.mockRestore();
    }
  });

  it('an APQ hash alone gets its text from the APQ cache: Apollo parses neither request', async () => {
    const stored = jest.spyOn(ApolloDocumentStore.prototype, 'set');
    const ran: string[] = [];
    const stop = stack.gateway.pipeline.observe((step) => ran.push(step));
    try {
      const query = '{ __typename apq: __typename }';
      const persistedQuery = { version: 1, sha256Hash: createHash('sha256').update(query).digest('hex') };
      const registered = await stack.post({ query, extensions: { persistedQuery } }, { key: DEMO_KEYS.premium.key });
      expect([registered.status, registered.body.data]).toEqual([200, { __typename: 'Query', apq: 'Query' }]);
      // Apollo registered the text in the APQ cache; the pipeline reads the hash's text from it.
      const byHash = await stack.post({ extensions: { persistedQuery } }, { key: DEMO_KEYS.premium.key });
      expect([byHash.status, byHash.body.data]).toEqual([200, { __typename: 'Query', apq: 'Query' }]);
      expect(ran.filter((step) => step === 'parse')).toHaveLength(2);
      expect(stored).not.toHaveBeenCalled();
    } finally {
      stop();
      stored.mockRestore();
    }
  });

  it('an unknown APQ hash is refused by the pipeline with Apollo Server’s answer, byte for byte', async () => {
    const apollo = jest.spyOn(stack.gateway.apollo, 'executeHTTPGraphQLRequest');
    try {
      const persistedQuery = { version: 1, sha256Hash: 'b'.repeat(64) };
      const response = await fetch(stack.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${DEMO_KEYS.premium.key}` },
        body: JSON.stringify({ extensions: { persistedQuery } }),
      });
      expect([
        response.status,
        response.headers.get('cache-control'),
        response.headers.get('content-type'),
        await response.text(),
      ]).toEqual([
        200,
        'private, no-cache, must-revalidate',
        'application/json; charset=utf-8',
        '{"errors":[{"message":"PersistedQueryNotFound","extensions":{"code":"PERSISTED_QUERY_NOT_FOUND"}}],' +
          '"extensions":{"upstream":{"requests":0,"cacheHits":0,"coalesced":0,"stale":0,"maxAgeSeconds":0}}}\n',
      ]);
      const v2 = await stack.post({ extensions: { persistedQuery: { ...persistedQuery, version: 2 } } });
      expect([v2.status, v2.body.errors]).toEqual([
        400,
        [{ message: 'Unsupported persisted query version', extensions: { code: 'INTERNAL_SERVER_ERROR' } }],
      ]);
      expect(apollo).not.toHaveBeenCalled();
    } finally {
      apollo.mockRestore();
    }
  });

  it.each([
    ['a hash that is not the text’s', { version: 1, sha256Hash: 'a'.repeat(64) }, 'provided sha does not match query'],
    ['a version other than 1', { version: 2, sha256Hash: 'a'.repeat(64) }, 'Unsupported persisted query version'],
  ])(
    'an APQ request with %s is refused by the pipeline, as Apollo refused it',
    async (_name, persistedQuery, message) => {
      const apollo = jest.spyOn(stack.gateway.apollo, 'executeHTTPGraphQLRequest');
      try {
        const answer = await stack.post({ query: '{ __typename }', extensions: { persistedQuery } });
        expect([answer.status, answer.body.errors?.[0]?.message]).toEqual([400, message]);
        expect(apollo).not.toHaveBeenCalled();
      } finally {
        apollo.mockRestore();
      }
    },
  );
});
