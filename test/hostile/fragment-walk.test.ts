/**
 * Hostile documents whose fragments spread each other many times (16 levels, each
 * fragment spreading the next four times: 4^15 expansions from under 1 KB). Every walk
 * of the gateway over a document (depth rule, cost, bounds, introspection-only check)
 * reads each fragment once, so such a document is answered at once, with data or with
 * QUERY_TOO_EXPENSIVE, also without a key in public-site mode, and other requests are
 * not held up. Timings are bounded generously (a loaded machine), never measured; the
 * linearity itself is asserted by counting the cost estimator's calls.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getOperationAST, parse, specifiedRules, validate } from 'graphql';
import type { ComplexityEstimator } from 'graphql-query-complexity';
import { DEFAULT_CONFIG } from '../../src/config';
import { operationCost, upstreamCostEstimator } from '../../src/field-rules/cost';
import { depthLimitRule } from '../../src/graph/validation/depth.rule';
import { buildGatewaySchema } from '../../src/graph/schema';
import { isIntrospectionOnly } from '../../src/pipeline/trusted-documents';
import { DEMO_KEYS } from '../../src/simulator';
import { codes, startStack, useStack } from '../support';
import type { HttpStack } from '../support';

/**
 * Bound for one answer: the gateway needs a few ms, an exponential walk of these documents
 * would need minutes; 10 s leaves room for a heavily loaded 2-core machine.
 */
const ANSWER_BOUND_MS = 10_000;

/** `levels` fragments on Query, each spreading the next `fanOut` times; the last selects `leaf`. */
function fanOutDocument(levels: number, leaf: string, fanOut = 4): string {
  const parts = ['query FanOut { ...F0 }'];
  for (let i = 0; i < levels - 1; i += 1)
    parts.push(`fragment F${i} on Query { ${Array.from({ length: fanOut }, () => `...F${i + 1}`).join(' ')} }`);
  parts.push(`fragment F${levels - 1} on Query { ${leaf} }`);
  return parts.join('\n');
}

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await run();
  return { value, ms: performance.now() - started };
}

describe('walks over a fan-out fragment document are linear', () => {
  it('the cost walk calls the estimator once per field of the document, not per expansion', async () => {
    const schema = await buildGatewaySchema();
    const document = parse(fanOutDocument(16, 'factories { id options { title } }'));
    const operation = getOperationAST(document);
    if (!operation) throw new Error('no operation');
    let calls = 0;
    const estimator = upstreamCostEstimator(DEFAULT_CONFIG.costAssumptions);
    const counting: ComplexityEstimator = (options) => {
      calls += 1;
      return estimator(options);
    };
    const cost = operationCost(schema, document, operation, {}, [counting]);
    expect(calls).toBe(4); // factories, id, options, title: once each
    expect(cost).toBeGreaterThan(DEFAULT_CONFIG.maxUpstreamRequests); // yet every spread counts
  });

  it('the depth rule and graphql-js validation accept the document quickly; the introspection check says yes', async () => {
    const schema = await buildGatewaySchema();
    const document = parse(fanOutDocument(16, '__typename'));
    const { ms } = await timed(async () =>
      validate(schema, document, [depthLimitRule({ maxDepth: 12, maxCost: 1000 })]),
    );
    expect(ms).toBeLessThan(ANSWER_BOUND_MS);
    expect(isIntrospectionOnly(document)).toBe(true);
    expect(isIntrospectionOnly(parse(fanOutDocument(16, 'factories { id }')))).toBe(false);
  });

  it('the depth rule measures a deep fragment chain without recursing per fragment', async () => {
    const schema = await buildGatewaySchema();
    // 14 fields deep through a chain of fragments: building → tenants → room → tenant → … → room → id
    const chain = ['query Deep { building(id: "1") { ...T0 } }', 'fragment T0 on Building { tenants { ...R1 } }'];
    for (let i = 1; i < 12; i += 1)
      chain.push(
        i % 2 === 1
          ? `fragment R${i} on Tenant { room { ...T${i + 1} } }`
          : `fragment T${i} on Room { tenant { ...R${i + 1} } }`,
      );
    chain.push('fragment T12 on Room { id }');
    const errors = validate(schema, parse(chain.join('\n')), [depthLimitRule({ maxDepth: 12, maxCost: 1000 })]);
    expect(errors.map((e) => e.message)).toEqual(['The operation is 14 levels deep; at most 12 are allowed.']);
  });

  it("stops validation at a refusal: graphql-js's rules never walk a document too deep", async () => {
    const schema = await buildGatewaySchema();
    const rules = [...specifiedRules, depthLimitRule({ maxDepth: 2, maxCost: 1000 })];
    // Unknown fields: graphql-js's rules would report them.
    const deep = validate(schema, parse('{ factories { options { nope } } buildings { nope } }'), rules);
    expect(deep.map((e) => e.extensions.code)).toEqual(['QUERY_TOO_EXPENSIVE']);
    expect(validate(schema, parse('{ factories { nope } }'), rules)).toHaveLength(1);
  });
});

describe('a fan-out fragment document over HTTP', () => {
  const stack = useStack({ http: true });

  it.each([
    ['__typename only', '__typename', 200],
    ['an upstream field', 'factories { id }', 400],
  ])('answers 16 levels of fan-out (%s) at once, and /healthz meanwhile', async (_name, leaf, status) => {
    const [answer, health] = await Promise.all([
      timed(() => stack.post({ query: fanOutDocument(16, leaf) })),
      timed(() => fetch(`${stack.gateway.url}/healthz`)),
    ]);
    expect(answer.value.status).toBe(status);
    expect(codes(answer.value.body)).toEqual(status === 200 ? [] : ['QUERY_TOO_EXPENSIVE']);
    expect(answer.ms).toBeLessThan(ANSWER_BOUND_MS);
    expect(health.value.status).toBe(200);
    expect(health.ms).toBeLessThan(ANSWER_BOUND_MS);
    expect(stack.simulator.requests).toHaveLength(0);
  });
});

describe('a fan-out fragment document without a key in public-site mode', () => {
  let stack: HttpStack;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'statev-hostile-'));
    const text = 'query Site { factories { id } }';
    const manifest = join(dir, 'trusted.json');
    writeFileSync(manifest, JSON.stringify({ [createHash('sha256').update(text).digest('hex')]: text }));
    stack = await startStack({
      http: true,
      config: { serverApiKey: DEMO_KEYS.premium.key, trustedDocumentsPath: manifest },
    });
  });

  afterAll(async () => {
    await stack.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('passes the keyless gate as introspection-only and is answered at once, with no upstream request', async () => {
    const answer = await timed(() => stack.post({ query: fanOutDocument(16, '__typename') }, { key: null }));
    expect(answer.value.status).toBe(200);
    expect(answer.value.body.data).toEqual({ __typename: 'Query' });
    expect(answer.ms).toBeLessThan(ANSWER_BOUND_MS);
    expect(stack.simulator.requests).toHaveLength(0);
  });

  it('refuses the same shape with an upstream field (FORBIDDEN_DOCUMENT) at once', async () => {
    const answer = await timed(() => stack.post({ query: fanOutDocument(16, 'factories { id }') }, { key: null }));
    expect(codes(answer.value.body)).toEqual(['FORBIDDEN_DOCUMENT']);
    expect(answer.ms).toBeLessThan(ANSWER_BOUND_MS);
  });
});
