/**
 * The resolver registry of src/domains/index.ts: every `*.resolver.ts` and
 * `*.subscription.ts` is in the schema without a hand-kept list.
 */
import { getMetadataStorage } from 'type-graphql';
import { buildGatewaySchema } from '../../src/graph/schema';
import { domainResolvers, registeredFiles } from '../../src/domains';

describe('resolver registry', () => {
  it('loads every resolver and subscription file of every domain, and nothing else', () => {
    const files = registeredFiles();
    expect(files).toEqual(expect.arrayContaining(['buildings/room.subscription.ts', 'factories/factory.resolver.ts', 'market/auction.subscription.ts', 'shared/bank-account.subscription.ts']));
    expect(files.every((file) => /^[a-z-]+\/[a-z-]+\.(resolver|subscription)\.ts$/.test(file))).toBe(true);
  });

  it('finds one resolver class or more in each file, each a TypeGraphQL resolver', () => {
    const resolvers = domainResolvers();
    expect(resolvers.length).toBeGreaterThanOrEqual(registeredFiles().length);
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
      'roomChanged',
      'siteDocumentChanged',
      'transactionAdded',
    ]);
  });
});
