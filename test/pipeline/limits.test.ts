/**
 * Introspection and response size are bounded on every transport. Introspection needs
 * no key, but one operation may introspect about once (the `introspection` step's
 * validation rule); and MAX_RESPONSE_BYTES replaces any result over it (a query's answer
 * over HTTP, graphql-ws or graphql-sse, and each subscription event) by a
 * QUERY_TOO_EXPENSIVE error naming the limit, the subscription going on.
 */
import { once } from 'node:events';
import { buildSchema, getIntrospectionQuery, parse, specifiedRules, validate } from 'graphql';
import type { GraphQLSchema } from 'graphql';
import { createClient as createSseClient } from 'graphql-sse';
import { introspectionCostRule, maxIntrospectionCost } from '../../src/graph/validation/introspection.rule';
import { buildGatewaySchema } from '../../src/graph/schema';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { ManualClock, startStack } from '../support';
import type { HttpStack } from '../support';
import { collect, wsClient } from '../subscriptions/clients';
import type { Collected } from '../subscriptions/clients';
import { over, TRANSPORTS } from './over';

const FULL = getIntrospectionQuery({
  descriptions: true,
  specifiedByUrl: true,
  directiveIsRepeatable: true,
  schemaDescription: true,
  inputValueDeprecation: true,
});

/** graphql-js's full introspection query with `ofType` nested `levels` deep (newer tools nest deeper than graphql-js 16's 7). */
function deeperTypeRef(levels: number): string {
  const typeRef = `${'kind name ofType { '.repeat(levels)}kind name${' }'.repeat(levels)}`;
  return FULL.replace(/fragment TypeRef on __Type \{[\s\S]*$/, `fragment TypeRef on __Type { ${typeRef} }`);
}

describe('the introspection cost rule', () => {
  let schema: GraphQLSchema;
  const codesOf = (query: string): string[] =>
    validate(schema, parse(query), [...specifiedRules, introspectionCostRule()]).map((error) =>
      String(error.extensions.code),
    );

  beforeAll(async () => {
    schema = await buildGatewaySchema();
  });

  it.each([
    ["graphql-js's full introspection query", FULL],
    ['the same with ofType nested 10 levels', deeperTypeRef(10)],
    ['the lean attack selection once', '{ __schema { types { name fields { name type { name } } } } }'],
    [
      'a few __type lookups',
      '{ a: __type(name: "Factory") { fields { name } } b: __type(name: "Building") { fields { name } } }',
    ],
  ])('lets %s through', (_name, query) => {
    expect(codesOf(query)).toEqual([]);
  });

  it.each([
    [
      'two full introspections by aliases',
      FULL.replace(
        'query IntrospectionQuery {',
        'query IntrospectionQuery { again: __schema { types { ...FullType } } ',
      ),
    ],
    [
      '369 aliases of the lean selection',
      `{ ${Array.from({ length: 369 }, (_, i) => `a${i}: __schema { types { name fields { name type { name } } } }`).join(' ')} }`,
    ],
    [
      'aliases of types inside one __schema',
      `{ __schema { ${Array.from({ length: 60 }, (_, i) => `t${i}: types { name fields { name type { name } } }`).join(' ')} } }`,
    ],
    ['fields nested through type', `{ __schema { types { ${'fields { type { '.repeat(4)}name${' } }'.repeat(4)} } } }`],
    [
      'a fragment spread many times',
      `{ ...A ...A } fragment A on Query { ${Array.from({ length: 40 }, (_, i) => `s${i}: __schema { types { name fields { name } } }`).join(' ')} }`,
    ],
  ])('refuses %s with QUERY_TOO_EXPENSIVE', (_name, query) => {
    expect(codesOf(query)).toContain('QUERY_TOO_EXPENSIVE');
  });

  it("stops validation at the refusal: graphql-js's rules never walk the refused document", () => {
    // Unknown fields and a missing fragment: graphql-js's rules would report both.
    const query = `{ ${Array.from({ length: 369 }, (_, i) => `a${i}: __schema { types { name nope } }`).join(' ')} ...Missing }`;
    expect(codesOf(query)).toEqual(['QUERY_TOO_EXPENSIVE']);
    // Within the allowance, the same mistakes are reported.
    expect(codesOf('{ __schema { types { name nope } } ...Missing }').length).toBeGreaterThanOrEqual(2);
  });

  it('names the limit in the error', () => {
    const [error] = validate(
      schema,
      parse(`{ ${Array.from({ length: 369 }, (_, i) => `a${i}: __schema { types { name } }`).join(' ')} }`),
      [introspectionCostRule()],
    );
    expect(error?.extensions).toMatchObject({
      code: 'QUERY_TOO_EXPENSIVE',
      maxIntrospectionCost: Math.ceil(maxIntrospectionCost(schema)),
    });
    expect(error?.message).toMatch(/introspection/);
  });
});

describe('the introspection cost rule, built for its schema', () => {
  it('measures the schema when it is built, so that no request pays for it', () => {
    const schema = buildSchema('type Query { hello: String, list: [Item] } type Item { id: ID }');
    const rule = introspectionCostRule(schema);
    // graphql-js checks the schema itself on its first validation (reading the type map).
    expect(validate(schema, parse('{ hello }'), [])).toEqual([]);
    // The list sizes were read from the type map when the rule was built; validating does not read it again.
    const typeMap = jest.spyOn(schema, 'getTypeMap');
    const query = `{ ${Array.from({ length: 369 }, (_, i) => `a${i}: __schema { types { name fields { name type { name fields { name } } } } }`).join(' ')} }`;
    const errors = validate(schema, parse(query), [rule]);
    expect(errors.map((error) => error.extensions.code)).toEqual(['QUERY_TOO_EXPENSIVE']);
    expect(typeMap).not.toHaveBeenCalled();
    expect(validate(schema, parse('{ __schema { types { name } } }'), [rule])).toEqual([]);
  });
});

describe('MAX_RESPONSE_BYTES on every result', () => {
  let stack: HttpStack;
  let clock: ManualClock;
  const MAX = 300;

  beforeEach(async () => {
    clock = new ManualClock();
    stack = await startStack({
      http: true,
      config: { maxResponseBytes: MAX },
      gateway: { now: clock.now, pollClock: clock },
    });
  });

  afterEach(async () => {
    await stack.close();
  });

  it.each(TRANSPORTS)(
    'replaces an answer over the limit by QUERY_TOO_EXPENSIVE naming it, over %s',
    async (transport) => {
      const outcome = await over(
        transport,
        stack,
        { query: '{ factories { id name counter { items { item amount price } } } }' },
        `Bearer ${DEMO_KEYS.premium.key}`,
      );
      expect(outcome.codes).toEqual(['QUERY_TOO_EXPENSIVE']);
      expect(outcome.data).toBeNull();
      expect(outcome.extensions).toMatchObject({ maxResponseBytes: MAX, responseBytes: expect.any(Number) as number });
      expect(outcome.extensions?.responseBytes).toBeGreaterThan(MAX);
      expect(
        (await over(transport, stack, { query: '{ factories { id } }' }, `Bearer ${DEMO_KEYS.premium.key}`)).codes,
      ).toEqual([]);
    },
  );

  const COUNTER = `subscription($id: ID!) { counterChanged(factoryId: $id) { factoryId counter { items { item amount price } } } }`;

  async function eventsOver(
    transport: 'graphql-ws' | 'graphql-sse',
    run: (events: Collected) => Promise<void>,
  ): Promise<void> {
    const joined = once(stack.gateway.subscriptions.hub.activity, 'joined');
    if (transport === 'graphql-ws') {
      const client = wsClient(stack.endpoint, DEMO_KEYS.premium.key);
      await run(
        await started(
          collect((sink) => client.subscribe({ query: COUNTER, variables: { id: FIXTURE_IDS.shop } }, sink)),
          joined,
        ),
      );
      await client.dispose();
    } else {
      const client = createSseClient({
        url: `${stack.origin}/graphql/stream`,
        headers: { authorization: `Bearer ${DEMO_KEYS.premium.key}` },
        retryAttempts: 0,
      });
      await run(
        await started(
          collect((sink) => client.subscribe({ query: COUNTER, variables: { id: FIXTURE_IDS.shop } }, sink)),
          joined,
        ),
      );
      client.dispose();
    }
  }

  async function started(events: Collected, joined: Promise<unknown>): Promise<Collected> {
    await joined;
    return events;
  }

  it.each(['graphql-ws', 'graphql-sse'] as const)(
    'replaces each subscription event over the limit, and the subscription goes on, over %s',
    async (transport) => {
      await eventsOver(transport, async (events) => {
        for (const amount of [5, 6]) {
          stack.simulator.change({ kind: 'counter', factoryId: FIXTURE_IDS.shop, item: 'Wasser', amount });
          const polled = once(stack.gateway.subscriptions.hub.activity, 'polled');
          clock.advance(60_000);
          await polled;
          const event = await events.next();
          expect(event.data).toBeNull();
          expect(event.errors?.map((error) => error.extensions?.code)).toEqual(['QUERY_TOO_EXPENSIVE']);
          expect(event.errors?.[0]?.message).toMatch(/MAX_RESPONSE_BYTES/);
        }
        events.stop();
      });
    },
  );
});
