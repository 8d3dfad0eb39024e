/**
 * The cost and depth limits, checked before execution over real HTTP: an operation
 * over `maxUpstreamRequests` (1000) or deeper than `maxDepth` (12) is answered with
 * QUERY_TOO_EXPENSIVE and HTTP 400 and makes no upstream request; the company dashboard
 * is accepted. Also: `extensions.upstream` is on every response, rejections and errors
 * included, with the right numbers.
 */
import { parse, print } from 'graphql';
import { DEFAULT_CONFIG } from '../../src/config';
import { estimateCost } from '../../src/field-rules/cost';
import { buildGatewaySchema } from '../../src/graph/schema';
import { FIXTURE_IDS } from '../../src/simulator';
import { CompanyDashboardDocument, EconomyCounterDocument } from '../generated/graphql';
import { upstreamOf, useStack } from '../support';

/** `n` aliases of `factories { options { title } }`. */
function aliasedOptions(n: number): string {
  const fields = Array.from({ length: n }, (_, i) => `a${i}: factories { options { title } }`);
  return `query AliasedOptions {\n  ${fields.join('\n  ')}\n}`;
}

/**
 * A query exactly `depth` levels deep (leaf included) that is cheap: one building, its
 * tenants, then Tenant.room → Room.tenant → … (each join costs one request, no list
 * below the tenants multiplies it).
 */
function tenantChain(depth: number): string {
  const fields = ['tenants'];
  while (fields.length < depth - 2) fields.push(fields.length % 2 === 1 ? 'room' : 'tenant');
  const leaf = fields.at(-1) === 'room' ? 'id' : 'roomId';
  const inner = fields.reduceRight((selection, field) => `${field} { ${selection} }`, leaf);
  return `query TenantChain { building(id: "${FIXTURE_IDS.hafen}") { ${inner} } }`;
}

/** buildings → rooms → building → rooms → … → id, `depth` levels deep. */
function roomChain(depth: number): string {
  const fields = ['buildings'];
  while (fields.length < depth - 1) fields.push(fields.length % 2 === 1 ? 'rooms' : 'building');
  const inner = fields.reduceRight((selection, field) => `${field} { ${selection} }`, 'id');
  return `query RoomChain { ${inner} }`;
}

describe('cost and depth limits over HTTP', () => {
  const stack = useStack({ http: true }, { resetSimulator: true });

  it('has the documented defaults', () => {
    expect(DEFAULT_CONFIG.maxUpstreamRequests).toBe(1000);
    expect(DEFAULT_CONFIG.maxDepth).toBe(12);
  });

  it('rejects 60 aliases of factories { options { title } } with QUERY_TOO_EXPENSIVE, HTTP 400, no upstream request', async () => {
    const answer = await stack.post({ query: aliasedOptions(60) });
    expect(answer.status).toBe(400);
    expect(answer.body.data).toBeUndefined();
    expect(answer.body.errors).toHaveLength(1);
    // Each alias: 1 (list) + 10 companies × 10 option requests = 101; 60 aliases: 6060.
    expect(answer.body.errors?.[0]?.extensions).toMatchObject({
      code: 'QUERY_TOO_EXPENSIVE',
      cost: 6060,
      maxCost: 1000,
    });
    expect(answer.body.errors?.[0]?.message).toMatch(/6060/);
    expect(upstreamOf(answer.body)).toEqual({ requests: 0, cacheHits: 0, coalesced: 0, stale: 0 });
    expect(stack.simulator.requests).toHaveLength(0);
  });

  it('accepts a few such aliases (under the limit) and runs them', async () => {
    const answer = await stack.post({ query: aliasedOptions(2) });
    expect(answer.status).toBe(200);
    expect(answer.body.errors).toBeUndefined();
    expect(stack.simulator.requests.length).toBeGreaterThan(0);
  });

  it('rejects an operation 13 levels deep (cheap, so only for its depth) with zero upstream requests', async () => {
    const query = tenantChain(13);
    const schema = await buildGatewaySchema();
    expect(estimateCost(schema, parse(query), undefined, {}, DEFAULT_CONFIG.costAssumptions)).toBeLessThan(1000);

    const answer = await stack.post({ query });
    expect(answer.status).toBe(400);
    expect(answer.body.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_EXPENSIVE', depth: 13, maxDepth: 12 });
    expect(upstreamOf(answer.body)).toEqual({ requests: 0, cacheHits: 0, coalesced: 0, stale: 0 });
    expect(stack.simulator.requests).toHaveLength(0);
  });

  it('accepts the same chain 12 levels deep', async () => {
    const answer = await stack.post({ query: tenantChain(12) });
    expect(answer.status).toBe(200);
    expect(answer.body.errors).toBeUndefined();
    expect(stack.simulator.requests.length).toBeGreaterThan(0);
  });

  it('rejects buildings → rooms → building → … deeper than 12 with zero upstream requests', async () => {
    const answer = await stack.post({ query: roomChain(14) });
    expect(answer.status).toBe(400);
    expect(answer.body.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_EXPENSIVE', depth: 14, maxDepth: 12 });
    expect(stack.simulator.requests).toHaveLength(0);
  });

  it('accepts the full company dashboard; its computed cost is under 1000', async () => {
    const schema = await buildGatewaySchema();
    const cost = estimateCost(schema, CompanyDashboardDocument, 'CompanyDashboard', {}, DEFAULT_CONFIG.costAssumptions);
    expect(cost).toBeGreaterThan(0);
    expect(cost).toBeLessThan(1000);

    const answer = await stack.post({ query: print(CompanyDashboardDocument) });
    expect(answer.status).toBe(200);
    expect(answer.body.errors).toBeUndefined();
    expect(upstreamOf(answer.body).requests).toBe(stack.simulator.requests.length);
  });
});

describe('extensions.upstream on every response', () => {
  const stack = useStack({ http: true });

  const ZERO = { requests: 0, cacheHits: 0, coalesced: 0, stale: 0 };
  const counter = { query: print(EconomyCounterDocument), variables: { id: FIXTURE_IDS.shop } };

  it('on a success, a cache hit, and a partial result', async () => {
    const miss = await stack.post(counter, { key: 'sim-key-500' });
    expect(upstreamOf(miss.body)).toEqual({ requests: 2, cacheHits: 0, coalesced: 0, stale: 0 });
    const hit = await stack.post(counter, { key: 'sim-key-500' });
    expect(upstreamOf(hit.body)).toEqual({ requests: 0, cacheHits: 2, coalesced: 0, stale: 0 });
    const partial = await stack.post(counter, { key: 'demo-basic-key' }); // no factory.counter scope
    expect(partial.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_BAD_REQUEST');
    expect(upstreamOf(partial.body)).toEqual({ requests: 2, cacheHits: 0, coalesced: 0, stale: 0 });
  });

  it('on an operation without a key (UNAUTHENTICATED)', async () => {
    const answer = await stack.post(counter, { key: null });
    expect(answer.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(upstreamOf(answer.body)).toEqual(ZERO);
  });

  it('on rejections before execution: syntax error, validation error, bad input, too expensive', async () => {
    for (const body of [
      { query: '{ factories { id ' },
      { query: '{ factories { noSuchField } }' },
      { query: `{ factory(id: "${FIXTURE_IDS.shop}") { buyLog(limit: 51) { price } } }` },
      { query: aliasedOptions(60) },
    ]) {
      const answer = await stack.post(body);
      expect({ query: body.query.slice(0, 40), status: answer.status }).toEqual({
        query: body.query.slice(0, 40),
        status: 400,
      });
      expect(upstreamOf(answer.body)).toEqual(ZERO);
    }
  });
});
