/**
 * Keys over HTTP: the caller's key reaches the upstream unchanged, no key means
 * UNAUTHENTICATED without upstream traffic, introspection needs no key (and can be
 * switched off). Errors: stack traces only in development, never a key or secret.
 */
import { getIntrospectionQuery } from 'graphql';
import { BuildingsDocument, UpdateFactoryOptionDocument } from '../generated/graphql';
import type { UpdateFactoryOptionMutationVariables } from '../generated/graphql';
import { DEMO_KEYS, createFixtureState, FIXTURE_CHARACTERS, FIXTURE_IDS } from '../../src/simulator';
import { asObjects, bearer, codes, operationBody, parseResult, send, useStack } from '../support';
import type { HttpStack, RawResponse, Result } from '../support';

/** Premium-only fields (productions, bank accounts, tenants) that the basic key is denied. */
const PREMIUM_FIELDS_QUERY = `{
  factories { id productions { itemName } bankAccounts { id } }
  buildings { id tenants { tenantName } }
}`;

/** A secret that belongs to no key; must never be echoed. */
const WRONG_SECRET = 'wrong-secret-7f3a9c1e5b';

/** Every credential the tests send: none may appear in any response. */
const CREDENTIALS = [
  DEMO_KEYS.premium.key,
  DEMO_KEYS.premium.secret,
  DEMO_KEYS.basic.key,
  DEMO_KEYS.basic.secret,
  DEMO_KEYS.other.key,
  DEMO_KEYS.other.secret,
  WRONG_SECRET,
];

function optionInput(apiSecret?: string): UpdateFactoryOptionMutationVariables {
  return {
    input: {
      factoryId: FIXTURE_IDS.shop,
      slot: 3,
      title: 'Angebot',
      data: 'Heute 10 % auf alles',
      ...(apiSecret ? { apiSecret } : {}),
    },
  };
}

/** POSTs a body as JSON with a key (or none) and extra headers; never served from a cache. */
function postRaw(
  stack: HttpStack,
  body: unknown,
  key: string | null,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  return send(stack.gateway.url, {
    method: 'POST',
    path: '/graphql',
    headers: {
      'content-type': 'application/json',
      'cache-control': 'no-cache',
      ...(key === null ? {} : bearer(key)),
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

function expectNoCredentials(response: RawResponse): void {
  for (const credential of CREDENTIALS) expect(response.text).not.toContain(credential);
}

function stacktraces(result: Result<unknown>): unknown[] {
  return (result.errors ?? []).map((error) => error.extensions?.stacktrace);
}

describe('default configuration (production)', () => {
  const stack = useStack({ http: true }, { resetSimulator: true });

  describe('the caller’s key reaches the upstream unchanged', () => {
    it.each([
      ['premium', DEMO_KEYS.premium.key, FIXTURE_CHARACTERS.main.id],
      ['basic', DEMO_KEYS.basic.key, FIXTURE_CHARACTERS.main.id],
      ['other', DEMO_KEYS.other.key, FIXTURE_CHARACTERS.other.id],
    ])('the %s key is what the simulator sees', async (label, key, characterId) => {
      const response = await postRaw(stack, operationBody(BuildingsDocument), key);
      const result = parseResult(response);
      expect(response.status).toBe(200);
      expect(result.errors).toBeUndefined();

      const owned = createFixtureState().characters.find((c) => c.id === characterId)?.buildings ?? [];
      expect(asObjects(result.data?.buildings).map((b) => b.id)).toEqual(owned.map((b) => b.id));
      expect(stack.simulator.requests.length).toBeGreaterThan(0);
      expect(stack.simulator.requests.map((r) => r.keyLabel)).toEqual(stack.simulator.requests.map(() => label));
    });

    it('an unknown key is passed on as is and the upstream’s refusal is FORBIDDEN', async () => {
      const response = await postRaw(stack, operationBody(BuildingsDocument), 'not-a-real-key');
      const result = parseResult(response);
      expect(response.status).toBe(200);
      expect(result.data?.buildings).toBeNull();
      expect(codes(result)).toEqual(['FORBIDDEN']);
      expect(stack.simulator.requests.map((r) => r.keyLabel)).toEqual(['invalid']);
      expect(response.text).not.toContain('not-a-real-key');
    });
  });

  describe('without a key', () => {
    it('fields that need the upstream fail with UNAUTHENTICATED and nothing is sent upstream', async () => {
      const response = await postRaw(stack, operationBody(BuildingsDocument), null);
      const result = parseResult(response);
      expect(result.data).not.toBeNull();
      expect(result.data?.buildings).toBeNull();
      expect(codes(result)).toEqual(['UNAUTHENTICATED']);
      expect(result.errors?.[0]?.path).toEqual(['buildings']);
      expect(stack.simulator.requests).toHaveLength(0);
    });

    it('a mutation fails with UNAUTHENTICATED and nothing is sent upstream', async () => {
      const response = await postRaw(
        stack,
        operationBody(UpdateFactoryOptionDocument, optionInput(DEMO_KEYS.premium.secret)),
        null,
      );
      expect(codes(parseResult(response))).toEqual(['UNAUTHENTICATED']);
      expect(stack.simulator.requests).toHaveLength(0);
    });

    it('a small introspection query works', async () => {
      const response = await postRaw(
        stack,
        { query: '{ __schema { queryType { name } mutationType { name } } }' },
        null,
      );
      const result = parseResult(response);
      expect(response.status).toBe(200);
      expect(result.errors).toBeUndefined();
      expect(result.data?.__schema).toEqual({ queryType: { name: 'Query' }, mutationType: { name: 'Mutation' } });
      expect(stack.simulator.requests).toHaveLength(0);
    });

    it('the standard introspection query (GraphiQL, codegen) works', async () => {
      const response = await postRaw(stack, { query: getIntrospectionQuery() }, null);
      const result = parseResult(response);
      expect(response.status).toBe(200);
      expect(result.errors).toBeUndefined();
      const schema = result.data?.__schema as { queryType: { name: string }; types: { name: string }[] };
      expect(schema.queryType.name).toBe('Query');
      expect(schema.types.map((t) => t.name)).toEqual(expect.arrayContaining(['Factory', 'Building', 'Mutation']));
      expect(stack.simulator.requests).toHaveLength(0);
    });
  });

  describe('errors in production', () => {
    it('an upstream error carries no stacktrace', async () => {
      const response = await postRaw(stack, { query: PREMIUM_FIELDS_QUERY }, DEMO_KEYS.basic.key);
      const result = parseResult(response);
      expect(result.errors?.length).toBeGreaterThan(0);
      expect(stacktraces(result).every((trace) => trace === undefined)).toBe(true);
    });

    it('a validation error carries no stacktrace', async () => {
      const response = await postRaw(stack, { query: '{ factories { noSuchField } }' }, DEMO_KEYS.premium.key);
      const result = parseResult(response);
      expect(response.status).toBe(400);
      expect(result.errors?.length).toBeGreaterThan(0);
      expect(stacktraces(result).every((trace) => trace === undefined)).toBe(true);
    });
  });

  describe('keys and secrets never appear in a response', () => {
    it('mutation with a wrong secret in the input', async () => {
      const response = await postRaw(
        stack,
        operationBody(UpdateFactoryOptionDocument, optionInput(WRONG_SECRET)),
        DEMO_KEYS.premium.key,
      );
      const result = parseResult(response);
      expect(result.errors?.length).toBeGreaterThan(0);
      expect(codes(result)).toContain('FORBIDDEN');
      expect(stack.simulator.countRequests({ route: 'POST /factory/options' })).toBe(1);
      expectNoCredentials(response);
    });

    it('mutation with a wrong secret in the X-Api-Secret header', async () => {
      const response = await postRaw(
        stack,
        operationBody(UpdateFactoryOptionDocument, optionInput()),
        DEMO_KEYS.premium.key,
        {
          'x-api-secret': WRONG_SECRET,
        },
      );
      const result = parseResult(response);
      expect(result.errors?.length).toBeGreaterThan(0);
      expect(stack.simulator.countRequests({ route: 'POST /factory/options' })).toBe(1);
      expectNoCredentials(response);
    });

    it('mutation with the basic key (no factory.options.edit) and its own secret', async () => {
      const response = await postRaw(
        stack,
        operationBody(UpdateFactoryOptionDocument, optionInput(DEMO_KEYS.basic.secret)),
        DEMO_KEYS.basic.key,
      );
      expect(parseResult(response).errors?.length).toBeGreaterThan(0);
      expectNoCredentials(response);
    });

    it('basic key on premium-only fields', async () => {
      const response = await postRaw(stack, { query: PREMIUM_FIELDS_QUERY }, DEMO_KEYS.basic.key);
      const result = parseResult(response);
      expect(result.errors?.length).toBeGreaterThan(0);
      for (const error of result.errors ?? [])
        expect(['FORBIDDEN', 'UPSTREAM_BAD_REQUEST']).toContain(error.extensions?.code);
      expectNoCredentials(response);
    });
  });
});

describe('nodeEnv: development', () => {
  const stack = useStack({ http: true, config: { nodeEnv: 'development' } });

  it('an upstream error carries a stacktrace', async () => {
    const response = await postRaw(stack, { query: PREMIUM_FIELDS_QUERY }, DEMO_KEYS.basic.key);
    const result = parseResult(response);
    expect(result.errors?.length).toBeGreaterThan(0);
    for (const trace of stacktraces(result)) {
      expect(Array.isArray(trace)).toBe(true);
      expect((trace as unknown[]).length).toBeGreaterThan(0);
    }
  });

  it('still never shows a key or secret, stack traces included', async () => {
    const wrong = await postRaw(
      stack,
      operationBody(UpdateFactoryOptionDocument, optionInput(WRONG_SECRET)),
      DEMO_KEYS.premium.key,
    );
    expect(parseResult(wrong).errors?.length).toBeGreaterThan(0);
    expectNoCredentials(wrong);
    const denied = await postRaw(stack, { query: PREMIUM_FIELDS_QUERY }, DEMO_KEYS.basic.key);
    expect(parseResult(denied).errors?.length).toBeGreaterThan(0);
    expectNoCredentials(denied);
  });
});

describe('introspection: false', () => {
  const stack = useStack({ http: true, config: { introspection: false } });

  const INTROSPECTION = '{ __schema { queryType { name } } }';

  it('refuses introspection with 400, no data and no upstream request', async () => {
    stack.simulator.reset();
    const response = await postRaw(stack, { query: INTROSPECTION }, DEMO_KEYS.premium.key);
    const result = parseResult(response);
    expect(response.status).toBe(400);
    expect(result.data ?? null).toBeNull();
    expect(result.errors?.length).toBeGreaterThan(0);
    expect(stack.simulator.requests).toHaveLength(0);
  });

  it('says why: GRAPHQL_VALIDATION_FAILED, naming introspection', async () => {
    const result = parseResult(await postRaw(stack, { query: INTROSPECTION }, DEMO_KEYS.premium.key));
    expect(codes(result)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(result.errors?.[0]?.message).toMatch(/introspection/i);
  });

  it('refuses __type as well', async () => {
    const result = parseResult(
      await postRaw(stack, { query: '{ __type(name: "Query") { name } }' }, DEMO_KEYS.premium.key),
    );
    expect(result.data ?? null).toBeNull();
    expect(result.errors?.length).toBeGreaterThan(0);
  });

  it('still answers ordinary queries', async () => {
    const response = await postRaw(stack, operationBody(BuildingsDocument), DEMO_KEYS.premium.key);
    expect(response.status).toBe(200);
    expect(parseResult(response).errors).toBeUndefined();
  });
});
