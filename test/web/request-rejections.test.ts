/**
 * The gateway's own answers before execution: CSRF prevention that lets preflighted
 * requests through, error answers in the content type `Accept` asks for (GraphQL over
 * HTTP), malformed `Authorization` headers, batches, and the playground's preset headers.
 */
import { DEMO_KEYS } from '../../src/simulator';
import { examplePublicSiteConfig, startStack, useStack } from '../support';
import type { HttpStack } from '../support';

const GRAPHQL_RESPONSE = 'application/graphql-response+json; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';
const query = encodeURIComponent('{ factories { name } }');
/** Introspection only: public-site mode lets it through, so CSRF prevention is what answers. */
const typename = encodeURIComponent('{ __typename }');

describe('a batch (batching is off)', () => {
  const stack = useStack({ http: true });
  const post = (body: unknown) =>
    fetch(stack.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${DEMO_KEYS.premium.key}` },
      body: JSON.stringify(body),
    });

  it('gets one refusal per operation, runs none of them', async () => {
    const response = await post([
      { query: '{ factories { name } }' },
      { query: '{ buildings { label } }' },
      { query: '{ __typename }' },
    ]);
    expect(response.status).toBe(400);
    const body = (await response.json()) as { errors: { message: string; extensions: { code: string } }[] }[];
    expect(body).toHaveLength(3);
    for (const result of body)
      expect(result.errors).toEqual([
        { message: expect.stringMatching(/^Batched requests .* not supported/), extensions: { code: 'BAD_REQUEST' } },
      ]);
    expect(stack.simulator.requests).toEqual([]);
  });

  it('gets a single refusal for an empty or very large array', async () => {
    for (const batch of [[], Array.from({ length: 51 }, () => ({ query: '{ __typename }' }))]) {
      const response = await post(batch);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        errors: [{ message: expect.stringMatching(/^Batched requests/), extensions: { code: 'BAD_REQUEST' } }],
      });
    }
  });
});

async function answer(
  response: Response,
): Promise<{ status: number; type: string | null; codes: string[]; messages: string[] }> {
  const body = (await response.json()) as { errors?: { message: string; extensions?: { code?: string } }[] };
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    codes: (body.errors ?? []).map((e) => String(e.extensions?.code)),
    messages: (body.errors ?? []).map((e) => e.message),
  };
}

describe('requests the gateway answers itself', () => {
  const stack = useStack({ http: true, config: { ...examplePublicSiteConfig(), maxBodyBytes: 2048 } });
  describe('CSRF prevention', () => {
    it('runs a GET with Authorization and no content type (no browser sends that cross-site without a preflight)', async () => {
      const response = await fetch(`${stack.endpoint}?query=${query}`, {
        headers: { authorization: `Bearer ${DEMO_KEYS.premium.key}` },
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { data: { factories: unknown[] } }).data.factories).toHaveLength(4);
    });

    it('runs a text/plain POST that carries X-Api-Secret', async () => {
      const response = await fetch(stack.endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'text/plain',
          'x-api-secret': 'anything',
          authorization: `Bearer ${DEMO_KEYS.premium.key}`,
        },
        body: JSON.stringify({ query: '{ __typename }' }),
      });
      // Not refused as CSRF; Apollo then says it needs a JSON body.
      expect((await answer(response)).messages.join(' ')).not.toMatch(/Cross-Site Request Forgery/);
    });

    it.each([
      ['a GET without a preflight-forcing header', () => fetch(`${stack.endpoint}?query=${typename}`)],
      [
        'a GET with an empty Authorization header',
        () => fetch(`${stack.endpoint}?query=${typename}`, { headers: { authorization: '' } }),
      ],
      [
        'a text/plain POST (a form)',
        () =>
          fetch(stack.endpoint, {
            method: 'POST',
            headers: { 'content-type': 'text/plain' },
            body: JSON.stringify({ query: '{ __typename }' }),
          }),
      ],
    ])('still refuses %s', async (_name, send) => {
      const result = await answer(await send());
      expect(result.status).toBe(400);
      expect(result.messages.join(' ')).toMatch(/Cross-Site Request Forgery/);
    });
  });

  describe('error answers honour Accept', () => {
    const cases: [string, (accept: string) => Promise<Response>, number, string][] = [
      [
        'public-site refusal',
        (accept) =>
          fetch(stack.endpoint, {
            method: 'POST',
            headers: { accept, 'content-type': 'application/json' },
            body: JSON.stringify({ query: '{ factories { name } }' }),
          }),
        400,
        'FORBIDDEN_DOCUMENT',
      ],
      [
        'unknown trusted hash',
        (accept) =>
          fetch(stack.endpoint, {
            method: 'POST',
            headers: { accept, 'content-type': 'application/json' },
            body: JSON.stringify({ documentId: 'f'.repeat(64) }),
          }),
        400,
        'PERSISTED_QUERY_NOT_FOUND',
      ],
      [
        'body too large',
        (accept) =>
          fetch(stack.endpoint, {
            method: 'POST',
            headers: { accept, 'content-type': 'application/json' },
            body: JSON.stringify({ query: `{ __typename } # ${'x'.repeat(4096)}` }),
          }),
        413,
        'BAD_REQUEST',
      ],
      [
        'method not allowed',
        (accept) =>
          fetch(stack.endpoint, { method: 'PUT', headers: { accept, 'content-type': 'application/json' }, body: '{}' }),
        405,
        'METHOD_NOT_ALLOWED',
      ],
      [
        'malformed JSON',
        (accept) =>
          fetch(stack.endpoint, {
            method: 'POST',
            headers: { accept, 'content-type': 'application/json' },
            body: '{"query": ',
          }),
        400,
        'BAD_REQUEST',
      ],
      [
        'a batch',
        (accept) =>
          fetch(stack.endpoint, {
            method: 'POST',
            headers: { accept, 'content-type': 'application/json', authorization: `Bearer ${DEMO_KEYS.premium.key}` },
            body: JSON.stringify([]),
          }),
        400,
        'BAD_REQUEST',
      ],
      [
        'malformed Authorization',
        (accept) =>
          fetch(stack.endpoint, {
            method: 'POST',
            headers: { accept, 'content-type': 'application/json', authorization: 'demo-premium-key' },
            body: JSON.stringify({ query: '{ __typename }' }),
          }),
        401,
        'UNAUTHENTICATED',
      ],
    ];

    it.each(cases)(
      '%s: application/graphql-response+json when the client prefers it',
      async (_name, send, status, code) => {
        const result = await answer(await send('application/graphql-response+json, application/json;q=0.9'));
        expect(result).toMatchObject({ status, type: GRAPHQL_RESPONSE, codes: [code] });
      },
    );

    it.each(cases)(
      '%s: application/json for Accept: application/json, */* or none',
      async (_name, send, status, code) => {
        for (const accept of ['application/json', '*/*', '']) {
          expect(await answer(await send(accept))).toMatchObject({ status, type: JSON_TYPE, codes: [code] });
        }
      },
    );
  });

  describe('a malformed Authorization header', () => {
    it.each(['Bearer <your StateV API key>', 'demo-premium-key', 'Basic dXNlcjpwdw==', 'Bearer', 'Bearer a b'])(
      '%j is refused with UNAUTHENTICATED saying so, not run as "no key"',
      async (authorization) => {
        const before = stack.simulator.requests.length;
        const response = await fetch(stack.endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization },
          body: JSON.stringify({ query: '{ factories { name } }' }),
        });
        const result = await answer(response);
        expect(result).toMatchObject({ status: 401, codes: ['UNAUTHENTICATED'] });
        expect(result.messages[0]).toMatch(/Authorization header is not "Bearer <token>"/);
        expect(response.headers.get('www-authenticate')).toBe('Bearer');
        expect(stack.simulator.requests.length).toBe(before);
      },
    );
  });
});

describe('the playground', () => {
  const settingsOf = async (stack: HttpStack): Promise<unknown> => {
    const html = await (await fetch(stack.endpoint, { headers: { accept: 'text/html' } })).text();
    const match = /<script id="playground-settings" type="application\/json">(.*?)<\/script>/.exec(html);
    return match ? (JSON.parse(match[1] ?? '') as unknown) : null;
  };

  it('starts with an empty Authorization value by default', async () => {
    const stack = await startStack({ http: true });
    try {
      expect(await settingsOf(stack)).toEqual({ authorization: '' });
      const script = await (await fetch(stack.endpoint.replace('/graphql', '/playground/playground.js'))).text();
      expect(script).toContain('Put your StateV API key in the Headers tab below');
    } finally {
      await stack.close();
    }
  });

  it('starts with the demo premium key when the demo presets it', async () => {
    const stack = await startStack({ http: true, config: { playgroundApiKey: DEMO_KEYS.premium.key } });
    try {
      expect(await settingsOf(stack)).toEqual({ authorization: `Bearer ${DEMO_KEYS.premium.key}` });
    } finally {
      await stack.close();
    }
  });
});
