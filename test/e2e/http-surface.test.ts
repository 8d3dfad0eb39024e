/**
 * The HTTP surface of the gateway: GET and POST /graphql, CSRF prevention, health check,
 * unknown paths and methods, body limits, malformed JSON and argument bounds.
 */
import { BuildingsDocument, BuyLogPageDocument, UpdateFactoryOptionMessageOnlyDocument } from '../generated/graphql';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import {
  asObjects,
  bearer,
  codes,
  exchangeOnOneConnection,
  mainCharacter,
  operationBody,
  operationSearch,
  parseResult,
  send,
  useStack,
} from '../support';

/** A header that satisfies the `csrf` step (Apollo's CSRF prevention) on a GET. */
const PREFLIGHT = { 'apollo-require-preflight': 'true' };
const JSON_CONTENT = { 'content-type': 'application/json' };
const MAX_BODY_BYTES = 2048;

const stack = useStack({ http: true }, { resetSimulator: true });

const origin = (): string => stack.gateway.url;

describe('GET /graphql', () => {
  it('answers a query given in the query string', async () => {
    const response = await send(origin(), {
      path: `/graphql${operationSearch(BuildingsDocument)}`,
      headers: { ...PREFLIGHT, ...bearer(), 'cache-control': 'no-cache' },
    });
    const result = parseResult(response);
    expect(response.status).toBe(200);
    expect(result.errors).toBeUndefined();
    expect(asObjects(result.data?.buildings).map((b) => b.id)).toEqual(mainCharacter().buildings.map((b) => b.id));
    expect(stack.simulator.countRequests({ route: 'GET /building/list' })).toBe(1);
  });

  it('passes variables from the query string', async () => {
    const response = await send(origin(), {
      path: `/graphql${operationSearch(BuyLogPageDocument, { id: FIXTURE_IDS.workshop, limit: 3, skip: 0 })}`,
      headers: { ...PREFLIGHT, ...bearer(), 'cache-control': 'no-cache' },
    });
    const result = parseResult(response);
    expect(response.status).toBe(200);
    expect(result.errors).toBeUndefined();
    const factory = result.data?.factory as { buyLog: unknown[] } | null;
    expect(factory?.buyLog).toHaveLength(3);
  });

  it('refuses a mutation with 405 and sends nothing upstream', async () => {
    const variables = {
      input: {
        factoryId: FIXTURE_IDS.shop,
        slot: 3,
        title: 'via GET',
        data: 'must not be written',
        apiSecret: DEMO_KEYS.premium.secret,
      },
    };
    const response = await send(origin(), {
      path: `/graphql${operationSearch(UpdateFactoryOptionMessageOnlyDocument, variables)}`,
      headers: { ...PREFLIGHT, ...bearer() },
    });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toMatch(/POST/);
    expect(stack.simulator.requests).toHaveLength(0);
  });
});

describe('CSRF prevention', () => {
  it('blocks a GET with no content-type and no preflight-forcing header (400), before any upstream request', async () => {
    const response = await send(origin(), {
      path: `/graphql${operationSearch(BuildingsDocument)}`,
    });
    expect(response.status).toBe(400);
    expect(response.text).toMatch(/CSRF/);
    expect(response.text).not.toMatch(/"buildings"/);
    expect(stack.simulator.requests).toHaveLength(0);
  });

  it('blocks a POST with a simple content-type (text/plain) and no preflight-forcing header', async () => {
    const response = await send(origin(), {
      method: 'POST',
      path: '/graphql',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify(operationBody(BuildingsDocument)),
    });
    expect(response.status).toBe(400);
    expect(response.text).toMatch(/CSRF/);
    expect(stack.simulator.requests).toHaveLength(0);
  });

  it('lets a GET through with Authorization (no browser sends it cross-site without a preflight)', async () => {
    const response = await send(origin(), {
      path: `/graphql${operationSearch(BuildingsDocument)}`,
      headers: bearer(),
    });
    expect(response.status).toBe(200);
    expect(parseResult(response).errors).toBeUndefined();
  });

  it('lets a GET through with x-apollo-operation-name', async () => {
    const response = await send(origin(), {
      path: `/graphql${operationSearch(BuildingsDocument)}`,
      headers: { 'x-apollo-operation-name': 'Buildings', ...bearer() },
    });
    expect(response.status).toBe(200);
    expect(parseResult(response).errors).toBeUndefined();
  });

  it('lets a normal JSON POST through', async () => {
    const response = await stack.post(operationBody(BuildingsDocument));
    expect(response.status).toBe(200);
    expect(response.body.errors).toBeUndefined();
    expect(asObjects(response.body.data?.buildings)).toHaveLength(mainCharacter().buildings.length);
  });
});

describe('other paths and methods', () => {
  it('GET /healthz answers 200', async () => {
    const response = await send(origin(), { path: '/healthz' });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.text)).toEqual({ status: 'ok' });
  });

  it('GET /favicon.ico answers 204, cacheable, so a browser on the playground logs no 404', async () => {
    const response = await send(origin(), { path: '/favicon.ico' });
    expect(response.status).toBe(204);
    expect(response.headers.get('cache-control')).toBe('public, max-age=86400');
  });

  it('an unknown path answers 404', async () => {
    const response = await send(origin(), { path: '/nope', headers: bearer() });
    expect(response.status).toBe(404);
    expect(stack.simulator.requests).toHaveLength(0);
  });

  it('PUT /graphql answers 405 with Allow: GET, POST', async () => {
    const response = await send(origin(), {
      method: 'PUT',
      path: '/graphql',
      headers: { ...JSON_CONTENT, ...bearer() },
      body: JSON.stringify(operationBody(BuildingsDocument)),
    });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, POST');
    expect(stack.simulator.requests).toHaveLength(0);
  });
});

describe('bad requests', () => {
  it('buyLog(limit: 51) answers HTTP 400 BAD_USER_INPUT without any upstream request', async () => {
    const response = await stack.post(
      operationBody(BuyLogPageDocument, { id: FIXTURE_IDS.workshop, limit: 51, skip: 0 }),
    );
    expect(response.status).toBe(400);
    expect(codes(response.body)).toEqual(['BAD_USER_INPUT']);
    expect(response.body.data ?? null).toBeNull();
    expect(stack.simulator.requests).toHaveLength(0);
  });

  it('the same bound written as a literal is refused the same way', async () => {
    const query = `{ factory(id: "${FIXTURE_IDS.workshop}") { buyLog(limit: 51) { seller } } }`;
    const response = await stack.post({ query });
    expect(response.status).toBe(400);
    expect(codes(response.body)).toEqual(['BAD_USER_INPUT']);
    expect(stack.simulator.requests).toHaveLength(0);
  });

  it('an invalid JSON body answers 400 without any upstream request', async () => {
    const response = await send(origin(), {
      method: 'POST',
      path: '/graphql',
      headers: { ...JSON_CONTENT, ...bearer() },
      body: '{"query": "{ buildings { id } }"',
    });
    expect(response.status).toBe(400);
    expect(parseResult(response).errors?.length).toBeGreaterThan(0);
    expect(stack.simulator.requests).toHaveLength(0);
  });

  it('a syntax error answers 400 GRAPHQL_PARSE_FAILED without any upstream request', async () => {
    const response = await stack.post({ query: '{ factories { id ' });
    expect(response.status).toBe(400);
    expect(codes(response.body)).toEqual(['GRAPHQL_PARSE_FAILED']);
    expect(stack.simulator.requests).toHaveLength(0);
  });

  it('an unknown field answers 400 GRAPHQL_VALIDATION_FAILED naming the field', async () => {
    const response = await stack.post({ query: '{ factories { noSuchField } }' });
    expect(response.status).toBe(400);
    expect(codes(response.body)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(response.body.errors?.[0]?.message).toMatch(/noSuchField/);
    expect(stack.simulator.requests).toHaveLength(0);
  });

  it('a variable of the wrong type answers 400 BAD_USER_INPUT without any upstream request', async () => {
    const response = await stack.post({
      ...operationBody(BuyLogPageDocument),
      variables: { id: FIXTURE_IDS.workshop, limit: 'ten', skip: 0 },
    });
    expect(response.status).toBe(400);
    expect(codes(response.body)).toEqual(['BAD_USER_INPUT']);
    expect(stack.simulator.requests).toHaveLength(0);
  });
});

describe('body size limit (maxBodyBytes: 2048)', () => {
  // Its own stack: an oversized upload must not disturb the connections other tests use.
  const limited = useStack({ http: true, config: { maxBodyBytes: MAX_BODY_BYTES } });

  /** A valid operation padded with a long variable: only its size is wrong. */
  const paddedBody = (padding: number): string =>
    JSON.stringify({ ...operationBody(BuildingsDocument), variables: { padding: 'x'.repeat(padding) } });

  it('a body over the limit answers 413 without any upstream request', async () => {
    limited.simulator.reset();
    const response = await send(limited.gateway.url, {
      method: 'POST',
      path: '/graphql',
      headers: { ...JSON_CONTENT, ...bearer() },
      body: paddedBody(MAX_BODY_BYTES * 4),
    });
    expect(response.status).toBe(413);
    expect(parseResult(response).errors?.length).toBeGreaterThan(0);
    expect(limited.simulator.requests).toHaveLength(0);
  });

  it('a body of exactly the limit is accepted', async () => {
    const base = JSON.stringify(operationBody(BuildingsDocument));
    const body = `${base}${' '.repeat(MAX_BODY_BYTES - Buffer.byteLength(base))}`;
    expect(Buffer.byteLength(body)).toBe(MAX_BODY_BYTES);
    const response = await send(limited.gateway.url, {
      method: 'POST',
      path: '/graphql',
      headers: { ...JSON_CONTENT, ...bearer() },
      body,
    });
    expect(response.status).toBe(200);
    expect(parseResult(response).errors).toBeUndefined();
  });

  it('after a 413 for a 1 MiB upload the connection is closed or still answers', async () => {
    const body = paddedBody(1024 * 1024);
    const request =
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: keep-alive\r\n\r\n${body}`;
    const outcome = await exchangeOnOneConnection(limited.gateway.url, request);
    expect(outcome.first.status).toBe(413);
    // Either the gateway announces that it closes the connection (it does not read the rest
    // of the upload), or it drained the upload and answers the next request on it.
    if (outcome.first.headers.connection?.toLowerCase() !== 'close') {
      expect(outcome.second ?? '(connection closed without an answer)').toMatch(/^HTTP\/1\.1 200 /);
    }
  });
});
