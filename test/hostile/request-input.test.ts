/**
 * Hostile request input: large and deep variables, unused variables, subscription
 * operations, bad UTF-8, and documents nested or chained past what a parser can recurse
 * through. Each gets a client error (4xx) before any analysis or upstream request, never
 * HTTP 500 or INTERNAL_SERVER_ERROR; unused variables are ignored without being read.
 */
import { request as httpRequest } from 'node:http';
import { print } from 'graphql';
import { createContext } from '../../src/context';
import { callerKey } from '../../src/pipeline/key-in-use';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { EconomyCounterDocument } from '../generated/graphql';
import { codes, useStack } from '../support';

/** `{"a":{"a":...}}` nested `levels` deep, as JSON text. */
function nestedJson(levels: number): string {
  return `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
}

/** POSTs raw bytes to the endpoint; returns status and parsed body. */
function postRaw(
  url: string,
  body: Buffer,
  key: string | null = DEMO_KEYS.premium.key,
): Promise<{ status: number; body: { errors?: { extensions?: { code?: string } }[] } }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'content-length': String(body.length),
    };
    if (key) headers.authorization = `Bearer ${key}`;
    const req = httpRequest(url, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as never }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const COUNTER = print(EconomyCounterDocument);

describe('hostile request input over HTTP', () => {
  const stack = useStack({ http: true, config: { maxVariablesBytes: 4096 } }, { resetSimulator: true });

  it('refuses variables over MAX_VARIABLES_BYTES with 413 before any analysis', async () => {
    const answer = await stack.post({ query: COUNTER, variables: { id: FIXTURE_IDS.shop, unused: 'x'.repeat(5000) } });
    expect(answer.status).toBe(413);
    expect(codes(answer.body)).toEqual(['BAD_REQUEST']);
    expect(stack.simulator.requests).toHaveLength(0);
  });

  it('refuses them over GET too', async () => {
    const search = new URLSearchParams({
      query: COUNTER,
      variables: JSON.stringify({ id: FIXTURE_IDS.shop, unused: 'x'.repeat(5000) }),
    });
    const response = await fetch(`${stack.endpoint}?${search.toString()}`, {
      headers: { 'apollo-require-preflight': 'true', authorization: `Bearer ${DEMO_KEYS.premium.key}` },
    });
    expect(response.status).toBe(413);
  });

  it.each([
    ['declared', 'query Q($id: ID!) { factory(id: $id) { id } }', 'id'],
    ['undeclared', '{ __typename }', 'deep'],
  ])('answers variables nested 5,000 levels (%s) with 400, not 500', async (_kind, query, name) => {
    const body = `{"query":${JSON.stringify(query)},"variables":{"${name}":${nestedJson(5000)}}}`;
    const answer = await postRaw(stack.endpoint, Buffer.from(body));
    expect(answer.status).toBe(400);
    expect(answer.body.errors?.map((e) => e.extensions?.code)).toEqual(['BAD_REQUEST']);
  });

  it('answers deep variables over GET with 400', async () => {
    const search = new URLSearchParams({ query: '{ __typename }', variables: `{"deep":${nestedJson(400)}}` });
    const response = await fetch(`${stack.endpoint}?${search.toString()}`, {
      headers: { 'apollo-require-preflight': 'true' },
    });
    expect(response.status).toBe(400);
  });

  it('answers a subscription operation with 400 and a client-error code', async () => {
    const answer = await stack.post({ query: 'subscription S { factoryChanged { id } }' });
    expect(answer.status).toBe(400);
    expect(codes(answer.body)).not.toContain('INTERNAL_SERVER_ERROR');
    expect(answer.body.errors?.length).toBeGreaterThan(0);
  });

  it('answers a body that is not UTF-8 with 400 BAD_REQUEST', async () => {
    const bad = Buffer.concat([
      Buffer.from('{"query":"{ __typename }","x":"'),
      Buffer.from([0xff, 0xfe, 0xc3, 0x28]),
      Buffer.from('"}'),
    ]);
    const answer = await postRaw(stack.endpoint, bad);
    expect(answer.status).toBe(400);
    expect(answer.body.errors?.map((e) => e.extensions?.code)).toEqual(['BAD_REQUEST']);
  });

  it('answers a document nested 5,000 levels with 400 GRAPHQL_PARSE_FAILED', async () => {
    const answer = await stack.post({ query: `{${'factories{'.repeat(5000)}id${'}'.repeat(5001)}` });
    expect(answer.status).toBe(400);
    expect(codes(answer.body)).toEqual(['GRAPHQL_PARSE_FAILED']);
  });

  it('answers a chain of 5,000 fragments with 400, not a stack overflow', async () => {
    const parts = ['query Chain { ...F0 }'];
    for (let i = 0; i < 5000; i += 1) parts.push(`fragment F${i} on Query { ...F${i + 1} }`);
    parts.push('fragment F5000 on Query { __typename }');
    const answer = await stack.post({ query: parts.join('\n') });
    expect(answer.status).toBe(400);
    expect(codes(answer.body)).not.toContain('INTERNAL_SERVER_ERROR');
  });

  it('still answers normally afterwards', async () => {
    const answer = await stack.post({ query: COUNTER, variables: { id: FIXTURE_IDS.shop } });
    expect(answer.status).toBe(200);
    expect(answer.body.errors).toBeUndefined();
  });
});

describe('variables the operation does not declare', () => {
  const stack = useStack({ config: { responseCacheEnabled: true } });

  it('are never serialized: not by the cost or bounds memo, nor by the response cache', async () => {
    let reads = 0;
    const unused = {
      toJSON() {
        reads += 1;
        return 'read';
      },
    };
    for (let i = 0; i < 2; i += 1) {
      const response = await stack.apollo.executeOperation(
        { query: COUNTER, variables: { id: FIXTURE_IDS.shop, unused } },
        {
          contextValue: createContext(
            stack.runtime.services,
            new Map(),
            callerKey({ kind: 'key', apiKey: DEMO_KEYS.premium.key }, stack.runtime.services.config.keyHashSecret),
          ),
        },
      );
      expect(response.body.kind === 'single' ? response.body.singleResult.errors : 'not single').toBeUndefined();
    }
    expect(reads).toBe(0);
  });
});
