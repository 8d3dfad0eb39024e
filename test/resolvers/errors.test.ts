/**
 * Every error code of docs/errors.md as the resolvers produce it, with its
 * extensions, its path, the partial data around it and the upstream requests it costs.
 */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { parse, print } from 'graphql';
import {
  AuctionsDocument,
  BankAccountTransactionsFragmentDocument,
  BuildingEverythingDocument,
  BuildingTransactionsInlineLimit26Document,
  BuildingTransactionsInlineSkip201Document,
  BuildingsDocument,
  BuyLogInlineLimit51Document,
  BuyLogInlineSkipNegativeDocument,
  BuyLogPageDocument,
  FactoriesDocument,
  FactoryEverythingDocument,
  FactoryOptionsDocument,
  FactoryStoresDocument,
  FactoryTransactionsInlineLimit0Document,
  FactoryTransactionsInlineSkip201Document,
  OptionInlineSlot0Document,
  OptionInlineSlot11Document,
  RoomTenantsDocument,
  SchemaQueryTypeNameDocument,
} from '../generated/graphql';
import type { FactoryEverythingQueryVariables } from '../generated/graphql';
import * as factoriesApi from '../../src/domains/factories/factories.api';
import { DEMO_KEYS, FIXTURE_IDS, PREMIUM_MESSAGE } from '../../src/simulator';
import { startStack, useStack } from '../support';
import type { Result } from '../support';
import {
  NON_PREMIUM_KEY,
  building,
  company,
  errorPaths,
  expectedCounter,
  expectedFactoryEverything,
  expectedInventory,
  expectedRoom,
  expectedSellOffers,
  expectedVehicles,
  fixtureCharacters,
  freshKey,
  must,
  onlyError,
} from './expected';

const INVALID_KEY = 'nope-not-a-key-7c1e9b';

const stack = useStack({ simulator: { extraKeys: [NON_PREMIUM_KEY] } }, { resetSimulator: true });

afterEach(() => {
  jest.restoreAllMocks();
});

describe('UNAUTHENTICATED: no bearer key', () => {
  it('fails each upstream-backed root field with UNAUTHENTICATED and makes no upstream request', async () => {
    const result = await stack.execute(FactoriesDocument, {}, { key: null });
    expect(result.data).toEqual({ factories: null });
    const error = onlyError(result);
    expect(error.path).toEqual(['factories']);
    expect(error.extensions).toEqual({ code: 'UNAUTHENTICATED' });
    expect(error.message).toMatch(/Authorization: Bearer/);
    expect(stack.simulator.requests).toEqual([]);
  });

  it('reports every root field of a bigger operation, still without any upstream request', async () => {
    const result = await stack.execute(AuctionsDocument, {}, { key: null });
    expect(result.data).toEqual({
      myImportAuctions: null,
      myExportAuctions: null,
      importAuctions: null,
      exportAuctions: null,
    });
    expect(errorPaths(result)).toEqual(['exportAuctions', 'importAuctions', 'myExportAuctions', 'myImportAuctions']);
    expect(result.errors?.every((e) => e.extensions?.code === 'UNAUTHENTICATED')).toBe(true);
    expect(stack.simulator.requests).toEqual([]);
  });

  it('a malformed Authorization header counts as no key', async () => {
    const result = await stack.execute(
      BuildingsDocument,
      {},
      { key: null, headers: { authorization: 'Basic dXNlcjpwYXNz' } },
    );
    expect(onlyError(result).extensions).toEqual({ code: 'UNAUTHENTICATED' });
    expect(stack.simulator.requests).toEqual([]);
  });

  it('introspection works without a key', async () => {
    const result = await stack.execute(SchemaQueryTypeNameDocument, {}, { key: null });
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({ __schema: { queryType: { name: 'Query' } } });
    expect(stack.simulator.requests).toEqual([]);
  });
});

describe('BAD_USER_INPUT: arguments out of bounds, before any upstream request', () => {
  function expectRejected(result: Result<unknown>, argument: RegExp): void {
    expect(result.data ?? undefined).toBeUndefined();
    const error = onlyError(result);
    expect(error.extensions?.code).toBe('BAD_USER_INPUT');
    expect(String(error.extensions?.argument)).toMatch(argument);
    expect(stack.simulator.requests).toEqual([]);
  }

  describe('Factory.buyLog', () => {
    it.each([
      ['limit 0', 0, 0, /limit/],
      ['limit 51', 51, 0, /limit/],
      ['skip -1', 10, -1, /skip/],
      ['skip 1001', 10, 1001, /skip/],
    ])('%s (variables)', async (_name, limit, skip, argument) => {
      expectRejected(
        await stack.execute(BuyLogPageDocument, { id: FIXTURE_IDS.workshop, limit, skip }, { key: freshKey().key }),
        argument,
      );
    });

    it.each([
      ['limit 51', BuyLogInlineLimit51Document, /limit/],
      ['skip -1', BuyLogInlineSkipNegativeDocument, /skip/],
    ])('%s (inline, next to a valid factories field)', async (_name, document, argument) => {
      expectRejected(await stack.execute(document, { id: FIXTURE_IDS.workshop }, { key: freshKey().key }), argument);
    });
  });

  describe('transactions of both account kinds', () => {
    const pages: Array<[string, number, number, RegExp]> = [
      ['limit 0', 0, 0, /limit/],
      ['limit 26', 26, 0, /limit/],
      ['skip 201', 10, 201, /skip/],
      ['skip -1', 10, -1, /skip/],
    ];

    it.each(pages)(
      'FactoryBankAccount.transactions %s (variables, with every other Factory field valid)',
      async (_name, txLimit, txSkip, argument) => {
        expectRejected(
          await stack.execute(
            FactoryEverythingDocument,
            { id: FIXTURE_IDS.shop, slot: 1, txLimit, txSkip },
            { key: freshKey().key },
          ),
          argument,
        );
      },
    );

    it.each(pages)(
      'BuildingBankAccount.transactions %s (variables, with every other Building field valid)',
      async (_name, txLimit, txSkip, argument) => {
        expectRejected(
          await stack.execute(
            BuildingEverythingDocument,
            { id: FIXTURE_IDS.hafen, txLimit, txSkip },
            { key: freshKey().key },
          ),
          argument,
        );
      },
    );

    it.each(pages)(
      'BankAccount.transactions %s through a fragment on the interface',
      async (_name, limit, skip, argument) => {
        expectRejected(
          await stack.execute(
            BankAccountTransactionsFragmentDocument,
            { factoryId: FIXTURE_IDS.shop, buildingId: FIXTURE_IDS.hafen, limit, skip },
            { key: freshKey().key },
          ),
          argument,
        );
      },
    );

    it.each([
      ['FactoryBankAccount limit 0', FactoryTransactionsInlineLimit0Document, FIXTURE_IDS.shop, /limit/],
      ['FactoryBankAccount skip 201', FactoryTransactionsInlineSkip201Document, FIXTURE_IDS.shop, /skip/],
      ['BuildingBankAccount limit 26', BuildingTransactionsInlineLimit26Document, FIXTURE_IDS.hafen, /limit/],
      ['BuildingBankAccount skip 201', BuildingTransactionsInlineSkip201Document, FIXTURE_IDS.hafen, /skip/],
    ])('%s (inline)', async (_name, document, id, argument) => {
      expectRejected(await stack.execute(document, { id }, { key: freshKey().key }), argument);
    });
  });

  describe('Factory.option(slot)', () => {
    it.each([0, 11, -1])('slot %i (variables)', async (slot) => {
      expectRejected(
        await stack.execute(FactoryOptionsDocument, { id: FIXTURE_IDS.shop, slot }, { key: freshKey().key }),
        /slot/,
      );
    });

    it.each([0, 11])('slot %i with every other Factory field valid', async (slot) => {
      expectRejected(
        await stack.execute(FactoryEverythingDocument, { id: FIXTURE_IDS.shop, slot }, { key: freshKey().key }),
        /slot/,
      );
    });

    it.each([
      ['slot 0', OptionInlineSlot0Document],
      ['slot 11', OptionInlineSlot11Document],
    ])('%s (inline)', async (_name, document) => {
      expectRejected(await stack.execute(document, { id: FIXTURE_IDS.shop }, { key: freshKey().key }), /slot/);
    });
  });

  it('is reported also without a key (bounds come first; nothing reaches the upstream)', async () => {
    expectRejected(
      await stack.execute(BuyLogPageDocument, { id: FIXTURE_IDS.workshop, limit: 51, skip: 0 }, { key: null }),
      /limit/,
    );
  });

  it('accepts the bounds themselves (limit 1/50, skip 0/1000, transactions limit 1/25 skip 0/200, slot 1/10)', async () => {
    const valid: FactoryEverythingQueryVariables[] = [
      { id: FIXTURE_IDS.workshop, slot: 1, buyLogLimit: 1, buyLogSkip: 0, txLimit: 1, txSkip: 0 },
      { id: FIXTURE_IDS.workshop, slot: 10, buyLogLimit: 50, buyLogSkip: 1000, txLimit: 25, txSkip: 200 },
    ];
    for (const variables of valid) {
      const result = await stack.execute(FactoryEverythingDocument, variables, { key: freshKey().key });
      expect(result.errors).toBeUndefined();
      expect(result.data?.factory?.id).toBe(FIXTURE_IDS.workshop);
    }
  });
});

describe('UPSTREAM_BAD_REQUEST: upstream 400 (missing scope)', () => {
  it('basic key: the list and each inventory are there, each counter is null with its own error (partial data)', async () => {
    const { main } = fixtureCharacters();
    const result = await stack.execute(FactoryStoresDocument, {}, { key: DEMO_KEYS.basic.key });
    const factories = must(result.data?.factories);
    expect(factories.map((f) => [f.id, f.name])).toEqual(main.companies.map((c) => [c.id, c.name]));
    factories.forEach((factory, index) => {
      const fixture = must(main.companies[index]);
      const inventory = expectedInventory(fixture.inventory, false);
      expect(factory.inventory).toEqual({
        totalWeight: inventory.totalWeight,
        items: inventory.items.map((i) => ({ item: i.item, amount: i.amount, icon: null })),
      });
      expect(factory.counter).toBeNull();
    });
    expect(errorPaths(result)).toEqual(main.companies.map((_c, index) => `factories.${index}.counter`).sort());
    for (const error of result.errors ?? []) {
      expect(error.extensions).toEqual({
        code: 'UPSTREAM_BAD_REQUEST',
        upstream: { status: 400, endpoint: 'GET /factory/counter/{id}', message: 'Missing scope: factory.counter' },
        requiredScopes: ['factory', 'factory.counter'],
      });
    }
    // The error for the first company sits exactly at ['factories', 0, 'counter'].
    expect(result.errors?.some((e) => JSON.stringify(e.path) === JSON.stringify(['factories', 0, 'counter']))).toBe(
      true,
    );
  });

  it.each([
    ['productions', 'GET /factory/productions/{id}', 'factory.productions'],
    ['bankAccounts', 'GET /factory/bankaccounts/{id}', 'factory.bankaccount'],
    ['vehicles', 'GET /factory/vehicles/{id}', 'factory.vehicles'],
    ['buyLog', 'GET /factory/buyLog/{id}/{limit}/{skip}', 'factory.buylog'],
    ['option', 'GET /factory/options/{id}/{slot}', 'factory.options'],
    ['options', 'GET /factory/options/{id}/{slot}', 'factory.options'],
  ])('basic key on Factory.%s: names the endpoint and the scopes it needs', async (field, endpoint, scope) => {
    const result = await stack.execute(
      FactoryEverythingDocument,
      { id: FIXTURE_IDS.shop, slot: 1 },
      { key: DEMO_KEYS.basic.key },
    );
    const factory = must(result.data?.factory);
    expect(factory[field as keyof typeof factory]).toBeNull();
    const error = must(result.errors?.find((e) => JSON.stringify(e.path) === JSON.stringify(['factory', field])));
    expect(error.extensions).toEqual({
      code: 'UPSTREAM_BAD_REQUEST',
      upstream: { status: 400, endpoint, message: `Missing scope: ${scope}` },
      requiredScopes: ['factory', scope],
    });
    // Fields the basic key may read are there.
    expect(factory.inventory).toEqual(expectedInventory(company(FIXTURE_IDS.shop).inventory, false));
    expect(factory.sellOffers).toEqual(expectedSellOffers(company(FIXTURE_IDS.shop), false));
  });

  it('basic key on a building: details, tenants and bank accounts fail, rooms are there', async () => {
    const hafen = building(FIXTURE_IDS.hafen);
    const result = await stack.execute(
      BuildingEverythingDocument,
      { id: FIXTURE_IDS.hafen },
      { key: DEMO_KEYS.basic.key },
    );
    const data = must(result.data?.building);
    expect(data.details).toBeNull();
    expect(data.tenants).toBeNull();
    expect(data.bankAccounts).toBeNull();
    expect(
      data.rooms?.map(({ id, hash, name, rent, occupied, interior, interiorImage, interiorDetails }) => ({
        id,
        hash,
        name,
        rent,
        occupied,
        interior,
        interiorImage,
        interiorDetails,
      })),
    ).toEqual(hafen.rooms.map((r) => expectedRoom(r, false)));
    const byPath = new Map((result.errors ?? []).map((e) => [(e.path ?? []).join('.'), e.extensions]));
    expect(byPath.get('building.details')).toEqual({
      code: 'UPSTREAM_BAD_REQUEST',
      upstream: { status: 400, endpoint: 'GET /building/details/{id}', message: 'Missing scope: building.details' },
      requiredScopes: ['building', 'building.details'],
    });
    expect(byPath.get('building.tenants')).toMatchObject({
      code: 'UPSTREAM_BAD_REQUEST',
      requiredScopes: ['building', 'building.tenants'],
    });
    expect(byPath.get('building.bankAccounts')).toMatchObject({
      code: 'UPSTREAM_BAD_REQUEST',
      requiredScopes: ['building', 'building.bankaccount'],
    });
  });
});

describe('FORBIDDEN: upstream 401', () => {
  function premiumForbidden(endpoint: string, scopes: string[]): Record<string, unknown> {
    return {
      code: 'FORBIDDEN',
      upstream: { status: 401, endpoint, message: PREMIUM_MESSAGE },
      requiredScopes: scopes,
      premium: true,
    };
  }

  it('premium-only company fields without premium: premium: true; every other field is there', async () => {
    const shop = company(FIXTURE_IDS.shop);
    const result = await stack.execute(
      FactoryEverythingDocument,
      { id: FIXTURE_IDS.shop, slot: 1 },
      { key: NON_PREMIUM_KEY.key },
    );
    const data = must(result.data?.factory);
    expect(data.productions).toBeNull();
    expect(data.bankAccounts).toBeNull();
    expect(errorPaths(result)).toEqual(['factory.bankAccounts', 'factory.productions']);
    const byPath = new Map((result.errors ?? []).map((e) => [(e.path ?? []).join('.'), e.extensions]));
    expect(byPath.get('factory.productions')).toEqual(
      premiumForbidden('GET /factory/productions/{id}', ['factory', 'factory.productions']),
    );
    expect(byPath.get('factory.bankAccounts')).toEqual(
      premiumForbidden('GET /factory/bankaccounts/{id}', ['factory', 'factory.bankaccount']),
    );
    // Partial data: every field that does not need premium is as for the premium key, icons null.
    const premium = expectedFactoryEverything(shop, {
      slot: 1,
      buyLogLimit: 50,
      buyLogSkip: 0,
      txLimit: 10,
      txSkip: 0,
    });
    expect({ ...data, productions: undefined, bankAccounts: undefined }).toEqual({
      ...premium,
      productions: undefined,
      bankAccounts: undefined,
      inventory: expectedInventory(shop.inventory, false),
      counter: expectedCounter(shop, false),
      vehicles: expectedVehicles(shop, false),
      sellOffers: expectedSellOffers(shop, false),
      buyOffers: premium.buyOffers.map((o) => ({ ...o, icon: null })),
    });
  });

  it('premium-only building fields without premium: tenants, bank accounts and Room.tenant of rented rooms', async () => {
    const hafen = building(FIXTURE_IDS.hafen);
    const result = await stack.execute(
      BuildingEverythingDocument,
      { id: FIXTURE_IDS.hafen },
      { key: NON_PREMIUM_KEY.key },
    );
    const data = must(result.data?.building);
    expect(data.details).not.toBeNull();
    expect(data.rooms).toHaveLength(hafen.rooms.length);
    expect(data.tenants).toBeNull();
    expect(data.bankAccounts).toBeNull();
    const rented = hafen.rooms.flatMap((r, i) => (r.tenant === null ? [] : [`building.rooms.${i}.tenant`]));
    expect(errorPaths(result)).toEqual(['building.bankAccounts', 'building.tenants', ...rented].sort());
    const byPath = new Map((result.errors ?? []).map((e) => [(e.path ?? []).join('.'), e.extensions]));
    expect(byPath.get('building.tenants')).toEqual(
      premiumForbidden('GET /building/tenants/{id}', ['building', 'building.tenants']),
    );
    expect(byPath.get('building.bankAccounts')).toEqual(
      premiumForbidden('GET /building/bankaccounts/{id}', ['building', 'building.bankaccount']),
    );
    for (const path of rented)
      expect(byPath.get(path)).toEqual(
        premiumForbidden('GET /building/tenants/{id}', ['building', 'building.tenants']),
      );
  });

  it.each([
    ['basic', DEMO_KEYS.basic.key],
    ['non-premium with every scope', NON_PREMIUM_KEY.key],
  ])('importAuctions and exportAuctions without premium (%s key): premium: true', async (_name, key) => {
    const result = await stack.execute(AuctionsDocument, {}, { key });
    const byPath = new Map((result.errors ?? []).map((e) => [(e.path ?? []).join('.'), e.extensions]));
    expect(byPath.get('importAuctions')).toEqual(premiumForbidden('GET /market/import', ['market']));
    expect(byPath.get('exportAuctions')).toEqual(premiumForbidden('GET /market/export', ['market']));
    expect(result.data?.myImportAuctions).not.toBeNull();
  });

  it('an invalid key: FORBIDDEN with upstream and requiredScopes but no premium flag, and the key is not echoed', async () => {
    const result = await stack.execute(FactoriesDocument, {}, { key: INVALID_KEY });
    expect(result.data).toEqual({ factories: null });
    const error = onlyError(result);
    expect(error.path).toEqual(['factories']);
    expect(error.extensions).toEqual({
      code: 'FORBIDDEN',
      upstream: { status: 401, endpoint: 'GET /factory/list/', message: 'Invalid API key' },
      requiredScopes: ['factory'],
    });
    expect(error.extensions).not.toHaveProperty('premium');
    expect(JSON.stringify(result)).not.toContain(INVALID_KEY);
    // The key was forwarded (the simulator saw a bearer it did not know).
    expect(stack.simulator.requests.map((r) => r.keyLabel)).toEqual(['invalid']);
  });
});

describe('NOT_FOUND: upstream 404 on a read', () => {
  it('carries upstream {status 404, endpoint, message} and nothing else', async () => {
    // A gateway whose base URL misses the /req prefix: the simulator answers 404 to every path.
    const lost = await startStack({ config: { upstreamBaseUrl: stack.simulator.origin } });
    try {
      const result = await lost.execute(FactoriesDocument, {}, { key: freshKey().key });
      expect(result.data).toEqual({ factories: null });
      const error = onlyError(result);
      expect(error.path).toEqual(['factories']);
      expect(error.extensions).toEqual({
        code: 'NOT_FOUND',
        upstream: { status: 404, endpoint: 'GET /factory/list/', message: 'Cannot GET /factory/list/' },
      });
    } finally {
      await lost.close();
    }
  });
});

describe('RATE_LIMITED: upstream 429', () => {
  const limited = useStack({ simulator: { rateLimit: { requests: 1, windowSeconds: 30 } } });

  it('nulls the limited fields with retryAfterSeconds; what was answered before is returned', async () => {
    const { main } = fixtureCharacters();
    const result = await limited.execute(FactoryStoresDocument, {}, { key: freshKey().key });
    // The one allowed request was the list; every store and counter request was refused.
    expect(result.data?.factories?.map((f) => f.id)).toEqual(main.companies.map((c) => c.id));
    expect(result.data?.factories?.every((f) => f.inventory === null && f.counter === null)).toBe(true);
    const expectedPaths = main.companies
      .flatMap((_c, i) => [`factories.${i}.counter`, `factories.${i}.inventory`])
      .sort();
    expect(errorPaths(result)).toEqual(expectedPaths);
    for (const error of result.errors ?? []) {
      expect(error.extensions?.code).toBe('RATE_LIMITED');
      const retryAfter = error.extensions?.retryAfterSeconds;
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(30);
    }
    expect(limited.simulator.requests.some((r) => r.status === 429)).toBe(true);
  });

  it('sends nothing more for the key until Retry-After has passed', async () => {
    const { key } = freshKey();
    const first = await limited.execute(FactoryStoresDocument, {}, { key });
    expect(first.errors?.every((e) => e.extensions?.code === 'RATE_LIMITED')).toBe(true);
    limited.simulator.resetRequests();
    const second = await limited.execute(AuctionsDocument, {}, { key });
    expect(second.data).toEqual({
      myImportAuctions: null,
      myExportAuctions: null,
      importAuctions: null,
      exportAuctions: null,
    });
    expect(second.errors?.map((e) => e.extensions?.code)).toEqual([
      'RATE_LIMITED',
      'RATE_LIMITED',
      'RATE_LIMITED',
      'RATE_LIMITED',
    ]);
    for (const error of second.errors ?? []) {
      expect(Number.isInteger(error.extensions?.retryAfterSeconds)).toBe(true);
      expect(error.extensions?.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    }
    expect(limited.simulator.requests).toEqual([]);
  });
});

describe('UPSTREAM_ERROR: connection refused', () => {
  it('carries upstream {status: null, endpoint, message}; each failing root field has its own error', async () => {
    const refused = await startStack({ config: { upstreamBaseUrl: 'http://127.0.0.1:1/req' } });
    try {
      const { key } = freshKey();
      const result = await refused.execute(FactoriesDocument, {}, { key });
      expect(result.data).toEqual({ factories: null });
      const error = onlyError(result);
      expect(error.path).toEqual(['factories']);
      expect(error.extensions).toEqual({
        code: 'UPSTREAM_ERROR',
        upstream: { status: null, endpoint: 'GET /factory/list/', message: expect.any(String) },
      });
      expect(JSON.stringify(result)).not.toContain(key);

      const buildings = await refused.execute(BuildingsDocument, {}, { key });
      expect(onlyError(buildings).extensions).toMatchObject({
        code: 'UPSTREAM_ERROR',
        upstream: { status: null, endpoint: 'GET /building/list' },
      });
    } finally {
      await refused.close();
    }
  });
});

describe('UPSTREAM_TIMEOUT: the upstream answers later than the timeout', () => {
  // undici checks headers timeouts with a coarse timer (about half-second ticks), so a
  // 50 ms timeout fires within about a second: the simulator's latency is well above that.
  it('carries upstream {status: null, endpoint, message}', async () => {
    const slow = await startStack({ simulator: { latencyMs: 2500 }, config: { upstreamTimeoutMs: 50 } });
    try {
      const result = await slow.execute(BuildingsDocument, {}, { key: freshKey().key });
      expect(result.data).toEqual({ buildings: null });
      const error = onlyError(result);
      expect(error.path).toEqual(['buildings']);
      expect(error.extensions).toEqual({
        code: 'UPSTREAM_TIMEOUT',
        upstream: { status: null, endpoint: 'GET /building/list', message: expect.any(String) },
      });
    } finally {
      await slow.close();
    }
  });
});

describe('QUERY_TOO_EXPENSIVE: over the upstream-cost or depth limit, before any upstream request', () => {
  const strict = useStack({ config: { maxUpstreamRequests: 20, maxDepth: 3 } }, { resetSimulator: true });

  it('an operation whose worst-case cost is over maxCost: cost and maxCost in extensions, no data, no request', async () => {
    const result = await strict.execute(
      FactoryOptionsDocument,
      { id: FIXTURE_IDS.shop, slot: 1 },
      { key: freshKey().key },
    );
    expect(result.errors).toBeUndefined();
    strict.simulator.resetRequests();
    // Three levels deep (within maxDepth), but 1 + 10 companies × 10 option slots = 101 upstream requests in the worst case.
    const cheapLooking = parse('query AllOptions { factories { options { title } } }') as TypedDocumentNode<
      Record<string, unknown>,
      Record<string, never>
    >;
    const expensive = await strict.execute(cheapLooking, {}, { key: freshKey().key });
    expect(expensive.data ?? undefined).toBeUndefined();
    const error = onlyError(expensive);
    expect(error.extensions).toMatchObject({ code: 'QUERY_TOO_EXPENSIVE', maxCost: 20 });
    expect(Number(error.extensions?.cost)).toBeGreaterThan(20);
    expect(strict.simulator.requests).toEqual([]);
  });

  it('an operation deeper than the depth limit', async () => {
    // building > rooms > tenant > roomId is four levels deep (and cheap: its cost is within the limit).
    const result = await strict.execute(RoomTenantsDocument, { id: FIXTURE_IDS.hafen }, { key: freshKey().key });
    expect(result.data ?? undefined).toBeUndefined();
    const error = onlyError(result);
    expect(error.extensions).toMatchObject({ code: 'QUERY_TOO_EXPENSIVE', maxDepth: 3 });
    expect(Number(error.extensions?.depth)).toBeGreaterThan(3);
    expect(strict.simulator.requests).toEqual([]);
  });
});

describe('INTERNAL_SERVER_ERROR: anything that is not a gateway error is masked', () => {
  const SECRET_DETAIL = 'db password hunter2 at /srv/internal/thing.ts:12';

  it('a rejected plain Error: message "Internal server error", no original message, no stacktrace', async () => {
    jest.spyOn(factoriesApi, 'fetchFactoryList').mockRejectedValue(new Error(SECRET_DETAIL));
    const query = await stack.execute(FactoriesDocument, {}, { key: freshKey().key });
    expect(query.data).toEqual({ factories: null });
    const error = onlyError(query);
    expect(error.message).toBe('Internal server error');
    expect(error.path).toEqual(['factories']);
    expect(error.extensions).toEqual({ code: 'INTERNAL_SERVER_ERROR' });
    expect(JSON.stringify(query)).not.toContain('hunter2');
    expect(JSON.stringify(query)).not.toContain('stacktrace');
  });

  it('a TypeError thrown synchronously is masked the same way', async () => {
    jest.spyOn(factoriesApi, 'fetchFactoryList').mockImplementation(() => {
      throw new TypeError(`Cannot read properties of undefined (${SECRET_DETAIL})`);
    });
    const result = await stack.execute(
      FactoryEverythingDocument,
      { id: FIXTURE_IDS.shop, slot: 1 },
      { key: freshKey().key },
    );
    expect(result.data).toEqual({ factory: null });
    const error = onlyError(result);
    expect(error).toEqual({
      message: 'Internal server error',
      path: ['factory'],
      locations: expect.any(Array),
      extensions: { code: 'INTERNAL_SERVER_ERROR' },
    });
    expect(JSON.stringify(result)).not.toContain('hunter2');
  });
});

describe('bounds are checked for the executed operation only', () => {
  // GraphQL executes only the selected operation; an out-of-bounds argument in another
  // operation of the same document must not reject it.
  it('a document with a valid operation selected by operationName and an invalid other operation runs the valid one', async () => {
    const http = await startStack({ http: true });
    try {
      const query = `${print(FactoriesDocument)}\n${print(BuyLogInlineLimit51Document)}`;
      const response = await http.post({ query, operationName: 'Factories' }, { key: freshKey().key });
      expect(response.body.errors).toBeUndefined();
      expect(response.status).toBe(200);
      expect(response.body.data).toEqual({
        factories: fixtureCharacters().main.companies.map((c) => ({
          id: c.id,
          name: c.name,
          hash: c.hash,
          adLine: c.adLine,
          isOpen: c.isOpen,
          type: c.type,
          address: c.address,
        })),
      });
    } finally {
      await http.close();
    }
  });
});
