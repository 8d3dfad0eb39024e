/**
 * The cost estimate of an access token over several characters: a root list merged across
 * the characters' keys (`factories`, `buildings`, the auction lists) costs one request per
 * key, as it does at run time, so the `MAX_UPSTREAM_REQUESTS` refusal is right before any
 * upstream request; `factory(id)`/`building(id)` read every key's list, and a write first
 * finds its company's owner in them.
 */
import { getOperationAST, parse } from 'graphql';
import type { GraphQLSchema } from 'graphql';
import { DEFAULT_CONFIG } from '../../src/config';
import { operationCost, upstreamCostEstimator } from '../../src/field-rules/cost';
import { buildGatewaySchema } from '../../src/graph/schema';
import { FIXTURE_IDS } from '../../src/simulator';
import { addMaxAndErika, startStack, testVault } from '../support';

describe('the cost estimate over several characters', () => {
  let schema: GraphQLSchema;
  beforeAll(async () => {
    schema = await buildGatewaySchema();
  });
  const cost = (query: string, characters: number): number => {
    const document = parse(query);
    const operation = getOperationAST(document);
    if (!operation) throw new Error('no operation');
    return operationCost(schema, document, operation, {}, [
      upstreamCostEstimator(DEFAULT_CONFIG.costAssumptions, DEFAULT_CONFIG.optionSlots, characters),
    ]);
  };
  const { factories, buildings } = DEFAULT_CONFIG.costAssumptions;

  it('counts a merged root list once per character, with everything below it', () => {
    const query = '{ factories { id inventory { __typename } } }';
    expect(cost(query, 1)).toBe(1 + factories);
    expect(cost(query, 2)).toBe(2 * (1 + factories));
    expect(cost(query, 3)).toBe(3 * (1 + factories));
    expect(cost('{ buildings { rooms { id } } }', 2)).toBe(2 * (1 + buildings));
    expect(
      cost('{ myImportAuctions { id } myExportAuctions { id } importAuctions { id } exportAuctions { id } }', 1),
    ).toBe(4);
    expect(
      cost('{ myImportAuctions { id } myExportAuctions { id } importAuctions { id } exportAuctions { id } }', 2),
    ).toBe(8);
  });

  it("counts every key's list for factory(id) and building(id), what is below once, and the owner lookup of a write", () => {
    expect(cost(`{ factory(id: "${FIXTURE_IDS.shop}") { inventory { __typename } } }`, 1)).toBe(2);
    expect(cost(`{ factory(id: "${FIXTURE_IDS.shop}") { inventory { __typename } } }`, 2)).toBe(3);
    expect(cost(`{ building(id: "${FIXTURE_IDS.hafen}") { details { __typename } } }`, 3)).toBe(4);
    const write = `mutation { updateFactoryOption(input: { factoryId: "${FIXTURE_IDS.shop}", slot: 3, title: "t", data: "d" }) { committed } }`;
    expect(cost(write, 1)).toBe(1);
    expect(cost(write, 2)).toBe(3);
  });

  it('refuses before any upstream request a document one character may run and two may not', async () => {
    const { vault, vaultFile, masterKey } = testVault('several-cost-');
    await addMaxAndErika(vault);
    const one = (await vault.createToken({ characters: ['max'], grants: ['read'], expiresInMs: 3_600_000 })).token;
    const two = (await vault.createToken({ characters: ['max', 'erika'], grants: ['read'], expiresInMs: 3_600_000 }))
      .token;
    const query = '{ factories { id inventory { __typename } } }';
    const limit = cost(query, 1);
    const stack = await startStack({
      http: true,
      config: { vaultFile, vaultMasterKey: masterKey, maxUpstreamRequests: limit },
    });
    try {
      const post = (token: string) => stack.post({ query }, { headers: { authorization: `Bearer ${token}` } });
      const before = stack.simulator.countRequests();
      const refused = await post(two);
      expect(refused.status).toBe(400);
      expect(refused.body.errors?.[0]?.extensions).toMatchObject({
        code: 'QUERY_TOO_EXPENSIVE',
        cost: 2 * limit,
        maxCost: limit,
      });
      expect(stack.simulator.countRequests()).toBe(before);
      // Twice: the second answer comes from the remembered cost, still per number of characters.
      expect((await post(two)).body.errors?.[0]?.extensions).toMatchObject({
        code: 'QUERY_TOO_EXPENSIVE',
        cost: 2 * limit,
      });
      const allowed = await post(one);
      expect(allowed.body.errors).toBeUndefined();
      expect((allowed.body.data as { factories: unknown[] }).factories.length).toBeGreaterThan(0);
      // The same document remembered for one character is still refused for two.
      expect((await post(two)).body.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_EXPENSIVE' });
    } finally {
      await stack.close();
    }
  });
});
