/**
 * The domain registry of src/domains/index.ts: every `*.resolver.ts` and
 * `*.subscription.ts` is in the schema, every `*.loaders.ts` in each operation's
 * loaders, and every `*.endpoint-rules.ts` in what the economy is given, without a
 * hand-kept list.
 */
import { getMetadataStorage } from 'type-graphql';
import { buildGatewaySchema } from '../../src/graph/schema';
import { domainEndpointRules, domainResolvers, operationLoaders, registeredFiles } from '../../src/domains';
import { ENDPOINTS } from '../../src/upstream/endpoints';
import type { UpstreamSession } from '../../src/economy';

describe('resolver registry', () => {
  it('loads every resolver, subscription, loaders and endpoint-rules file of every domain, and nothing else', () => {
    const files = registeredFiles();
    expect(files).toEqual(
      expect.arrayContaining([
        'buildings/room.subscription.ts',
        'factories/factory.resolver.ts',
        'market/auction.subscription.ts',
        'bank-accounts/bank-account.subscription.ts',
      ]),
    );
    expect(
      files.every((file) => /^[a-z-]+\/[a-z-]+\.(resolver|subscription|loaders|endpoint-rules)\.ts$/.test(file)),
    ).toBe(true);
    expect(files).toEqual(
      expect.arrayContaining([
        'buildings/buildings.loaders.ts',
        'factories/factories.loaders.ts',
        'market/market.loaders.ts',
      ]),
    );
    expect(files).toEqual(expect.arrayContaining(['factories/factory-option.endpoint-rules.ts']));
  });

  it("hands the economy every domain's endpoint rules: the option slots' from the factories domain", () => {
    const rules = domainEndpointRules();
    expect(rules.map((rule) => rule.endpoint.route).sort()).toEqual(
      [ENDPOINTS.factoryOption.route, ENDPOINTS.factoryOptionUpdate.route].sort(),
    );
    const read = rules.find((rule) => rule.endpoint === ENDPOINTS.factoryOption);
    const write = rules.find((rule) => rule.endpoint === ENDPOINTS.factoryOptionUpdate);
    expect(read?.changedByWrites).toBe(true);
    // A slot write names its company and slot; it changes that slot's read only.
    expect(write?.writeScope?.({ factoryId: 'f1', option: 3, title: 't', data: 'd' })).toBe('f1/3');
    expect(write?.scopeReads?.('f1/3')).toEqual(['/factory/options/f1/3']);
    expect(write?.writeScope?.({ option: 3 })).toBeNull();
    // Without a valid slot: every slot read of the company.
    expect(write?.writeScope?.({ factoryId: 'f1', option: 0 })).toBe('f1');
    expect(write?.scopeReads?.('f1')).toEqual(Array.from({ length: 20 }, (_, i) => `/factory/options/f1/${i + 1}`));
  });

  it("gives each operation every domain's loaders, each domain's created on first use", () => {
    const session = {} as UpstreamSession;
    const loaders = operationLoaders(session, { cache: true });
    const members: string[] = [];
    for (const member in loaders) members.push(member);
    expect(members.sort()).toEqual(['buildings', 'factories', 'market']);
    // Created on first use only, then kept: the market's are not made by this operation.
    expect(Object.keys(loaders)).toEqual([]);
    expect(loaders.factories).toBe(loaders.factories);
    expect(Object.keys(loaders)).toEqual(['factories']);
    expect(typeof loaders.buildings.details.load).toBe('function');
    // Another operation gets loaders of its own: nothing cached crosses operations.
    expect(operationLoaders(session, { cache: true }).factories).not.toBe(loaders.factories);
  });

  it('finds one resolver class or more in each file, each a TypeGraphQL resolver', () => {
    const resolvers = domainResolvers();
    expect(resolvers.length).toBeGreaterThanOrEqual(
      registeredFiles().filter((file) => !/\.(loaders|endpoint-rules)\.ts$/.test(file)).length,
    );
    const known = new Set<unknown>(getMetadataStorage().resolverClasses.map((meta) => meta.target));
    expect(resolvers.every((resolver) => known.has(resolver))).toBe(true);
    expect(new Set(resolvers).size).toBe(resolvers.length);
  });

  it('puts every subscription file in the schema', async () => {
    const schema = await buildGatewaySchema();
    expect(Object.keys(schema.getSubscriptionType()?.getFields() ?? {}).sort()).toEqual([
      'counterChanged',
      'factoryOptionChanged',
      'inventoryChanged',
      'myAuctionChanged',
      'paymentReceived',
      'roomChanged',
      'siteDocumentChanged',
      'transactionAdded',
    ]);
  });
});
