/**
 * Resolver tests of `Query.factories`, `Query.factory(id)` and every field of `Factory`,
 * run with `executeOperation` against the built-in simulator. Expected values are
 * computed from the fixtures, never written down by hand.
 */
import {
  AliasedFactoriesDocument,
  BankAccountTransactionsFragmentDocument,
  BuyLogPageDocument,
  FactoriesDocument,
  FactoryEverythingDocument,
  FactoryOptionsDocument,
  FactoryStoresDocument,
} from '../generated/graphql';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { useStack } from '../support';
import {
  NON_PREMIUM_KEY,
  NO_OPTIONAL_SCOPES_KEY,
  building,
  callCounts,
  freshKey,
  calls,
  company,
  expectedBuyLog,
  expectedCounter,
  expectedFactoryAccount,
  expectedBuildingAccount,
  expectedFactoryEverything,
  expectedInventory,
  expectedOption,
  expectedOptions,
  expectedSellOffers,
  expectedVehicles,
  fixtureCharacters,
  must,
  repeatedCalls,
} from './expected';
import type { FactoryPaging } from './expected';

const stack = useStack(
  { simulator: { extraKeys: [NON_PREMIUM_KEY, NO_OPTIONAL_SCOPES_KEY] } },
  { resetSimulator: true },
);

const DEFAULT_PAGING: FactoryPaging = { slot: 1, buyLogLimit: 50, buyLogSkip: 0, txLimit: 10, txSkip: 0 };

describe('Query.factories', () => {
  it('lists every company of the character with the factory.details fields (premium key, every scope)', async () => {
    const result = await stack.execute(FactoriesDocument, {}, { key: freshKey().key });
    expect(result.errors).toBeUndefined();
    const { main } = fixtureCharacters();
    expect(result.data?.factories).toEqual(
      main.companies.map((c) => ({
        id: c.id,
        name: c.name,
        hash: c.hash,
        adLine: c.adLine,
        isOpen: c.isOpen,
        type: c.type,
        address: c.address,
      })),
    );
    // Sanity: the fixtures really carry values for the details fields and a null adLine somewhere.
    expect(main.companies.some((c) => c.adLine === null)).toBe(true);
    expect(main.companies.every((c) => c.type !== null && c.address !== null && c.isOpen !== null)).toBe(true);
    expect(calls(stack.simulator)).toEqual(['GET /factory/list/']);
  });

  it.each([
    ['basic demo key', DEMO_KEYS.basic.key],
    ['premium key without factory.details', NO_OPTIONAL_SCOPES_KEY.key],
  ])('leaves isOpen, type and address null without scope factory.details (%s)', async (_name, key) => {
    const result = await stack.execute(FactoriesDocument, {}, { key });
    expect(result.errors).toBeUndefined();
    const { main } = fixtureCharacters();
    expect(result.data?.factories).toEqual(
      main.companies.map((c) => ({
        id: c.id,
        name: c.name,
        hash: c.hash,
        adLine: c.adLine,
        isOpen: null,
        type: null,
        address: null,
      })),
    );
  });

  it('lists the companies of the other character for the other key', async () => {
    const result = await stack.execute(FactoriesDocument, {}, { key: DEMO_KEYS.other.key });
    expect(result.errors).toBeUndefined();
    const { other } = fixtureCharacters();
    expect(result.data?.factories?.map((f) => f.id)).toEqual(other.companies.map((c) => c.id));
    expect(result.data?.factories?.map((f) => f.id)).toContain(FIXTURE_IDS.otherFactory);
  });
});

describe('Query.factory(id) with every field (FactoryEverything)', () => {
  const { main } = fixtureCharacters();

  it.each(main.companies.map((c) => [c.name, c.id] as const))(
    'returns every field of %s as the fixtures hold it',
    async (_name, id) => {
      const result = await stack.execute(FactoryEverythingDocument, { id, slot: 1 });
      expect(result.errors).toBeUndefined();
      expect(result.data?.factory).toEqual(expectedFactoryEverything(company(id), DEFAULT_PAGING));
    },
  );

  it('returns the shop: counter items, inventory, two bank accounts, offers, slots 1 and 2', async () => {
    const shop = company(FIXTURE_IDS.shop);
    const result = await stack.execute(FactoryEverythingDocument, { id: FIXTURE_IDS.shop, slot: 2 });
    expect(result.errors).toBeUndefined();
    const factory = must(result.data?.factory);
    // Counter items with prices, icons as URLs for the premium key.
    expect(factory.counter).toEqual(expectedCounter(shop, true));
    expect(factory.counter?.items.map((i) => i.item)).toEqual(shop.counter.map((i) => i.item));
    expect(factory.counter?.items.every((i) => typeof i.icon === 'string' && i.icon.startsWith('https://'))).toBe(true);
    expect(factory.inventory).toEqual(expectedInventory(shop.inventory, true));
    // The empty machine store (upstream 404 "Machine store is empty") is an empty Inventory.
    expect(factory.machineInventory).toEqual({ totalWeight: 0, items: [] });
    expect(factory.sellOffers).toEqual(expectedSellOffers(shop, true));
    expect(factory.buyOffers?.map((o) => o.listPrice)).toEqual(shop.buyOffers.map((o) => o.listPrice));
    // The savings account's VBAN arrives as a JSON number and is returned as a string.
    const savings = must(factory.bankAccounts?.find((a) => a.id === FIXTURE_IDS.shopSavingsAccount));
    expect(savings.vban).toBe('4711001');
    expect(typeof savings.vban).toBe('string');
    expect(factory.bankAccounts).toEqual(shop.bankAccounts.map((a) => expectedFactoryAccount(a, 10, 0)));
    // Slot 2 is a legacy record with `lastUpdate`: it still fills lastUpdated.
    expect(factory.option).toEqual(expectedOption(2, shop.options['2']));
    expect(factory.option?.lastUpdated).toBe('2023-11-20T18:42:00.000Z');
    // Options in slot order, unset slots left out.
    expect(factory.options?.map((o) => o.slot)).toEqual([1, 2]);
    expect(factory.options).toEqual(expectedOptions(shop));
    expect(factory.vehicles).toEqual([]);
    expect(factory.productions).toEqual([]);
    expect(factory.buyLog).toEqual([]);
  });

  it('returns the car dealer: five vehicles with image URLs, empty counter and machine store', async () => {
    const dealer = company(FIXTURE_IDS.carDealer);
    const result = await stack.execute(FactoryEverythingDocument, { id: FIXTURE_IDS.carDealer, slot: 1 });
    expect(result.errors).toBeUndefined();
    const factory = must(result.data?.factory);
    expect(factory.vehicles).toHaveLength(5);
    expect(factory.vehicles).toEqual(expectedVehicles(dealer, true));
    expect(factory.vehicles?.every((v) => Number.isInteger(v.distance))).toBe(true);
    expect(factory.counter).toEqual({ totalWeight: 0, items: [] });
    expect(factory.machineInventory).toEqual({ totalWeight: 0, items: [] });
  });

  it('returns the workshop: three productions with ingredients, the first 50 buy log entries by default', async () => {
    const workshop = company(FIXTURE_IDS.workshop);
    const result = await stack.execute(FactoryEverythingDocument, { id: FIXTURE_IDS.workshop, slot: 1 });
    expect(result.errors).toBeUndefined();
    const factory = must(result.data?.factory);
    expect(factory.productions).toHaveLength(3);
    expect(factory.productions?.map((p) => p.neededItems.length)).toEqual(
      workshop.productions.map((p) => p.neededItems.length),
    );
    expect(factory.buyLog).toHaveLength(50);
    expect(factory.buyLog).toEqual(expectedBuyLog(workshop, 50, 0));
    // Both discount kinds occur: null and numbers.
    expect(factory.buyLog?.some((e) => e.discount === null)).toBe(true);
    expect(factory.buyLog?.some((e) => typeof e.discount === 'number')).toBe(true);
  });

  it('returns the farm: EMPTY inventory as {totalWeight: 0, items: []}, no option set (option null, options [])', async () => {
    const farm = company(FIXTURE_IDS.farm);
    const result = await stack.execute(FactoryEverythingDocument, { id: FIXTURE_IDS.farm, slot: 1 });
    expect(result.errors).toBeUndefined();
    const factory = must(result.data?.factory);
    expect(factory.inventory).toEqual({ totalWeight: 0, items: [] });
    expect(factory.machineInventory).toEqual(expectedInventory(farm.machineStore, true));
    expect(factory.option).toBeNull();
    expect(factory.options).toEqual([]);
  });

  it('makes each distinct upstream request once for the whole company (option(slot) shares the options requests)', async () => {
    const shop = company(FIXTURE_IDS.shop);
    const result = await stack.execute(
      FactoryEverythingDocument,
      { id: FIXTURE_IDS.shop, slot: 1 },
      { key: freshKey().key },
    );
    expect(result.errors).toBeUndefined();
    expect(repeatedCalls(stack.simulator)).toEqual([]);
    const id = FIXTURE_IDS.shop;
    const expected = [
      'GET /factory/list/',
      `GET /factory/inventory/${id}`,
      `GET /factory/machine/${id}`,
      `GET /factory/counter/${id}`,
      `GET /factory/productions/${id}`,
      `GET /factory/bankaccounts/${id}`,
      ...shop.bankAccounts.map((a) => `GET /factory/transactions/${a.id}/10/0`),
      `GET /factory/vehicles/${id}`,
      `GET /factory/marketoffers/sell/${id}`,
      `GET /factory/marketoffers/buy/${id}`,
      `GET /factory/buyLog/${id}/50/0`,
      ...Array.from({ length: 10 }, (_, i) => `GET /factory/options/${id}/${i + 1}`),
    ];
    expect(calls(stack.simulator).sort()).toEqual(expected.sort());
  });

  it('is null for a company of the other character and for an unknown id, with only the list requested', async () => {
    for (const id of [FIXTURE_IDS.otherFactory, 'ffffffffffffffffffffffff']) {
      stack.simulator.resetRequests();
      const result = await stack.execute(FactoryEverythingDocument, { id, slot: 1 }, { key: freshKey().key });
      expect(result.errors).toBeUndefined();
      expect(result.data).toEqual({ factory: null });
      expect(calls(stack.simulator)).toEqual(['GET /factory/list/']);
    }
  });

  it("returns the other character's company for the other key", async () => {
    const { other } = fixtureCharacters();
    const result = await stack.execute(
      FactoryEverythingDocument,
      { id: FIXTURE_IDS.otherFactory, slot: 1 },
      { key: DEMO_KEYS.other.key },
    );
    expect(result.errors).toBeUndefined();
    expect(result.data?.factory).toEqual(
      expectedFactoryEverything(company(FIXTURE_IDS.otherFactory, other), DEFAULT_PAGING),
    );
  });
});

describe('Factory.buyLog paging', () => {
  const workshop = company(FIXTURE_IDS.workshop);

  it('has 64 entries in the fixtures', () => {
    expect(workshop.buyLog).toHaveLength(64);
  });

  it.each([
    [50, 0, 50],
    [50, 50, 14],
    [10, 60, 4],
    [1, 63, 1],
    [25, 25, 25],
    [50, 64, 0],
    [50, 1000, 0],
  ])('limit %i skip %i gives %i entries, the right ones', async (limit, skip, count) => {
    const result = await stack.execute(
      BuyLogPageDocument,
      { id: FIXTURE_IDS.workshop, limit, skip },
      { key: freshKey().key },
    );
    expect(result.errors).toBeUndefined();
    expect(result.data?.factory?.buyLog).toHaveLength(count);
    expect(result.data?.factory?.buyLog).toEqual(expectedBuyLog(workshop, limit, skip));
    expect(calls(stack.simulator)).toEqual([
      'GET /factory/list/',
      `GET /factory/buyLog/${FIXTURE_IDS.workshop}/${limit}/${skip}`,
    ]);
  });

  it('is empty for a company without purchases', async () => {
    const result = await stack.execute(BuyLogPageDocument, { id: FIXTURE_IDS.farm, limit: 50, skip: 0 });
    expect(result.errors).toBeUndefined();
    expect(result.data?.factory?.buyLog).toEqual([]);
  });
});

describe('FactoryBankAccount.transactions paging', () => {
  const shop = company(FIXTURE_IDS.shop);
  const main = must(shop.bankAccounts.find((a) => a.id === FIXTURE_IDS.shopMainAccount));

  it.each([
    [10, 0],
    [10, 10],
    [25, 0],
    [1, 11],
    [5, 200],
  ])('limit %i skip %i pages the shop accounts', async (txLimit, txSkip) => {
    const result = await stack.execute(FactoryEverythingDocument, { id: FIXTURE_IDS.shop, slot: 1, txLimit, txSkip });
    expect(result.errors).toBeUndefined();
    expect(result.data?.factory?.bankAccounts).toEqual(
      shop.bankAccounts.map((a) => expectedFactoryAccount(a, txLimit, txSkip)),
    );
  });

  it('limit 10 skip 10 on the 12 transactions of the main account gives 2 and totalTransactions 12', async () => {
    expect(main.transactions).toHaveLength(12);
    const result = await stack.execute(FactoryEverythingDocument, {
      id: FIXTURE_IDS.shop,
      slot: 1,
      txLimit: 10,
      txSkip: 10,
    });
    const account = must(result.data?.factory?.bankAccounts?.find((a) => a.id === FIXTURE_IDS.shopMainAccount));
    expect(account.transactions?.totalTransactions).toBe(12);
    expect(account.transactions?.transactions).toHaveLength(2);
  });

  it('resolves through a fragment on the BankAccount interface for both account kinds', async () => {
    const hafen = building(FIXTURE_IDS.hafen);
    const result = await stack.execute(
      BankAccountTransactionsFragmentDocument,
      { factoryId: FIXTURE_IDS.shop, buildingId: FIXTURE_IDS.hafen, limit: 25, skip: 25 },
      { key: freshKey().key },
    );
    expect(result.errors).toBeUndefined();
    const pick = (a: {
      id: string;
      vban: string;
      transactions: { totalTransactions: number; transactions: { amount: number; reference: string | null }[] };
    }) => ({
      id: a.id,
      vban: a.vban,
      transactions: {
        totalTransactions: a.transactions.totalTransactions,
        transactions: a.transactions.transactions.map((t) => ({ amount: t.amount, reference: t.reference })),
      },
    });
    expect(result.data?.factory?.bankAccounts).toEqual(
      shop.bankAccounts.map((a) => pick(expectedFactoryAccount(a, 25, 25))),
    );
    expect(result.data?.building?.bankAccounts).toEqual(
      hafen.bankAccounts.map((a) => pick(expectedBuildingAccount(a, 25, 25))),
    );
    const hafenMain = must(result.data?.building?.bankAccounts?.find((a) => a.id === FIXTURE_IDS.hafenMainAccount));
    expect(hafenMain.transactions?.totalTransactions).toBe(40);
    expect(hafenMain.transactions?.transactions).toHaveLength(15);
    expect(stack.simulator.countRequests({ route: 'GET /factory/transactions/{bankId}/{limit}/{skip}' })).toBe(
      shop.bankAccounts.length,
    );
    expect(stack.simulator.countRequests({ route: 'GET /building/transactions/{bankId}/{limit}/{skip}' })).toBe(
      hafen.bankAccounts.length,
    );
  });
});

describe('Factory.option(slot) and Factory.options', () => {
  const shop = company(FIXTURE_IDS.shop);

  it.each([1, 2, 3, 10])('option(%i) of the shop is the stored slot or null', async (slot) => {
    const result = await stack.execute(FactoryOptionsDocument, { id: FIXTURE_IDS.shop, slot });
    expect(result.errors).toBeUndefined();
    expect(result.data?.factory?.option).toEqual(expectedOption(slot, shop.options[String(slot)]));
    expect(result.data?.factory?.options).toEqual(expectedOptions(shop).map((o) => ({ slot: o.slot, title: o.title })));
  });

  it('an unset slot is null in option(slot) and left out of options, without an error', async () => {
    const result = await stack.execute(FactoryOptionsDocument, { id: FIXTURE_IDS.shop, slot: 5 });
    expect(result.errors).toBeUndefined();
    expect(result.data?.factory?.option).toBeNull();
    expect(result.data?.factory?.options?.map((o) => o.slot)).not.toContain(5);
  });

  it('options and option(slot) share the ten slot requests: each slot requested once', async () => {
    const result = await stack.execute(
      FactoryOptionsDocument,
      { id: FIXTURE_IDS.shop, slot: 2 },
      { key: freshKey().key },
    );
    expect(result.errors).toBeUndefined();
    expect(repeatedCalls(stack.simulator)).toEqual([]);
    expect(stack.simulator.countRequests({ route: 'GET /factory/options/{id}/{slot}' })).toBe(10);
    expect(stack.simulator.requests).toHaveLength(11);
  });
});

describe('per-operation dedup (AliasedFactories: aliases, a repeated fragment and factory(id))', () => {
  it('makes each distinct upstream request exactly once and answers every alias alike', async () => {
    const { main } = fixtureCharacters();
    const result = await stack.execute(AliasedFactoriesDocument, { id: FIXTURE_IDS.shop }, { key: freshKey().key });
    expect(result.errors).toBeUndefined();
    const expectedStock = main.companies.map((c) => ({
      id: c.id,
      inventory: { totalWeight: expectedInventory(c.inventory, true).totalWeight },
      counter: { totalWeight: expectedCounter(c, true).totalWeight },
    }));
    expect(result.data?.a).toEqual(expectedStock);
    expect(result.data?.b).toEqual(expectedStock);
    expect(result.data?.one).toEqual({
      id: FIXTURE_IDS.shop,
      inventory: { totalWeight: expectedInventory(company(FIXTURE_IDS.shop).inventory, true).totalWeight },
      counter: {
        totalWeight: expectedCounter(company(FIXTURE_IDS.shop), true).totalWeight,
        items: company(FIXTURE_IDS.shop).counter.map((i) => ({ item: i.item })),
      },
    });

    const counts = callCounts(stack.simulator);
    const expected = [
      'GET /factory/list/',
      ...main.companies.flatMap((c) => [`GET /factory/inventory/${c.id}`, `GET /factory/counter/${c.id}`]),
    ];
    expect([...counts.keys()].sort()).toEqual([...expected].sort());
    for (const call of expected) expect([call, counts.get(call)]).toEqual([call, 1]);
  });
});

describe('icons and images by access', () => {
  it('are URLs with premium access and null without (inventory, counter, vehicles, sell offers)', async () => {
    for (const [key, premium] of [
      [DEMO_KEYS.premium.key, true],
      [NON_PREMIUM_KEY.key, false],
    ] as const) {
      const shop = company(FIXTURE_IDS.shop);
      const dealer = company(FIXTURE_IDS.carDealer);
      const shopResult = await stack.execute(FactoryEverythingDocument, { id: FIXTURE_IDS.shop, slot: 1 }, { key });
      const shopData = must(shopResult.data?.factory);
      expect(shopData.inventory).toEqual(expectedInventory(shop.inventory, premium));
      expect(shopData.counter).toEqual(expectedCounter(shop, premium));
      expect(shopData.sellOffers).toEqual(expectedSellOffers(shop, premium));
      expect(shopData.buyOffers?.map((o) => o.icon)).toEqual(
        shop.buyOffers.map(() => (premium ? expect.stringMatching(/^https:\/\//) : null)),
      );
      const dealerResult = await stack.execute(
        FactoryEverythingDocument,
        { id: FIXTURE_IDS.carDealer, slot: 1 },
        { key },
      );
      expect(dealerResult.data?.factory?.vehicles).toEqual(expectedVehicles(dealer, premium));
    }
  });

  it('are null for the basic key on the fields it may read (FactoryStores inventory)', async () => {
    const { main } = fixtureCharacters();
    const result = await stack.execute(FactoryStoresDocument, {}, { key: DEMO_KEYS.basic.key });
    expect(result.data?.factories?.map((f) => f.inventory)).toEqual(
      main.companies.map((c) => {
        const inv = expectedInventory(c.inventory, false);
        return {
          totalWeight: inv.totalWeight,
          items: inv.items.map((i) => ({ item: i.item, amount: i.amount, icon: null })),
        };
      }),
    );
  });
});
