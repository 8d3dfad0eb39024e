/**
 * One pipeline, every transport: each hostile or bad-input case of the HTTP suites
 * (test/hostile, test/web, the bounds, cost, depth, introspection, trusted-document and
 * public-site tests) is sent over HTTP POST, HTTP GET, graphql-ws and graphql-sse, and
 * must be answered with the same error codes everywhere, before any upstream request.
 *
 * Not in the table, because they are about HTTP framing, not the operation: bodies that
 * are not UTF-8 or JSON, methods, CSRF, and subscription operations over plain HTTP.
 * Batches, bodies over MAX_BODY_BYTES and the other refusals are compared byte for byte
 * at the end.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GatewayConfig } from '../../src/config';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { createClient as createSseClient } from 'graphql-sse';
import { operationCapRefusal } from '../../src/pipeline/refusals';
import { startStack, testVault, useStack } from '../support';
import type { HttpStack } from '../support';
import { until } from '../support/clock';
import { LineCollector } from '../support/logs';
import { collect, wsClient } from '../subscriptions/clients';
import type { Received } from '../subscriptions/clients';
import { over, TRANSPORTS } from './over';
import { errorsText, RAW_TRANSPORTS, rawOver } from './raw';
import type { RawAnswer, RawTransport } from './raw';
import type { OperationBody, Outcome, TransportName } from './over';

const KEY = `Bearer ${DEMO_KEYS.premium.key}`;

/** `{"a":{"a":...}}` nested `levels` deep. */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { a: 1 };
  for (let i = 1; i < levels; i += 1) value = { a: value };
  return value;
}

/** `levels` fragments on Query, each spreading the next four times; the last selects `leaf`. */
function fanOut(levels: number, leaf: string): string {
  const parts = ['query FanOut { ...F0 }'];
  for (let i = 0; i < levels - 1; i += 1)
    parts.push(`fragment F${i} on Query { ...F${i + 1} ...F${i + 1} ...F${i + 1} ...F${i + 1} }`);
  parts.push(`fragment F${levels - 1} on Query { ${leaf} }`);
  return parts.join('\n');
}

/** 369 aliases of a lean introspection: the amplification attack (39 KB asking for about 10 MB). */
const INTROSPECTION_ALIASES = `{ ${Array.from({ length: 369 }, (_, i) => `a${i}: __schema { types { name fields { name type { name } } } }`).join(' ')} }`;

/** A case: the request, the key sent, the codes expected on every transport, and whether it fits in a URL. */
interface Case {
  name: string;
  body: OperationBody;
  authorization: string | null;
  codes: string[];
  /** False when the request is too large for a GET query string. */
  get?: boolean;
}

const MAX_UPSTREAM_REQUESTS = 50;
const MAX_RESPONSE_BYTES = 4096;

const CASES: Case[] = [
  {
    name: 'a malformed Authorization value',
    body: { query: '{ factories { id } }' },
    authorization: DEMO_KEYS.premium.key,
    codes: ['UNAUTHENTICATED'],
  },
  {
    name: 'a placeholder key',
    body: { query: '{ __typename }' },
    authorization: 'Bearer <your StateV API key>',
    codes: ['UNAUTHENTICATED'],
  },
  {
    name: 'variables over MAX_VARIABLES_BYTES',
    body: {
      query: 'query Q($id: ID!) { factory(id: $id) { id } }',
      variables: { id: FIXTURE_IDS.shop, unused: 'x'.repeat(5000) },
    },
    authorization: KEY,
    codes: ['BAD_REQUEST'],
  },
  {
    name: 'variables nested 200 levels',
    body: { query: '{ __typename }', variables: { deep: nested(200) } },
    authorization: KEY,
    codes: ['BAD_REQUEST'],
  },
  {
    name: 'a document nested 300 levels',
    body: { query: `{${'factories{'.repeat(300)}id${'}'.repeat(301)}` },
    authorization: KEY,
    codes: ['GRAPHQL_PARSE_FAILED'],
  },
  {
    name: 'a syntax error',
    body: { query: '{ factories { id }' },
    authorization: KEY,
    codes: ['GRAPHQL_PARSE_FAILED'],
  },
  {
    name: 'a document over MAX_DOCUMENT_TOKENS',
    body: { query: `{ ${'__typename '.repeat(10_001)}}` },
    authorization: KEY,
    codes: ['GRAPHQL_PARSE_FAILED'],
    get: false,
  },
  {
    name: 'a chain of 5,000 fragments',
    body: {
      query: [
        'query Chain { ...F0 }',
        ...Array.from({ length: 5000 }, (_, i) => `fragment F${i} on Query { ...F${i + 1} }`),
        'fragment F5000 on Query { __typename }',
      ].join('\n'),
    },
    authorization: KEY,
    codes: ['GRAPHQL_PARSE_FAILED'],
    get: false,
  },
  {
    name: 'an unknown field',
    body: { query: '{ factories { nope } }' },
    authorization: KEY,
    codes: ['GRAPHQL_VALIDATION_FAILED'],
  },
  {
    name: 'an operation deeper than MAX_DEPTH',
    body: {
      query: `{ building(id: "1") { tenants { room { ${'tenant { room { '.repeat(6)}id${' } }'.repeat(6)} } } } }`,
    },
    authorization: KEY,
    codes: ['QUERY_TOO_EXPENSIVE'],
  },
  {
    name: 'a fan-out fragment document over the cost limit',
    body: { query: fanOut(16, 'factories { id }') },
    authorization: KEY,
    codes: ['QUERY_TOO_EXPENSIVE'],
  },
  {
    name: 'an operation over MAX_UPSTREAM_REQUESTS',
    body: { query: '{ factories { options { title } } }' },
    authorization: KEY,
    codes: ['QUERY_TOO_EXPENSIVE'],
  },
  {
    name: 'an argument out of bounds (inline)',
    body: { query: `{ factory(id: "${FIXTURE_IDS.shop}") { buyLog(limit: 500) { buyer } } }` },
    authorization: KEY,
    codes: ['BAD_USER_INPUT'],
  },
  {
    name: 'an argument out of bounds (variable)',
    body: {
      query: 'query Q($id: ID!, $skip: Int!) { factory(id: $id) { buyLog(skip: $skip) { buyer } } }',
      variables: { id: FIXTURE_IDS.shop, skip: 5000 },
    },
    authorization: KEY,
    codes: ['BAD_USER_INPUT'],
  },
  {
    name: 'a title of 65 emoji (string length bound, counted as the upstream counts)',
    body: {
      query: 'mutation W($input: UpdateFactoryOptionInput!) { updateFactoryOption(input: $input) { message } }',
      variables: {
        input: {
          factoryId: FIXTURE_IDS.shop,
          slot: 2,
          title: '\u{1F96A}'.repeat(65),
          data: 'ok',
          apiSecret: DEMO_KEYS.premium.secret,
        },
      },
    },
    authorization: KEY,
    codes: ['BAD_USER_INPUT'],
    get: false, // a mutation over GET is refused by method, before the bound
  },
  {
    name: 'declared variables nested 200 levels',
    body: { query: 'query Q($id: ID!) { factory(id: $id) { id } }', variables: { id: nested(200) } },
    authorization: KEY,
    codes: ['BAD_REQUEST'],
  },
  {
    name: 'a variable that does not coerce',
    body: { query: 'query Q($id: ID!) { factory(id: $id) { id } }', variables: { id: { no: 1 } } },
    authorization: KEY,
    codes: ['BAD_USER_INPUT'],
  },
  {
    name: 'introspection amplified by 369 aliases',
    body: { query: INTROSPECTION_ALIASES },
    authorization: null,
    codes: ['QUERY_TOO_EXPENSIVE'],
    get: false,
  },
  {
    name: 'an answer over MAX_RESPONSE_BYTES',
    body: { query: '{ __schema { types { name fields { name } } } }' },
    authorization: null,
    codes: ['QUERY_TOO_EXPENSIVE'],
  },
  {
    name: 'a fan-out fragment document of __typename (answered)',
    body: { query: fanOut(16, '__typename') },
    authorization: KEY,
    codes: [],
  },
  {
    name: 'introspection without a key (answered)',
    body: { query: '{ __schema { queryType { name } } }' },
    authorization: null,
    codes: [],
  },
];

/** The trusted documents of the public-site cases. */
const SITE_QUERY = 'query SitePage($id: ID!) { factory(id: $id) { id name } }';
const SITE_WRITE =
  'mutation SiteWrite($id: ID!) { updateFactoryOption(input: { factoryId: $id, slot: 3, title: "Guestbook", data: "hi" }) { message } }';
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

const PUBLIC_CASES: Case[] = [
  {
    name: 'a keyless query that is not a trusted document',
    body: { query: '{ factories { id } }' },
    authorization: null,
    codes: ['FORBIDDEN_DOCUMENT'],
  },
  {
    name: 'a keyless trusted document sent as text',
    body: { query: SITE_QUERY, variables: { id: FIXTURE_IDS.shop } },
    authorization: null,
    codes: ['FORBIDDEN_DOCUMENT'],
  },
  {
    name: 'a keyless unknown hash',
    body: { documentId: sha256('query Unknown { factories { id } }') },
    authorization: null,
    codes: ['PERSISTED_QUERY_NOT_FOUND'],
  },
  {
    name: 'a keyless unknown hash (APQ form)',
    body: { extensions: { persistedQuery: { version: 1, sha256Hash: 'f'.repeat(64) } } },
    authorization: null,
    codes: ['PERSISTED_QUERY_NOT_FOUND'],
  },
  {
    name: 'a keyless trusted write without a server secret',
    body: { documentId: sha256(SITE_WRITE), variables: { id: FIXTURE_IDS.shop } },
    authorization: null,
    codes: ['FORBIDDEN_DOCUMENT'],
    get: false,
  },
  {
    name: 'a keyless trusted document by hash (answered with the server key)',
    body: { documentId: sha256(SITE_QUERY), variables: { id: FIXTURE_IDS.shop } },
    authorization: null,
    codes: [],
  },
  {
    name: 'a keyless fan-out document of __typename (introspection only, answered)',
    body: { query: fanOut(16, '__typename') },
    authorization: null,
    codes: [],
  },
  {
    name: 'a keyless fan-out document with an upstream field',
    body: { query: fanOut(16, 'factories { id }') },
    authorization: null,
    codes: ['FORBIDDEN_DOCUMENT'],
  },
  {
    name: 'a malformed key in public-site mode',
    body: { documentId: sha256(SITE_QUERY), variables: { id: FIXTURE_IDS.shop } },
    authorization: 'Token abc',
    codes: ['UNAUTHENTICATED'],
  },
];

/** Every (case, transport) pair a case applies to. */
function table(cases: Case[]): Array<[string, TransportName, Case]> {
  return cases.flatMap((entry) =>
    TRANSPORTS.filter((transport) => transport !== 'http-get' || entry.get !== false).map(
      (transport): [string, TransportName, Case] => [entry.name, transport, entry],
    ),
  );
}

function describeTable(
  title: string,
  config: () => Partial<GatewayConfig>,
  cases: Case[],
  upstreamFree: (entry: Case) => boolean,
): void {
  describe(title, () => {
    // A function: what `config` reads is prepared in beforeAll hooks.
    const stack = useStack(() => ({
      http: true,
      config: {
        maxVariablesBytes: 4096,
        maxUpstreamRequests: MAX_UPSTREAM_REQUESTS,
        maxResponseBytes: MAX_RESPONSE_BYTES,
        ...config(),
      },
    }));
    it.each(table(cases))('%s over %s', async (_name, transport, entry) => {
      stack.simulator.reset();
      const outcome = await over(transport, stack, entry.body, entry.authorization);
      expect(outcome.codes).toEqual(entry.codes);
      if (upstreamFree(entry)) expect(stack.simulator.requests).toHaveLength(0);
    });
  });
}

describeTable(
  'bad input over every transport',
  () => ({}),
  CASES,
  () => true,
);

describe('introspection switched off over every transport', () => {
  const stack = useStack({ http: true, config: { introspection: false } });
  it.each(TRANSPORTS)(
    'refuses __schema with GRAPHQL_VALIDATION_FAILED over %s, and still answers __typename',
    async (transport) => {
      expect((await over(transport, stack, { query: '{ __schema { queryType { name } } }' }, KEY)).codes).toEqual([
        'GRAPHQL_VALIDATION_FAILED',
      ]);
      expect((await over(transport, stack, { query: '{ __typename }' }, KEY)).codes).toEqual([]);
    },
  );
});

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'statev-pipeline-'));
  writeFileSync(
    join(dir, 'trusted.json'),
    JSON.stringify({ [sha256(SITE_QUERY)]: SITE_QUERY, [sha256(SITE_WRITE)]: SITE_WRITE }),
  );
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describeTable(
  'public-site mode over every transport',
  () => ({ serverApiKey: DEMO_KEYS.premium.key, trustedDocumentsPath: join(dir, 'trusted.json') }),
  PUBLIC_CASES,
  (entry) => entry.codes.length > 0,
);

/**
 * Partial failures: the result phase (src/pipeline/result-steps.ts) runs on every
 * transport, so an answer with some items or fields missing carries the same `data`, the
 * same errors (codes and paths) and the same `extensions.upstream` over HTTP POST and GET,
 * graphql-ws and graphql-sse, and as the first result of a live query over both streaming
 * transports.
 */
const PARITY_TRANSPORTS = [...TRANSPORTS, 'live over graphql-ws', 'live over graphql-sse'] as const;

/** A partial-failure case: what is sent, and what every transport must answer. */
interface PartialCase {
  name: string;
  query: string;
  variables: Record<string, unknown>;
  /** The key of each transport's request (a fresh one each, when the case spends a budget). */
  key: (transport: string) => string;
  /** Codes and paths every transport must answer with. */
  errors: Array<{ code: string; path: Array<string | number> }>;
}

/** `query … @live` of the same operation. */
function liveQuery(query: string): string {
  return query.replace(/^(query \w+(\([^)]*\))?)/, '$1 @live');
}

/** The answer of one transport (a live query: its first result over that transport). */
async function answerOver(
  transport: (typeof PARITY_TRANSPORTS)[number],
  stack: HttpStack,
  entry: PartialCase,
): Promise<Outcome> {
  const authorization = `Bearer ${entry.key(transport)}`;
  if (transport === 'live over graphql-ws' || transport === 'live over graphql-sse') {
    const outcome = await over(
      transport === 'live over graphql-ws' ? 'graphql-ws' : 'graphql-sse',
      stack,
      { query: liveQuery(entry.query), variables: entry.variables },
      authorization,
    );
    // Gone before the next case asks: an identical live query still running would be joined
    // (one execution, whose runs the first subscriber's answer and log line count).
    await until(() => stack.gateway.subscriptions.liveQueries.open === 0, 'the live query ended');
    return outcome;
  }
  return over(transport, stack, { query: entry.query, variables: entry.variables }, authorization);
}

/** Asks every transport and expects the same data, errors and extensions from each. */
async function expectParity(stack: HttpStack, entry: PartialCase): Promise<Outcome> {
  const answers: Record<string, Pick<Outcome, 'data' | 'errors' | 'resultExtensions'>> = {};
  for (const transport of PARITY_TRANSPORTS) {
    const { data, errors, resultExtensions } = await answerOver(transport, stack, entry);
    answers[transport] = { data, errors, resultExtensions };
  }
  const reference = await answerOver('http-post', stack, entry);
  expect(reference.errors).toEqual(entry.errors);
  expect(reference.data).not.toBeNull();
  expect(reference.resultExtensions?.upstream).toEqual(
    expect.objectContaining({ requests: expect.any(Number) as unknown }),
  );
  const expected = Object.fromEntries(
    PARITY_TRANSPORTS.map((transport) => [
      transport,
      { data: reference.data, errors: reference.errors, resultExtensions: reference.resultExtensions },
    ]),
  );
  expect(answers).toEqual(expected);
  return reference;
}

const SLOTS_QUERY = 'query Slots($id: ID!) { factory(id: $id) { id options { slot title } } }';
const JSON_HEADERS = { headers: { 'content-type': 'application/json' } };
let freshKeys = 0;
/** A premium key no other request used (the simulator accepts every `sim-key-N`). */
const freshKey = (): string => `sim-key-${process.pid}${(freshKeys += 1)}`;

describe('partial failures over every transport and as a live query', () => {
  let stack: HttpStack;
  const logs = new LineCollector();
  beforeAll(async () => {
    // No upstream cache: every request of a case costs the same, so extensions.upstream is comparable.
    stack = await startStack({
      http: true,
      mock: true,
      config: { cacheEnabled: false, logLevel: 'info' },
      logDestination: logs,
    });
  });
  afterAll(async () => {
    await stack.close();
  });

  it('a failing option slot: the other slots, and UPSTREAM_ERROR at the slot’s path', async () => {
    stack
      .upstream()
      .intercept({ path: `/req/factory/options/${FIXTURE_IDS.shop}/2`, method: 'GET' })
      .reply(500, { statusCode: 500, message: 'boom' }, JSON_HEADERS)
      .persist();
    const answer = await expectParity(stack, {
      name: 'failing slot',
      query: SLOTS_QUERY,
      variables: { id: FIXTURE_IDS.shop },
      key: () => DEMO_KEYS.premium.key,
      errors: [{ code: 'UPSTREAM_ERROR', path: ['factory', 'options', 1] }],
    });
    expect(answer.data).toEqual({
      factory: { id: FIXTURE_IDS.shop, options: [{ slot: 1, title: expect.any(String) as unknown }] },
    });
    expect(answer.extensions).toMatchObject({ slot: 2, upstream: { status: 500 } });
    // The report step counts and logs the answer as sent, the item error included, on every transport.
    const reported = logs
      .records()
      .filter((record) => record.msg === 'graphql operation' && record.operationName === 'Slots');
    expect(reported.map((record) => record.transport ?? 'http')).toEqual([
      'http',
      'http',
      'graphql-ws',
      'graphql-sse',
      'graphql-ws',
      'graphql-sse',
      'http',
    ]);
    for (const record of reported)
      expect(record).toMatchObject({
        outcome: 'partial',
        errorCodes: ['UPSTREAM_ERROR'],
        upstream: answer.resultExtensions?.upstream,
      });
  });

  it('a premium-locked field (a key without premium): FORBIDDEN with premium at the field, the rest answered', async () => {
    const answer = await expectParity(stack, {
      name: 'premium-locked',
      query: 'query Locked { myImportAuctions { id } importAuctions { id } }',
      variables: {},
      key: () => DEMO_KEYS.basic.key,
      errors: [{ code: 'FORBIDDEN', path: ['importAuctions'] }],
    });
    expect(answer.data).toEqual({
      myImportAuctions: expect.arrayContaining([{ id: expect.any(String) as unknown }]) as unknown,
      importAuctions: null,
    });
    expect(answer.extensions).toMatchObject({ premium: true });
  });
});

describe('a RATE_LIMITED item over every transport and as a live query', () => {
  let stack: HttpStack;
  beforeAll(async () => {
    // Ten requests per key and minute, no waiting: the company and slots 1..9 pass, slot 10 is refused.
    stack = await startStack({
      http: true,
      config: { cacheEnabled: false, upstreamRateLimit: { requests: 10, windowSeconds: 60 }, upstreamPatienceMs: 0 },
    });
  });
  afterAll(async () => {
    await stack.close();
  });

  it('answers the slots it could afford and RATE_LIMITED at the refused slot’s path', async () => {
    const answer = await expectParity(stack, {
      name: 'rate-limited slot',
      query: SLOTS_QUERY,
      variables: { id: FIXTURE_IDS.shop },
      key: () => freshKey(),
      errors: [{ code: 'RATE_LIMITED', path: ['factory', 'options', 9] }],
    });
    expect(answer.data).toEqual({
      factory: {
        id: FIXTURE_IDS.shop,
        options: [
          { slot: 1, title: expect.any(String) as unknown },
          { slot: 2, title: expect.any(String) as unknown },
        ],
      },
    });
    expect(answer.extensions).toMatchObject({ slot: 10, retryAfterSeconds: expect.any(Number) as unknown });
  });
});

describe('a live query: each result carries the item errors of its own run', () => {
  const stack = useStack({ http: true, mock: true, config: { liveQueryThrottleMs: 0 } });
  type Slots = { factory: { options: Array<{ slot: number }> } };
  const slotsOf = (result: Received): number[] =>
    (result.data as Slots | undefined)?.factory.options.map((option) => option.slot) ?? [];
  const failedOf = (result: Received): Array<[unknown, unknown]> =>
    (result.errors ?? []).map((error) => [error.path?.[2], error.extensions?.code]);

  it.each(['graphql-ws', 'graphql-sse'] as const)(
    'over %s: the failed slot first, then the cache-only miss, then none once filled',
    async (transport) => {
      const key = freshKey();
      // Slot 2 fails once (the first run's read); the later background fill reaches the simulator.
      stack
        .upstream()
        .intercept({ path: `/req/factory/options/${FIXTURE_IDS.shop}/2`, method: 'GET' })
        .reply(500, { statusCode: 500, message: 'boom' }, JSON_HEADERS);
      const query = liveQuery(SLOTS_QUERY);
      const variables = { id: FIXTURE_IDS.shop };
      const sse = createSseClient({
        url: `${stack.origin}/graphql/stream`,
        headers: { authorization: `Bearer ${key}` },
        retryAttempts: 0,
      });
      const ws = wsClient(stack.endpoint, key);
      const live =
        transport === 'graphql-ws'
          ? collect((sink) => ws.subscribe({ query, variables }, sink))
          : collect((sink) => sse.subscribe({ query, variables }, sink));
      try {
        const first = await live.next();
        expect(slotsOf(first)).toEqual([1]);
        expect(failedOf(first)).toEqual([[1, 'UPSTREAM_ERROR']]);
        expect(first.extensions?.upstream).toMatchObject({ requests: 11 });

        // A no-cache read of slot 1 by the same key stores it: the live query re-runs from the
        // cache, where slot 2 is missing (RATE_LIMITED, and queued for background fill), then
        // again once the fill has stored slot 2.
        await stack.executeText('query($id: ID!) { factory(id: $id) { option(slot: 1) { title } } }', variables, {
          key,
          headers: { 'cache-control': 'no-cache' },
        });
        const later: Received[] = [];
        for (let result = await live.next(); ; result = await live.next()) {
          later.push(result);
          // Every result names exactly the slots it lacks, as its own run saw them.
          for (const [index] of failedOf(result)) expect(slotsOf(result)).not.toContain(Number(index) + 1);
          expect(result.extensions?.upstream).toMatchObject({ requests: 0 });
          if (!result.errors) break;
        }
        expect(failedOf(later[0] as Received)).toEqual([[1, 'RATE_LIMITED']]);
        expect(slotsOf(later[later.length - 1] as Received)).toEqual([1, 2]);
      } finally {
        live.stop();
        sse.dispose();
        await ws.dispose();
      }
    },
  );
});

/**
 * Refusals, byte for byte: the request pipeline writes every refusal for every transport
 * (`RequestPipeline.refuse`: the result phase's formatting, redaction and report), so the
 * payload `{"errors":[…]}` is the same text over HTTP, graphql-sse and graphql-ws (there
 * the payload of a `next` message, or the errors of an `error` message). Only the framing
 * differs: HTTP's status and headers, the event or message around it. Parse and validation
 * refusals too: the pipeline parses and validates for every transport (`prepareAdmitted`)
 * and `refuse` writes them; over HTTP with the operation's context, so the payload adds only
 * the zero upstream accounting docs/errors.md shows (and Apollo Server's newline), and the
 * log line has the key.
 */
describe('refusals over every transport, byte for byte', () => {
  const MAX_BODY_BYTES = 4096;
  const test = testVault('statev-refusals-');
  let token: string;
  let stack: HttpStack;
  const logs = new LineCollector();

  beforeAll(async () => {
    await test.vault.addKey('shop', DEMO_KEYS.premium.key, DEMO_KEYS.premium.secret);
    token = (
      await test.vault.createToken({ characters: ['shop'], grants: ['read:Factory.inventory'], expiresInMs: 3_600_000 })
    ).token;
    stack = await startStack({
      http: true,
      config: {
        vaultFile: test.vaultFile,
        vaultMasterKey: test.masterKey,
        maxBodyBytes: MAX_BODY_BYTES,
        maxUpstreamRequests: MAX_UPSTREAM_REQUESTS,
        operationsMaxPerConnection: 1,
        logLevel: 'info',
      },
      logDestination: logs,
    });
  });
  afterAll(async () => {
    await stack.close();
    rmSync(test.folder, { recursive: true, force: true });
  });

  /** Asks each transport and expects the same errors, as text, from each; returns the answers. */
  async function expectSameBytes(
    body: string,
    authorization: string | null,
    transports: readonly RawTransport[] = RAW_TRANSPORTS,
  ): Promise<Record<string, RawAnswer>> {
    const answers: Record<string, RawAnswer> = {};
    for (const transport of transports) answers[transport] = await rawOver(transport, stack, body, authorization);
    const reference = errorsText(answers.http as RawAnswer);
    for (const transport of transports)
      expect([transport, errorsText(answers[transport] as RawAnswer)]).toEqual([transport, reference]);
    return answers;
  }

  it.each([
    [
      'a body over MAX_BODY_BYTES',
      JSON.stringify({ query: '{ __typename }', variables: { pad: 'x'.repeat(MAX_BODY_BYTES) } }),
      KEY,
      413,
      'BAD_REQUEST',
    ],
    [
      'an operation deeper than MAX_DEPTH',
      JSON.stringify({
        query: `{ building(id: "1") { tenants { room { ${'tenant { room { '.repeat(6)}id${' } }'.repeat(6)} } } } }`,
      }),
      KEY,
      400,
      'QUERY_TOO_EXPENSIVE',
    ],
    [
      'an operation over MAX_UPSTREAM_REQUESTS',
      JSON.stringify({ query: '{ factories { options { title } } }' }),
      KEY,
      400,
      'QUERY_TOO_EXPENSIVE',
    ],
    ['a syntax error', JSON.stringify({ query: '{ factories { id }' }), KEY, 400, 'GRAPHQL_PARSE_FAILED'],
    [
      'two validation errors',
      JSON.stringify({ query: '{ nope factories { alsoNope } }' }),
      KEY,
      400,
      'GRAPHQL_VALIDATION_FAILED',
    ],
    ['an unknown field', JSON.stringify({ query: '{ factories { nope } }' }), KEY, 400, 'GRAPHQL_VALIDATION_FAILED'],
    [
      'a variable that does not coerce to its declared type',
      JSON.stringify({ query: 'query Q($id: ID!) { factory(id: $id) { id } }', variables: { id: { no: 1 } } }),
      KEY,
      400,
      'BAD_USER_INPUT',
    ],
    [
      'several operations and no operationName',
      JSON.stringify({ query: 'query A { __typename } query B { __typename }' }),
      KEY,
      400,
      'OPERATION_RESOLUTION_FAILURE',
    ],
    [
      'an operationName the document does not have',
      JSON.stringify({ query: 'query A { __typename }', operationName: 'B' }),
      KEY,
      400,
      'OPERATION_RESOLUTION_FAILURE',
    ],
    [
      'a variable of the wrong type in the document',
      JSON.stringify({ query: 'query Q($id: Int!) { factory(id: $id) { id } }', variables: { id: 1 } }),
      KEY,
      400,
      'GRAPHQL_VALIDATION_FAILED',
    ],
    [
      'an access token this gateway never issued',
      JSON.stringify({ query: '{ __typename }' }),
      `Bearer svg_${'A'.repeat(40)}`,
      401,
      'UNAUTHENTICATED',
    ],
  ])('%s', async (_name, body, authorization, status, code) => {
    const answers = await expectSameBytes(body, authorization);
    expect(answers.http).toMatchObject({ frame: 'body', status });
    const errors = JSON.parse(errorsText(answers.http as RawAnswer)) as Array<{ extensions: { code: string } }>;
    expect(new Set(errors.map((error) => error.extensions.code))).toEqual(new Set([code]));
  });

  it.each([
    ['a syntax error', '{ factories { id }'],
    ['an unknown field', '{ factories { nope } }'],
  ])('%s over HTTP: with the zero upstream accounting of docs/errors.md', async (_name, query) => {
    const http = await rawOver('http', stack, JSON.stringify({ query }), KEY);
    expect((JSON.parse(http.payload) as { extensions?: unknown }).extensions).toEqual({
      upstream: { requests: 0, cacheHits: 0, coalesced: 0, stale: 0, maxAgeSeconds: 0 },
    });
  });

  it.each([
    ['a syntax error', '{ factories { id }'],
    ['two validation errors', '{ nope factories { alsoNope } }'],
    ['an unknown field', '{ factories { nope } }'],
    ['a variable of the wrong type in the document', 'query Q($id: Int!) { factory(id: $id) { id } }'],
    ['an operation over MAX_UPSTREAM_REQUESTS', '{ factories { options { title } } }'],
  ])('%s: the same payload over HTTP and graphql-sse, byte for byte, but the accounting', async (_name, query) => {
    const answers = await expectSameBytes(JSON.stringify({ query }), KEY);
    const sse = answers['graphql-sse'] as RawAnswer;
    expect(sse.frame).toBe('next');
    const accounting =
      ',"extensions":{"upstream":{"requests":0,"cacheHits":0,"coalesced":0,"stale":0,"maxAgeSeconds":0}}';
    expect((answers.http as RawAnswer).payload).toBe(`${sse.payload.slice(0, -1)}${accounting}}\n`);
  });

  it('a variable that does not coerce: the same payload over HTTP and graphql-sse, byte for byte, but the accounting', async () => {
    const body = JSON.stringify({
      query: 'query Q($id: ID!) { factory(id: $id) { id } }',
      variables: { id: { no: 1 } },
    });
    const answers = await expectSameBytes(body, KEY);
    const sse = answers['graphql-sse'] as RawAnswer;
    expect(sse.frame).toBe('next');
    const accounting =
      ',"extensions":{"upstream":{"requests":0,"cacheHits":0,"coalesced":0,"stale":0,"maxAgeSeconds":0}}';
    expect(answers.http).toEqual({
      frame: 'body',
      status: 400,
      payload: `${sse.payload.slice(0, -1)}${accounting}}\n`,
    });
  });

  it('an HTTP parse or validation refusal is logged as rejected, with the key it came with', async () => {
    const before = logs.records().length;
    await rawOver('http', stack, JSON.stringify({ query: '{ factories { id }' }), KEY);
    await rawOver('http', stack, JSON.stringify({ query: '{ factories { nope } }' }), KEY);
    const reported = logs
      .records()
      .slice(before)
      .filter((record) => record.msg === 'graphql operation');
    expect(reported.map((record) => [record.outcome, record.errorCodes, typeof record.key])).toEqual([
      ['rejected', ['GRAPHQL_PARSE_FAILED'], 'string'],
      ['rejected', ['GRAPHQL_VALIDATION_FAILED'], 'string'],
    ]);
  });

  it('a field outside the access token’s grants (FORBIDDEN, requiredGrant)', async () => {
    const answers = await expectSameBytes(JSON.stringify({ query: '{ factories { id name } }' }), `Bearer ${token}`);
    expect(JSON.parse(errorsText(answers.http as RawAnswer))).toEqual([
      expect.objectContaining({
        extensions: expect.objectContaining({ code: 'FORBIDDEN', requiredGrant: 'read:Factory.name' }) as unknown,
      }),
    ]);
  });

  it('a batch: the same payload (a copy per operation) over HTTP and graphql-sse; graphql-ws has no batches', async () => {
    const body = JSON.stringify([{ query: '{ __typename }' }, { query: '{ __typename }' }]);
    const http = await rawOver('http', stack, body, KEY);
    const sse = await rawOver('graphql-sse', stack, body, KEY);
    expect(http).toMatchObject({ frame: 'body', status: 400 });
    expect(sse).toEqual(http);
    expect((JSON.parse(http.payload) as unknown[]).length).toBe(2);
  });

  it('the cap on queries in flight on a WebSocket: the payload HTTP would write, before and after parsing', async () => {
    const expected = stack.gateway.pipeline.refuse('http', operationCapRefusal(1)).text;
    const held = ['{ factories { id } }'];
    expect(await rawOver('graphql-ws', stack, JSON.stringify({ query: '{ __typename }' }), KEY, held)).toEqual({
      frame: 'next',
      status: 101,
      payload: expected,
    });
    expect(
      await rawOver('graphql-ws', stack, JSON.stringify({ query: '{ __typename } # subscription' }), KEY, held),
    ).toEqual({ frame: 'next', status: 101, payload: expected });
  });

  it('reports every refusal once, as rejected, on every transport', async () => {
    const before = logs.records().length;
    await expectSameBytes(JSON.stringify({ query: '{ __typename }' }), `Bearer svg_${'B'.repeat(40)}`);
    const reported = logs
      .records()
      .slice(before)
      .filter((record) => record.msg === 'graphql operation');
    expect(reported.map((record) => [record.transport ?? 'http', record.outcome, record.errorCodes])).toEqual([
      ['http', 'rejected', ['UNAUTHENTICATED']],
      ['graphql-sse', 'rejected', ['UNAUTHENTICATED']],
      ['graphql-ws', 'rejected', ['UNAUTHENTICATED']],
    ]);
  });
});
