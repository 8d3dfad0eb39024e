/**
 * The domain registry of src/domains/index.ts: every `*.resolver.ts` and
 * `*.subscription.ts` is in the schema, and every `*.loaders.ts` in each operation's
 * loaders, without a hand-kept list.
 */
import { getMetadataStorage } from 'type-graphql';
import { buildGatewaySchema } from '../../src/graph/schema';
import { domainResolvers, operationLoaders, registeredFiles } from '../../src/domains';
import type { UpstreamSession } from '../../src/economy';

describe('resolver registry', () => {
  it('loads every resolver, subscription and loaders file of every domain, and nothing else', () => {
    const files = registeredFiles();
    expect(files).toEqual(expect.arrayContaining(['buildings/room.subscription.ts', 'factories/factory.resolver.ts', 'market/auction.subscription.ts', 'bank-accounts/bank-account.subscription.ts']));
    expect(files.every((file) => /^[a-z-]+\/[a-z-]+\.(resolver|subscription|loaders)\.ts$/.test(file))).toBe(true);
    expect(files).toEqual(expect.arrayContaining(['buildings/buildings.loaders.ts', 'factories/factories.loaders.ts', 'market/market.loaders.ts']));
  });

  it('gives each operation every domain\'s loaders, each domain\'s created on first use', () => {
    const session = {} as UpstreamSession;
    const loaders = operationLoaders(session, { cache: true });
    expect(Object.keys(loaders).sort()).toEqual(['buildings', 'factories', 'market']);
    expect(loaders.factories).toBe(loaders.factories);
    expect(typeof loaders.buildings.details.load).toBe('function');
    // Another operation gets loaders of its own: nothing cached crosses operations.
    expect(operationLoaders(session, { cache: true }).factories).not.toBe(loaders.factories);
  });

  it('finds one resolver class or more in each file, each a TypeGraphQL resolver', () => {
    const resolvers = domainResolvers();
    expect(resolvers.length).toBeGreaterThanOrEqual(registeredFiles().filter((file) => !file.endsWith('.loaders.ts')).length);
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
