/**
 * CORS on /graphql: preflights and actual requests from allowed origins get a grant naming
 * the headers a browser client needs (authorization, content-type, x-api-secret); other
 * origins, and every origin when CORS_ORIGINS is unset, get no Access-Control-Allow-Origin
 * (so the browser withholds the answer).
 */
import type { GatewayConfig } from '../../src/config';
import { DEMO_KEYS } from '../../src/simulator';
import { useStack } from '../support';
import type { HttpStack } from '../support';

const SITE = 'https://firma.example';
const OTHER_SITE = 'https://evil.example';

/** Sends a browser-style preflight for a POST with authorization and content-type. */
async function preflight(stack: HttpStack, origin: string): Promise<Response> {
  return fetch(stack.endpoint, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type, x-api-secret',
    },
  });
}

/** Sends an actual cross-origin POST with the premium demo key. */
async function crossOriginPost(stack: HttpStack, origin: string): Promise<Response> {
  return fetch(stack.endpoint, {
    method: 'POST',
    headers: { origin, 'content-type': 'application/json', authorization: `Bearer ${DEMO_KEYS.premium.key}` },
    body: JSON.stringify({ query: '{ __typename }' }),
  });
}

/** The comma-separated, lower-cased entries of a header. */
function list(response: Response, name: string): string[] {
  return (response.headers.get(name) ?? '')
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '');
}

/** Runs the tests of a describe block against a gateway with the given config. */
function withStack(config: Partial<GatewayConfig>): () => HttpStack {
  const stack = useStack({ http: true, config });
  return () => stack;
}

describe('with CORS_ORIGINS=https://firma.example', () => {
  const stack = withStack({ corsOrigins: [SITE] });

  it('answers a preflight from the allowed origin with 204 and the needed methods and headers', async () => {
    const response = await preflight(stack(), SITE);
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(SITE);
    expect(list(response, 'access-control-allow-methods')).toEqual(expect.arrayContaining(['get', 'post']));
    expect(list(response, 'access-control-allow-headers')).toEqual(
      expect.arrayContaining([
        'authorization',
        'content-type',
        'x-api-secret',
        'apollo-require-preflight',
        'cache-control',
      ]),
    );
    expect(stack().simulator.requests).toHaveLength(0);
  });

  it('grants the actual request from the allowed origin', async () => {
    const response = await crossOriginPost(stack(), SITE);
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(SITE);
    expect(await response.json()).toMatchObject({ data: { __typename: 'Query' } });
  });

  it('gives another origin no grant, on the preflight and on the actual request', async () => {
    const pre = await preflight(stack(), OTHER_SITE);
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
    const actual = await crossOriginPost(stack(), OTHER_SITE);
    expect(actual.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('with CORS_ORIGINS=*', () => {
  const stack = withStack({ corsOrigins: ['*'] });

  it.each([SITE, OTHER_SITE, 'http://127.0.0.1:8080'])('allows the origin %s', async (origin) => {
    const pre = await preflight(stack(), origin);
    expect(pre.status).toBe(204);
    expect([origin, '*']).toContain(pre.headers.get('access-control-allow-origin'));
    expect(list(pre, 'access-control-allow-headers')).toEqual(
      expect.arrayContaining(['authorization', 'content-type', 'x-api-secret']),
    );
    const actual = await crossOriginPost(stack(), origin);
    expect([origin, '*']).toContain(actual.headers.get('access-control-allow-origin'));
  });
});

describe('without CORS_ORIGINS (the default)', () => {
  const stack = withStack({});

  it('sends no CORS headers to any origin', async () => {
    for (const origin of [SITE, OTHER_SITE]) {
      for (const response of [await preflight(stack(), origin), await crossOriginPost(stack(), origin)]) {
        const corsHeaders = [...response.headers.keys()].filter((name) => name.startsWith('access-control-'));
        expect(corsHeaders).toEqual([]);
      }
    }
  });
});
