/**
 * Unit tests of the upstream HTTP client (src/upstream/client.ts).
 *
 * Almost all tests run against undici's MockAgent with strict mocks: net connect is
 * disabled and every test must consume every interceptor it registers. One block at
 * the end uses a real `node:http` server on 127.0.0.1 (loopback only) to exercise the
 * client's own Agent: a real headers/body timeout, connection reuse after error
 * statuses (body consumption) and a refused connection.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockAgent, errors } from 'undici';
import type { Interceptable } from 'undici';
import { UpstreamError } from '../../src/errors/gateway-error';
import { UpstreamClient } from '../../src/upstream/client';
import { parseRetryAfter } from '../../src/upstream/upstream-failures';
import { upstreamMessage } from '../../src/upstream/upstream-texts';
import type { UpstreamObservation } from '../../src/upstream/client';
import { until, useFakeTimersWithRealIo } from '../support';
import { ENDPOINTS, buildPath } from '../../src/upstream/endpoints';

const ORIGIN = 'https://api.test';
const BASE_URL = `${ORIGIN}/req`;
const KEY = 'demo-premium-key';
const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

/** Awaits a promise that must reject with an UpstreamError and returns that error. */
async function expectUpstreamError(promise: Promise<unknown>): Promise<UpstreamError> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  if (!(caught instanceof UpstreamError)) {
    throw new Error(`expected an UpstreamError, got ${caught === undefined ? 'a resolved promise' : String(caught)}`);
  }
  return caught;
}

/** The upstream's error body, per section 7 of the REST API reference. */
function errorBody(statusCode: number, message: string | string[], error: string): string {
  return JSON.stringify({ statusCode, message, error });
}

describe('UpstreamClient with MockAgent (strict mocks)', () => {
  let mockAgent: MockAgent;
  let pool: Interceptable;
  let client: UpstreamClient;

  beforeEach(() => {
    mockAgent = new MockAgent({ enableCallHistory: true });
    mockAgent.disableNetConnect();
    pool = mockAgent.get(ORIGIN);
    client = new UpstreamClient({ baseUrl: BASE_URL, timeoutMs: 1000, dispatcher: mockAgent });
  });

  afterEach(async () => {
    try {
      mockAgent.assertNoPendingInterceptors();
    } finally {
      await client.close();
      await mockAgent.close();
    }
  });

  /** The single request the test made, as MockAgent recorded it. */
  function onlyCall() {
    const calls = mockAgent.getCallHistory()?.calls() ?? [];
    expect(calls).toHaveLength(1);
    const [call] = calls;
    if (!call) throw new Error('no call recorded');
    return call;
  }

  describe('the request', () => {
    it('sends GET with the full path below /req, the bearer key unchanged and accept json', async () => {
      pool
        .intercept({
          path: '/req/factory/list/',
          method: 'GET',
          headers: { authorization: `Bearer ${KEY}`, accept: 'application/json' },
        })
        .reply(200, [{ id: 'f1' }], { headers: JSON_HEADERS });

      await expect(client.call({ endpoint: ENDPOINTS.factoryList, apiKey: KEY })).resolves.toEqual([{ id: 'f1' }]);

      const call = onlyCall();
      expect(call.method).toBe('GET');
      expect(call.fullUrl).toBe('https://api.test/req/factory/list/');
      expect(call.headers).toMatchObject({ authorization: `Bearer ${KEY}`, accept: 'application/json' });
      expect(call.headers).not.toHaveProperty('content-type');
      expect(call.body ?? undefined).toBeUndefined();
      expect(String((call.headers ?? {})['user-agent'])).toMatch(/^statev-graphql-gateway\//);
    });

    it('forwards a key with unusual characters byte for byte', async () => {
      const oddKey = 'Ab+/=_-.~9';
      pool
        .intercept({ path: '/req/building/list', method: 'GET', headers: { authorization: `Bearer ${oddKey}` } })
        .reply(200, [], { headers: JSON_HEADERS });

      await expect(client.call({ endpoint: ENDPOINTS.buildingList, apiKey: oddKey })).resolves.toEqual([]);
      expect(onlyCall().headers).toMatchObject({ authorization: `Bearer ${oddKey}` });
    });

    it('fills and URL-encodes every path parameter', async () => {
      const params = { bankId: 'a/b c', limit: 25, skip: 0 };
      expect(buildPath(ENDPOINTS.factoryTransactions, params)).toBe('/factory/transactions/a%2Fb%20c/25/0');

      pool
        .intercept({ path: '/req/factory/transactions/a%2Fb%20c/25/0', method: 'GET' })
        .reply(200, { transactions: [] }, { headers: JSON_HEADERS });

      await expect(client.call({ endpoint: ENDPOINTS.factoryTransactions, params, apiKey: KEY })).resolves.toEqual({
        transactions: [],
      });
      expect(onlyCall().path).toBe('/req/factory/transactions/a%2Fb%20c/25/0');
    });

    it('encodes characters that would otherwise change the URL (?, #, %, ..)', async () => {
      pool
        .intercept({ path: '/req/factory/inventory/x%3Fy%23z%25', method: 'GET' })
        .reply(200, {}, { headers: JSON_HEADERS });
      await client.call({ endpoint: ENDPOINTS.factoryInventory, params: { id: 'x?y#z%' }, apiKey: KEY });
      expect(onlyCall().fullUrl).toBe('https://api.test/req/factory/inventory/x%3Fy%23z%25');
    });

    it('rejects a missing path parameter before any request', async () => {
      expect(() => buildPath(ENDPOINTS.factoryInventory, {})).toThrow(
        'Missing path parameter id for GET /factory/inventory/{id}',
      );
      await expect(client.call({ endpoint: ENDPOINTS.factoryInventory, apiKey: KEY })).rejects.toThrow(
        'Missing path parameter id',
      );
      expect(mockAgent.getCallHistory()?.calls() ?? []).toHaveLength(0);
    });

    it('strips trailing slashes of the base URL', async () => {
      const slashed = new UpstreamClient({ baseUrl: `${BASE_URL}//`, timeoutMs: 1000, dispatcher: mockAgent });
      pool.intercept({ path: '/req/building/list', method: 'GET' }).reply(200, [], { headers: JSON_HEADERS });
      await expect(slashed.call({ endpoint: ENDPOINTS.buildingList, apiKey: KEY })).resolves.toEqual([]);
      await slashed.close();
      expect(onlyCall().path).toBe('/req/building/list');
    });

    it('sends POST with a JSON body and content-type application/json', async () => {
      const body = { id: 'f1', slot: 2, title: 'Über "x"', data: 'a\nb' };
      pool
        .intercept({
          path: '/req/factory/options',
          method: 'POST',
          headers: {
            authorization: `Bearer ${KEY}`,
            accept: 'application/json',
            'content-type': 'application/json',
          },
          body: (sent: string) => {
            const parsed: unknown = JSON.parse(sent);
            return JSON.stringify(parsed) === JSON.stringify(body);
          },
        })
        .reply((opts) => {
          // Inspect the raw options the client dispatched as well.
          expect(opts.method).toBe('POST');
          expect(opts.path).toBe('/req/factory/options');
          expect(typeof opts.body).toBe('string');
          expect(JSON.parse(String(opts.body))).toEqual(body);
          return {
            statusCode: 200,
            data: JSON.stringify('option was updated'),
            responseOptions: { headers: JSON_HEADERS },
          };
        });

      await expect(client.call({ endpoint: ENDPOINTS.factoryOptionUpdate, apiKey: KEY, body })).resolves.toBe(
        'option was updated',
      );
      const call = onlyCall();
      expect(call.method).toBe('POST');
      expect(call.headers).toMatchObject({ 'content-type': 'application/json' });
      expect(JSON.parse(String(call.body))).toEqual(body);
    });

    it('the header matchers are strict: a different key does not match (and the key is redacted)', async () => {
      pool
        .intercept({ path: '/req/factory/list/', method: 'GET', headers: { authorization: 'Bearer someone-else' } })
        .reply(200, [], { headers: JSON_HEADERS });

      const error = await expectUpstreamError(client.call({ endpoint: ENDPOINTS.factoryList, apiKey: KEY }));
      expect(error.code).toBe('UPSTREAM_ERROR');
      expect(error.upstream.status).toBeNull();
      // MockAgent's "not matched" message echoes the request headers: the key must be redacted.
      expect(error.message).not.toContain(KEY);
      expect(JSON.stringify(error.extensions)).not.toContain(KEY);
      // This test deliberately leaves its interceptor unused.
      pool.cleanMocks();
    });
  });

  describe('2xx bodies', () => {
    it('parses JSON', async () => {
      pool
        .intercept({ path: '/req/factory/inventory/42', method: 'GET' })
        .reply(200, JSON.stringify({ items: [{ name: 'Holz', amount: 3 }] }), {
          headers: { 'content-type': 'application/json' },
        });
      await expect(
        client.call({ endpoint: ENDPOINTS.factoryInventory, params: { id: 42 }, apiKey: KEY }),
      ).resolves.toEqual({ items: [{ name: 'Holz', amount: 3 }] });
    });

    it('parses JSON of a +json media type', async () => {
      pool
        .intercept({ path: '/req/building/list', method: 'GET' })
        .reply(200, '{"a":1}', { headers: { 'content-type': 'application/vnd.statev+json' } });
      await expect(client.call({ endpoint: ENDPOINTS.buildingList, apiKey: KEY })).resolves.toEqual({ a: 1 });
    });

    it('returns text/plain as the string', async () => {
      pool
        .intercept({ path: '/req/building/list', method: 'GET' })
        .reply(200, '{"looks":"like json"}', { headers: { 'content-type': 'text/plain; charset=utf-8' } });
      await expect(client.call({ endpoint: ENDPOINTS.buildingList, apiKey: KEY })).resolves.toBe(
        '{"looks":"like json"}',
      );
    });

    it('returns a JSON string body as the JS string', async () => {
      pool
        .intercept({ path: '/req/factory/options', method: 'POST' })
        .reply(201, '"option was updated"', { headers: { 'content-type': 'application/json' } });
      const result = await client.call({
        endpoint: ENDPOINTS.factoryOptionUpdate,
        apiKey: KEY,
        body: { id: 'f1', slot: 1, title: 't', data: 'd' },
      });
      expect(result).toBe('option was updated');
    });

    it('returns null for an empty JSON body', async () => {
      pool
        .intercept({ path: '/req/building/list', method: 'GET' })
        .reply(204, '', { headers: { 'content-type': 'application/json' } });
      await expect(client.call({ endpoint: ENDPOINTS.buildingList, apiKey: KEY })).resolves.toBeNull();
    });

    it('turns invalid JSON in a 2xx into UPSTREAM_ERROR with status 200 and the route', async () => {
      pool
        .intercept({ path: '/req/factory/list/', method: 'GET' })
        .reply(200, '{"truncated": [', { headers: { 'content-type': 'application/json' } });

      const error = await expectUpstreamError(client.call({ endpoint: ENDPOINTS.factoryList, apiKey: KEY }));
      expect(error.code).toBe('UPSTREAM_ERROR');
      expect(error.extensions.code).toBe('UPSTREAM_ERROR');
      expect(error.extensions.upstream).toEqual({
        status: 200,
        endpoint: 'GET /factory/list/',
        message: 'invalid JSON in the response',
      });
      expect(error.endpoint).toBe(ENDPOINTS.factoryList);
      expect(error.message).toContain('GET /factory/list/');
    });
  });

  describe('status mapping', () => {
    it('400 → UPSTREAM_BAD_REQUEST with requiredScopes and the upstream message string', async () => {
      pool
        .intercept({ path: '/req/factory/inventory/7', method: 'GET' })
        .reply(400, errorBody(400, 'Missing scope factory.inventory', 'Bad Request'), { headers: JSON_HEADERS });

      const error = await expectUpstreamError(
        client.call({ endpoint: ENDPOINTS.factoryInventory, params: { id: 7 }, apiKey: KEY }),
      );
      expect(error.code).toBe('UPSTREAM_BAD_REQUEST');
      expect(error.extensions.requiredScopes).toEqual(['factory', 'factory.inventory']);
      expect(error.extensions.requiredScopes).toEqual([...ENDPOINTS.factoryInventory.scopes]);
      expect(error.extensions.upstream).toEqual({
        status: 400,
        endpoint: 'GET /factory/inventory/{id}',
        message: 'Missing scope factory.inventory',
      });
      expect(error.extensions).not.toHaveProperty('premium');
      expect(error.message).toContain('Missing scope factory.inventory');
    });

    it('400 with a message array joins the messages', async () => {
      pool
        .intercept({ path: '/req/factory/options', method: 'POST' })
        .reply(400, errorBody(400, ['title must be shorter', 'slot must be an integer'], 'Bad Request'), {
          headers: JSON_HEADERS,
        });

      const error = await expectUpstreamError(
        client.call({ endpoint: ENDPOINTS.factoryOptionUpdate, apiKey: KEY, body: { id: 'f', slot: 'x' } }),
      );
      expect(error.code).toBe('UPSTREAM_BAD_REQUEST');
      expect(error.extensions.requiredScopes).toEqual(['factory', 'factory.options.edit']);
      expect(error.upstream).toEqual({
        status: 400,
        endpoint: 'POST /factory/options',
        message: 'title must be shorter; slot must be an integer',
      });
    });

    it('requiredScopes is a copy, not the frozen catalog array', async () => {
      pool
        .intercept({ path: '/req/factory/list/', method: 'GET' })
        .reply(400, errorBody(400, 'x', 'Bad Request'), { headers: JSON_HEADERS });
      const error = await expectUpstreamError(client.call({ endpoint: ENDPOINTS.factoryList, apiKey: KEY }));
      expect(error.extensions.requiredScopes).not.toBe(ENDPOINTS.factoryList.scopes);
      expect(error.extensions.requiredScopes).toEqual(['factory']);
    });

    it('401 on a premium endpoint → FORBIDDEN with premium: true and requiredScopes', async () => {
      pool
        .intercept({ path: '/req/factory/productions/abc', method: 'GET' })
        .reply(401, errorBody(401, 'Unauthorized', 'Unauthorized'), { headers: JSON_HEADERS });

      const error = await expectUpstreamError(
        client.call({ endpoint: ENDPOINTS.factoryProductions, params: { id: 'abc' }, apiKey: KEY }),
      );
      expect(error.code).toBe('FORBIDDEN');
      expect(error.extensions.premium).toBe(true);
      expect(error.extensions.requiredScopes).toEqual(['factory', 'factory.productions']);
      expect(error.extensions.upstream).toEqual({
        status: 401,
        endpoint: 'GET /factory/productions/{id}',
        message: 'Unauthorized',
      });
      expect(error.message).toContain('premium-only');
    });

    it('401 on a non-premium endpoint → FORBIDDEN without premium', async () => {
      pool
        .intercept({ path: '/req/factory/inventory/abc', method: 'GET' })
        .reply(401, errorBody(401, 'Invalid API key', 'Unauthorized'), { headers: JSON_HEADERS });

      const error = await expectUpstreamError(
        client.call({ endpoint: ENDPOINTS.factoryInventory, params: { id: 'abc' }, apiKey: KEY }),
      );
      expect(error.code).toBe('FORBIDDEN');
      expect(error.extensions).not.toHaveProperty('premium');
      expect(error.extensions.requiredScopes).toEqual(['factory', 'factory.inventory']);
      expect(error.upstream.status).toBe(401);
      expect(error.upstream.endpoint).toBe('GET /factory/inventory/{id}');
    });

    it('403 is treated like 401 (FORBIDDEN)', async () => {
      pool
        .intercept({ path: '/req/building/bankaccounts/1', method: 'GET' })
        .reply(403, 'Forbidden', { headers: { 'content-type': 'text/plain' } });
      const error = await expectUpstreamError(
        client.call({ endpoint: ENDPOINTS.buildingBankAccounts, params: { id: 1 }, apiKey: KEY }),
      );
      expect(error.code).toBe('FORBIDDEN');
      expect(error.extensions.premium).toBe(true);
      expect(error.upstream).toEqual({
        status: 403,
        endpoint: 'GET /building/bankaccounts/{id}',
        message: 'Forbidden',
      });
    });

    it('404 → NOT_FOUND with only upstream', async () => {
      pool
        .intercept({ path: '/req/building/details/99', method: 'GET' })
        .reply(404, errorBody(404, 'Building not found', 'Not Found'), { headers: JSON_HEADERS });

      const error = await expectUpstreamError(
        client.call({ endpoint: ENDPOINTS.buildingDetails, params: { id: 99 }, apiKey: KEY }),
      );
      expect(error.code).toBe('NOT_FOUND');
      expect(error.extensions).toEqual({
        code: 'NOT_FOUND',
        upstream: { status: 404, endpoint: 'GET /building/details/{id}', message: 'Building not found' },
      });
    });

    it('429 with Retry-After: 7 → RATE_LIMITED retryAfterSeconds 7', async () => {
      pool
        .intercept({ path: '/req/factory/list/', method: 'GET' })
        .reply(429, errorBody(429, 'ThrottlerException: Too Many Requests', 'Too Many Requests'), {
          headers: { ...JSON_HEADERS, 'retry-after': '7' },
        });

      const error = await expectUpstreamError(client.call({ endpoint: ENDPOINTS.factoryList, apiKey: KEY }));
      expect(error.code).toBe('RATE_LIMITED');
      expect(error.extensions.retryAfterSeconds).toBe(7);
      expect(error.upstream).toEqual({
        status: 429,
        endpoint: 'GET /factory/list/',
        message: 'ThrottlerException: Too Many Requests',
      });
    });

    it('429 with an HTTP-date Retry-After → seconds until that date', async () => {
      // Exact arithmetic through parseRetryAfter with a fixed "now".
      const now = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');
      expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:30 GMT', now)).toBe(30);
      expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:30 GMT', now + 500)).toBe(30); // rounds up
      expect(parseRetryAfter('Wed, 21 Oct 2015 07:27:00 GMT', now)).toBe(0); // in the past → 0, not negative

      // Through the client: one hour ahead, whole seconds, so the value lies in (3590, 3601].
      const ahead = new Date(Math.floor(Date.now() / 1000) * 1000 + 3_600_000).toUTCString();
      pool
        .intercept({ path: '/req/market/import', method: 'GET' })
        .reply(429, errorBody(429, 'Too Many Requests', 'Too Many Requests'), {
          headers: { ...JSON_HEADERS, 'retry-after': ahead },
        });
      const error = await expectUpstreamError(client.call({ endpoint: ENDPOINTS.importAuctions, apiKey: KEY }));
      expect(error.code).toBe('RATE_LIMITED');
      const seconds = error.extensions.retryAfterSeconds;
      expect(typeof seconds).toBe('number');
      expect(seconds).toBeGreaterThan(3590);
      expect(seconds).toBeLessThanOrEqual(3600);
    });

    it('429 without Retry-After → retryAfterSeconds null', async () => {
      pool.intercept({ path: '/req/factory/list/', method: 'GET' }).reply(429, '', { headers: JSON_HEADERS });
      const error = await expectUpstreamError(client.call({ endpoint: ENDPOINTS.factoryList, apiKey: KEY }));
      expect(error.code).toBe('RATE_LIMITED');
      expect(error.extensions).toHaveProperty('retryAfterSeconds', null);
      expect(error.upstream.message).toBe('HTTP 429');
    });

    it.each([500, 502, 503])('%i → UPSTREAM_ERROR', async (status) => {
      pool
        .intercept({ path: '/req/factory/counter/5', method: 'GET' })
        .reply(status, errorBody(status, 'upstream broke', 'Internal'), { headers: JSON_HEADERS });
      const error = await expectUpstreamError(
        client.call({ endpoint: ENDPOINTS.factoryCounter, params: { id: 5 }, apiKey: KEY }),
      );
      expect(error.code).toBe('UPSTREAM_ERROR');
      expect(error.extensions.upstream).toEqual({
        status,
        endpoint: 'GET /factory/counter/{id}',
        message: 'upstream broke',
      });
      expect(error.extensions).not.toHaveProperty('requiredScopes');
    });

    it('5xx with an HTML body keeps 200 characters of its text, without markup, as message; the whole text is its detail', async () => {
      const html = `<html><body><b>${'x'.repeat(2000)}</b></body></html>`;
      pool
        .intercept({ path: '/req/building/list', method: 'GET' })
        .reply(502, html, { headers: { 'content-type': 'text/html' } });
      const error = await expectUpstreamError(client.call({ endpoint: ENDPOINTS.buildingList, apiKey: KEY }));
      expect(error.code).toBe('UPSTREAM_ERROR');
      expect(error.upstream.message).toBe('x'.repeat(200));
      expect(error.detail).toBe(`HTTP 502: ${html}`);
    });

    it('5xx with invalid JSON declared as JSON still maps by status', async () => {
      pool
        .intercept({ path: '/req/building/list', method: 'GET' })
        .reply(503, 'Service Unavailable', { headers: JSON_HEADERS });
      const error = await expectUpstreamError(client.call({ endpoint: ENDPOINTS.buildingList, apiKey: KEY }));
      expect(error.code).toBe('UPSTREAM_ERROR');
      expect(error.upstream).toEqual({ status: 503, endpoint: 'GET /building/list', message: 'Service Unavailable' });
    });

    it('504 → UPSTREAM_TIMEOUT', async () => {
      pool.intercept({ path: '/req/factory/machine/3', method: 'GET' }).reply(504, '', {});
      const error = await expectUpstreamError(
        client.call({ endpoint: ENDPOINTS.factoryMachine, params: { id: 3 }, apiKey: KEY }),
      );
      expect(error.code).toBe('UPSTREAM_TIMEOUT');
      expect(error.extensions.upstream).toEqual({
        status: 504,
        endpoint: 'GET /factory/machine/{id}',
        message: 'HTTP 504',
      });
    });

    it('the endpoint in errors is the route pattern, never the concrete path', async () => {
      pool
        .intercept({ path: '/req/factory/buyLog/secret-company/10/20', method: 'GET' })
        .reply(404, errorBody(404, 'nothing', 'Not Found'), { headers: JSON_HEADERS });
      const error = await expectUpstreamError(
        client.call({
          endpoint: ENDPOINTS.factoryBuyLog,
          params: { id: 'secret-company', limit: 10, skip: 20 },
          apiKey: KEY,
        }),
      );
      expect(error.upstream.endpoint).toBe('GET /factory/buyLog/{id}/{limit}/{skip}');
      expect(JSON.stringify(error.extensions)).not.toContain('secret-company');
      expect(error.message).not.toContain('secret-company');
    });
  });

  describe('transport failures (classified by err.code)', () => {
    it.each([
      ['HeadersTimeoutError', () => new errors.HeadersTimeoutError(), 'UND_ERR_HEADERS_TIMEOUT'],
      ['BodyTimeoutError', () => new errors.BodyTimeoutError(), 'UND_ERR_BODY_TIMEOUT'],
      ['ConnectTimeoutError', () => new errors.ConnectTimeoutError(), 'UND_ERR_CONNECT_TIMEOUT'],
    ])('%s → UPSTREAM_TIMEOUT with status null', async (_name, makeError, code) => {
      pool.intercept({ path: '/req/factory/inventory/1', method: 'GET' }).replyWithError(makeError());
      const error = await expectUpstreamError(
        client.call({ endpoint: ENDPOINTS.factoryInventory, params: { id: 1 }, apiKey: KEY }),
      );
      expect(error.code).toBe('UPSTREAM_TIMEOUT');
      expect(error.upstream.status).toBeNull();
      expect(error.upstream.endpoint).toBe('GET /factory/inventory/{id}');
      expect(error.upstream.message.startsWith(`${code}: `)).toBe(true);
    });

    it('an ETIMEDOUT socket error → UPSTREAM_TIMEOUT', async () => {
      const timedOut = Object.assign(new Error('connect ETIMEDOUT 10.0.0.1:443'), { code: 'ETIMEDOUT' });
      pool.intercept({ path: '/req/building/list', method: 'GET' }).replyWithError(timedOut);
      const error = await expectUpstreamError(client.call({ endpoint: ENDPOINTS.buildingList, apiKey: KEY }));
      expect(error.code).toBe('UPSTREAM_TIMEOUT');
    });

    it('a SocketError → UPSTREAM_ERROR with status null', async () => {
      pool
        .intercept({ path: '/req/building/list', method: 'GET' })
        .replyWithError(new errors.SocketError('other side closed'));
      const error = await expectUpstreamError(client.call({ endpoint: ENDPOINTS.buildingList, apiKey: KEY }));
      expect(error.code).toBe('UPSTREAM_ERROR');
      expect(error.extensions.upstream).toEqual({
        status: null,
        endpoint: 'GET /building/list',
        message: 'UND_ERR_SOCKET: other side closed',
      });
      expect(error.message).toContain('no response');
    });

    it('ECONNREFUSED → UPSTREAM_ERROR with status null', async () => {
      const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:443'), { code: 'ECONNREFUSED' });
      pool.intercept({ path: '/req/building/list', method: 'GET' }).replyWithError(refused);
      const error = await expectUpstreamError(client.call({ endpoint: ENDPOINTS.buildingList, apiKey: KEY }));
      expect(error.code).toBe('UPSTREAM_ERROR');
      expect(error.upstream.status).toBeNull();
      expect(error.upstream.message).toBe('ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:443');
    });

    it('a timeout code on the cause is found too', async () => {
      const wrapped = new Error('wrapped', { cause: new errors.ConnectTimeoutError() });
      pool.intercept({ path: '/req/building/list', method: 'GET' }).replyWithError(wrapped);
      const error = await expectUpstreamError(client.call({ endpoint: ENDPOINTS.buildingList, apiKey: KEY }));
      expect(error.code).toBe('UPSTREAM_TIMEOUT');
      expect(error.upstream.message).toBe('UND_ERR_CONNECT_TIMEOUT: wrapped');
    });

    it('an error without any code → UPSTREAM_ERROR with its message', async () => {
      pool.intercept({ path: '/req/building/list', method: 'GET' }).replyWithError(new Error('boom'));
      const error = await expectUpstreamError(client.call({ endpoint: ENDPOINTS.buildingList, apiKey: KEY }));
      expect(error.code).toBe('UPSTREAM_ERROR');
      expect(error.upstream).toEqual({ status: null, endpoint: 'GET /building/list', message: 'boom' });
    });
  });

  describe('the key never appears in an error', () => {
    it('redacts a 400 message that echoes the key', async () => {
      pool
        .intercept({ path: '/req/factory/list/', method: 'GET' })
        .reply(400, errorBody(400, `invalid key ${KEY}`, 'Bad Request'), { headers: JSON_HEADERS });

      const error = await expectUpstreamError(client.call({ endpoint: ENDPOINTS.factoryList, apiKey: KEY }));
      expect(error.code).toBe('UPSTREAM_BAD_REQUEST');
      expect(error.message).not.toContain(KEY);
      expect(JSON.stringify(error.extensions)).not.toContain(KEY);
      expect(JSON.stringify(error.upstream)).not.toContain(KEY);
      expect(error.upstream.message).toBe('invalid key [redacted]');
    });

    it('redacts every occurrence, in message arrays and plain text bodies too', async () => {
      pool
        .intercept({ path: '/req/factory/list/', method: 'GET' })
        .reply(401, errorBody(401, [`key ${KEY} unknown`, `(${KEY})`], 'Unauthorized'), { headers: JSON_HEADERS });
      pool
        .intercept({ path: '/req/building/list', method: 'GET' })
        .reply(500, `Bearer ${KEY} rejected`, { headers: { 'content-type': 'text/plain' } });

      const first = await expectUpstreamError(client.call({ endpoint: ENDPOINTS.factoryList, apiKey: KEY }));
      const second = await expectUpstreamError(client.call({ endpoint: ENDPOINTS.buildingList, apiKey: KEY }));
      for (const error of [first, second]) {
        expect(error.message).not.toContain(KEY);
        expect(JSON.stringify(error.extensions)).not.toContain(KEY);
      }
      expect(first.upstream.message).toBe('key [redacted] unknown; ([redacted])');
      expect(second.upstream.message).toBe('Bearer [redacted] rejected');
    });

    // The key is redacted before the text is cut to 500 characters, so no prefix survives.
    it('redacts a key that straddles the 500-character cut of a text body', async () => {
      pool
        .intercept({ path: '/req/building/list', method: 'GET' })
        .reply(500, `${'x'.repeat(490)}${KEY}`, { headers: { 'content-type': 'text/plain' } });
      const error = await expectUpstreamError(client.call({ endpoint: ENDPOINTS.buildingList, apiKey: KEY }));
      expect(error.upstream.message).not.toContain(KEY.slice(0, 10));
    });

    it('redacts a transport error message that contains the key', async () => {
      pool
        .intercept({ path: '/req/building/list', method: 'GET' })
        .replyWithError(new errors.SocketError(`reset while sending ${KEY}`));
      const error = await expectUpstreamError(client.call({ endpoint: ENDPOINTS.buildingList, apiKey: KEY }));
      expect(error.message).not.toContain(KEY);
      expect(JSON.stringify(error.extensions)).not.toContain(KEY);
    });
  });

  describe('the body is always consumed', () => {
    it('20 × 500 in a row still complete, and the next request succeeds', async () => {
      pool
        .intercept({ path: '/req/building/list', method: 'GET' })
        .reply(500, errorBody(500, 'Internal server error', 'Internal Server Error'), { headers: JSON_HEADERS })
        .times(20);
      pool.intercept({ path: '/req/building/list', method: 'GET' }).reply(200, [{ id: 1 }], { headers: JSON_HEADERS });

      for (let i = 0; i < 20; i += 1) {
        const error = await expectUpstreamError(client.call({ endpoint: ENDPOINTS.buildingList, apiKey: KEY }));
        expect(error.code).toBe('UPSTREAM_ERROR');
        expect(error.upstream.message).toBe('Internal server error');
      }
      await expect(client.call({ endpoint: ENDPOINTS.buildingList, apiKey: KEY })).resolves.toEqual([{ id: 1 }]);
      expect(mockAgent.getCallHistory()?.calls() ?? []).toHaveLength(21);
    });

    it('concurrent error responses all settle', async () => {
      pool
        .intercept({ path: '/req/factory/list/', method: 'GET' })
        .reply(404, errorBody(404, 'nope', 'Not Found'), { headers: JSON_HEADERS })
        .times(20);
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, () => client.call({ endpoint: ENDPOINTS.factoryList, apiKey: KEY })),
      );
      expect(
        results.every(
          (r) => r.status === 'rejected' && r.reason instanceof UpstreamError && r.reason.code === 'NOT_FOUND',
        ),
      ).toBe(true);
    });
  });

  describe('observe()', () => {
    it('reports route and status for a success, without errorCode', async () => {
      const seen: UpstreamObservation[] = [];
      client.observe((o) => seen.push(o));
      pool.intercept({ path: '/req/factory/inventory/9', method: 'GET' }).reply(200, {}, { headers: JSON_HEADERS });

      await client.call({ endpoint: ENDPOINTS.factoryInventory, params: { id: 9 }, apiKey: KEY });
      expect(seen).toHaveLength(1);
      const [observation] = seen;
      expect(observation).toMatchObject({ route: 'GET /factory/inventory/{id}', status: 200 });
      expect(observation).not.toHaveProperty('errorCode');
      expect(typeof observation?.durationMs).toBe('number');
      expect(observation?.durationMs).toBeGreaterThanOrEqual(0);
    });

    it('reports status and errorCode for failures (status and transport), to every observer', async () => {
      const first: UpstreamObservation[] = [];
      const second: UpstreamObservation[] = [];
      client.observe((o) => first.push(o));
      client.observe((o) => second.push(o));
      pool.intercept({ path: '/req/factory/list/', method: 'GET' }).reply(429, '', { headers: { 'retry-after': '3' } });
      pool.intercept({ path: '/req/factory/list/', method: 'GET' }).replyWithError(new errors.HeadersTimeoutError());
      pool.intercept({ path: '/req/factory/list/', method: 'GET' }).reply(200, 'not json', { headers: JSON_HEADERS });

      await expectUpstreamError(client.call({ endpoint: ENDPOINTS.factoryList, apiKey: KEY }));
      await expectUpstreamError(client.call({ endpoint: ENDPOINTS.factoryList, apiKey: KEY }));
      await expectUpstreamError(client.call({ endpoint: ENDPOINTS.factoryList, apiKey: KEY }));

      const strip = (o: UpstreamObservation) => ({ route: o.route, status: o.status, errorCode: o.errorCode });
      const expected = [
        { route: 'GET /factory/list/', status: 429, errorCode: 'RATE_LIMITED' },
        { route: 'GET /factory/list/', status: null, errorCode: 'UPSTREAM_TIMEOUT' },
        { route: 'GET /factory/list/', status: 200, errorCode: 'UPSTREAM_ERROR' },
      ];
      expect(first.map(strip)).toEqual(expected);
      expect(second.map(strip)).toEqual(expected);
      expect(JSON.stringify(first)).not.toContain(KEY);
    });
  });
});

describe('upstreamMessage()', () => {
  it.each<[string, unknown, string]>([
    ['the message string', { statusCode: 400, message: 'bad', error: 'Bad Request' }, 'bad'],
    ['a message array joined with "; "', { statusCode: 400, message: ['a', 'b'], error: 'Bad Request' }, 'a; b'],
    ['non-strings in the array dropped', { message: ['a', 3, null, 'b'] }, 'a; b'],
    ['the error phrase when message is missing', { statusCode: 404, error: 'Not Found' }, 'Not Found'],
    ['the error phrase when message is not a string', { message: 42, error: 'Bad Request' }, 'Bad Request'],
    ['an empty string for an empty object', {}, ''],
    ['an empty string for null', null, ''],
    ['an empty string for undefined', undefined, ''],
    ['an empty string for a number', 500, ''],
    ['an empty string for an array body', ['x'], ''],
    ['a string body as is', 'plain failure', 'plain failure'],
    ['an empty string body as empty', '', ''],
  ])('returns %s', (_label, body, expected) => {
    expect(upstreamMessage(body)).toBe(expected);
  });

  it('truncates a text body to 200 characters', () => {
    const long = 'y'.repeat(201);
    expect(upstreamMessage(long)).toHaveLength(200);
    expect(upstreamMessage('z'.repeat(200))).toBe('z'.repeat(200));
  });

  it.each<[string, string, string]>([
    ['tags', '<h1>Bad <b>Gateway</b></h1>', 'Bad Gateway'],
    [
      'script and style elements with their content',
      '<style>p{}</style>a<script>x<y</script>b<SCRIPT src=x></SCRIPT>c',
      'a b c',
    ],
    ['comments', 'a<!-- hidden -->b', 'a b'],
    ['an unclosed tag, to the end', 'a <div class="x', 'a'],
    ['an unclosed script, to the end', 'a <script>never', 'a'],
    ['runs of whitespace', ' a \n\t b ', 'a b'],
  ])('strips markup: %s', (_label, text, expected) => {
    expect(upstreamMessage(text)).toBe(expected);
  });

  it('keeps a "<" that starts no tag', () => {
    expect(upstreamMessage('1 < 2 and 3 <= 4')).toBe('1 < 2 and 3 <= 4');
  });
});

describe('parseRetryAfter()', () => {
  const now = Date.parse('2024-05-01T12:00:00.000Z');

  it.each<[string, string | string[] | undefined, number | null]>([
    ['delay-seconds', '7', 7],
    ['zero', '0', 0],
    ['surrounding whitespace', '  12  ', 12],
    ['leading zeros', '007', 7],
    ['the first of several values', ['5', '9'], 5],
    ['an absent header', undefined, null],
    ['an empty header', '', null],
    ['a blank header', '   ', null],
    ['an empty array', [], null],
    ['garbage', 'soon', null],
    ['a unit suffix', '7s', null],
    ['an IMF-fixdate 90 s ahead', 'Wed, 01 May 2024 12:01:30 GMT', 90],
    ['an IMF-fixdate in the past', 'Wed, 01 May 2024 11:00:00 GMT', 0],
    ['an RFC 850 date', 'Wednesday, 01-May-24 12:00:10 GMT', 10],
    ['an asctime-style date with an explicit GMT', 'Wed May  1 12:00:05 2024 GMT', 5],
  ])('%s', (_label, value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });

  it('rounds a fractional remainder up', () => {
    expect(parseRetryAfter('Wed, 01 May 2024 12:00:01 GMT', now + 1)).toBe(1);
    expect(parseRetryAfter('Wed, 01 May 2024 12:00:01 GMT', now + 999)).toBe(1);
    expect(parseRetryAfter('Wed, 01 May 2024 12:00:01 GMT', now + 1000)).toBe(0);
  });

  it('defaults "now" to the current time', () => {
    const inAMinute = new Date(Math.floor(Date.now() / 1000) * 1000 + 60_000).toUTCString();
    const seconds = parseRetryAfter(inAMinute);
    expect(seconds).not.toBeNull();
    expect(seconds).toBeGreaterThan(50);
    expect(seconds).toBeLessThanOrEqual(60);
  });

  // V8's lenient Date.parse would read "1.5" or "-1" as dates in 2001 ("retry now"); only
  // delay-seconds and HTTP dates count, anything else is unreadable (default backoff).
  it.each<[string]>([['1.5'], ['-1'], ['+5'], ['abc 12']])('treats the malformed value %p as unreadable', (value) => {
    expect(parseRetryAfter(value, now)).toBeNull();
  });
});

describe('UpstreamClient with its own Agent against a loopback server', () => {
  let server: http.Server;
  let connections = 0;
  let baseUrl = '';
  let client: UpstreamClient | undefined;
  let handler: (req: http.IncomingMessage, res: http.ServerResponse) => void = () => undefined;

  beforeEach(async () => {
    connections = 0;
    handler = () => undefined;
    server = http.createServer((req, res) => handler(req, res));
    server.on('connection', () => {
      connections += 1;
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    baseUrl = `http://127.0.0.1:${port}/req`;
  });

  afterEach(async () => {
    // Drop the server's sockets first so the client's pool has nothing left in flight.
    server.closeAllConnections();
    await client?.close();
    client = undefined;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('a server that never answers → UPSTREAM_TIMEOUT (headers timeout)', async () => {
    let received = 0;
    handler = () => {
      received += 1; // never answers
    };
    client = new UpstreamClient({ baseUrl, timeoutMs: 200 });
    const observed: UpstreamObservation[] = [];
    client.observe((o) => observed.push(o));

    // The deadline is faked, so it cannot pass before the request reaches the server on a loaded machine.
    useFakeTimersWithRealIo();
    let error: UpstreamError;
    try {
      const pending = expectUpstreamError(client.call({ endpoint: ENDPOINTS.factoryList, apiKey: KEY }));
      await until(() => received === 1, 'the request at the server');
      jest.advanceTimersByTime(200);
      error = await pending;
    } finally {
      jest.useRealTimers();
    }
    expect(received).toBe(1);
    expect(error.code).toBe('UPSTREAM_TIMEOUT');
    expect(error.upstream.status).toBeNull();
    expect(error.upstream.endpoint).toBe('GET /factory/list/');
    expect(error.upstream.message).toMatch(/within the 200 ms deadline/);
    expect(observed.map((o) => o.errorCode)).toEqual(['UPSTREAM_TIMEOUT']);
  });

  it('a body that stalls after the headers → UPSTREAM_TIMEOUT (body timeout)', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[1,'); // and never ends
    };
    client = new UpstreamClient({ baseUrl, timeoutMs: 200 });
    const error = await expectUpstreamError(client.call({ endpoint: ENDPOINTS.factoryList, apiKey: KEY }));
    expect(error.code).toBe('UPSTREAM_TIMEOUT');
    expect(error.upstream.message).toMatch(/within the 200 ms deadline/);
  });

  it('consumes error bodies: 20 × 500 and a 200 all reuse one keep-alive connection', async () => {
    const seen: Array<{ method?: string; url?: string; authorization?: string }> = [];
    let count = 0;
    handler = (req, res) => {
      seen.push({ method: req.method, url: req.url, authorization: req.headers.authorization });
      count += 1;
      const status = count <= 20 ? 500 : 200;
      const body = status === 500 ? errorBody(500, 'x'.repeat(64 * 1024), 'Internal Server Error') : '[]';
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    };
    client = new UpstreamClient({ baseUrl, timeoutMs: 2000, connections: 1 });

    for (let i = 0; i < 20; i += 1) {
      const error = await expectUpstreamError(client.call({ endpoint: ENDPOINTS.buildingList, apiKey: KEY }));
      expect(error.code).toBe('UPSTREAM_ERROR');
      expect(error.upstream.status).toBe(500);
    }
    await expect(client.call({ endpoint: ENDPOINTS.buildingList, apiKey: KEY })).resolves.toEqual([]);

    expect(seen).toHaveLength(21);
    expect(seen[0]).toEqual({ method: 'GET', url: '/req/building/list', authorization: `Bearer ${KEY}` });
    // A body left unread would keep the socket busy; reading it returns the socket to the pool.
    expect(connections).toBe(1);
  });

  it('sends the POST body over the wire as JSON', async () => {
    let received: { method?: string; url?: string; contentType?: string; body: string } | undefined;
    handler = (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received = {
          method: req.method,
          url: req.url,
          contentType: req.headers['content-type'],
          body: Buffer.concat(chunks).toString('utf8'),
        };
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end('"option was updated"');
      });
    };
    client = new UpstreamClient({ baseUrl, timeoutMs: 2000 });
    const body = { id: 'f1', slot: 1, title: 'Ä', data: '{"x":1}' };
    await expect(client.call({ endpoint: ENDPOINTS.factoryOptionUpdate, apiKey: KEY, body })).resolves.toBe(
      'option was updated',
    );
    expect(received).toEqual({
      method: 'POST',
      url: '/req/factory/options',
      contentType: 'application/json',
      body: JSON.stringify(body),
    });
  });

  it('a refused connection → UPSTREAM_ERROR with status null', async () => {
    // A port that was just free: listen, note it, close.
    const spare = http.createServer();
    await new Promise<void>((resolve) => spare.listen(0, '127.0.0.1', resolve));
    const { port } = spare.address() as AddressInfo;
    await new Promise<void>((resolve) => spare.close(() => resolve()));

    client = new UpstreamClient({ baseUrl: `http://127.0.0.1:${port}/req`, timeoutMs: 2000 });
    const error = await expectUpstreamError(client.call({ endpoint: ENDPOINTS.buildingList, apiKey: KEY }));
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.upstream.status).toBeNull();
    expect(error.upstream.message).toMatch(/^ECONNREFUSED: /);
  });
});
