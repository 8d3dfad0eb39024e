/**
 * The product's core promise over real HTTP: the company dashboard makes exactly the
 * upstream requests its fields need, each distinct request once, counted in the
 * simulator's own request log.
 */
import { AliasedFactoriesDocument, CompanyDashboardDocument } from '../generated/graphql';
import type { CompanyDashboardQuery } from '../generated/graphql';
import { BOUNDS } from '../../src/field-rules/bounds';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import {
  asObjects,
  bearer,
  duplicates,
  errorsAt,
  mainCharacter,
  operationBody,
  parseResult,
  send,
  upstreamCalls,
  useStack,
} from '../support';

/** Option slots `Factory.options` reads, one request each (1..10). */
const OPTION_SLOTS = Array.from({ length: BOUNDS.slot.max - BOUNDS.slot.min + 1 }, (_, i) => BOUNDS.slot.min + i);

/** The transaction pages the dashboard asks for (see CompanyDashboard.graphql). */
const COMPANY_TX = { limit: 5, skip: 0 };
const BUILDING_TX = { limit: 25, skip: 0 };

/** Requests for one company apart from its accounts' transactions: 6 reads, the option slots, the account list. */
const REQUESTS_PER_COMPANY =
  ['inventory', 'machine', 'counter', 'sell offers', 'buy offers', 'vehicles'].length + OPTION_SLOTS.length + 1;
/** Requests for one building apart from its accounts' transactions: details, rooms, tenants, account list. */
const REQUESTS_PER_BUILDING = 4;

/**
 * Every upstream request the dashboard must make for character 1, as `METHOD /path`.
 * Room.tenant and Tenant.room reuse the tenants and rooms requests, so they add nothing.
 */
function expectedDashboardRequests(): string[] {
  const me = mainCharacter();
  const calls = ['GET /factory/list/'];
  for (const company of me.companies) {
    const id = company.id;
    calls.push(
      `GET /factory/inventory/${id}`,
      `GET /factory/machine/${id}`,
      `GET /factory/counter/${id}`,
      `GET /factory/marketoffers/sell/${id}`,
      `GET /factory/marketoffers/buy/${id}`,
      `GET /factory/vehicles/${id}`,
      ...OPTION_SLOTS.map((slot) => `GET /factory/options/${id}/${slot}`),
      `GET /factory/bankaccounts/${id}`,
    );
    for (const account of company.bankAccounts) {
      calls.push(`GET /factory/transactions/${account.id}/${COMPANY_TX.limit}/${COMPANY_TX.skip}`);
    }
  }
  calls.push('GET /building/list');
  for (const building of me.buildings) {
    const id = building.id;
    calls.push(
      `GET /building/details/${id}`,
      `GET /building/rooms/${id}`,
      `GET /building/tenants/${id}`,
      `GET /building/bankaccounts/${id}`,
    );
    for (const account of building.bankAccounts) {
      calls.push(`GET /building/transactions/${account.id}/${BUILDING_TX.limit}/${BUILDING_TX.skip}`);
    }
  }
  return calls;
}

/** The same number, as the arithmetic a reader can check against the fixtures. */
function expectedDashboardCount(): number {
  const me = mainCharacter();
  const companyAccounts = me.companies.reduce((sum, company) => sum + company.bankAccounts.length, 0);
  const buildingAccounts = me.buildings.reduce((sum, building) => sum + building.bankAccounts.length, 0);
  const factoryList = 1;
  const buildingList = 1;
  // With the current fixtures: 1 + 4 × 17 + 5 + 1 + 2 × 4 + 3 = 86.
  return (
    factoryList +
    me.companies.length * REQUESTS_PER_COMPANY +
    companyAccounts +
    buildingList +
    me.buildings.length * REQUESTS_PER_BUILDING +
    buildingAccounts
  );
}

const sorted = (values: readonly string[]): string[] => [...values].sort();

const stack = useStack({ http: true }, { resetSimulator: true });

/** POSTs a document with the given key; `no-cache` so every request counted here really reaches the upstream. */
function postNoCache(body: unknown, key: string) {
  return send(stack.gateway.url, {
    method: 'POST',
    path: '/graphql',
    headers: { 'content-type': 'application/json', 'cache-control': 'no-cache', ...bearer(key) },
    body: JSON.stringify(body),
  });
}

describe('CompanyDashboard over HTTP (premium key)', () => {
  it('answers 200 without errors and with every company and building', async () => {
    const response = await postNoCache(operationBody(CompanyDashboardDocument), DEMO_KEYS.premium.key);
    const result = parseResult(response);

    expect(response.status).toBe(200);
    expect(result.errors).toBeUndefined();
    const data = result.data as CompanyDashboardQuery;
    const me = mainCharacter();
    expect(data.factories?.map((f) => f.id)).toEqual(me.companies.map((c) => c.id));
    expect(data.buildings?.map((b) => b.id)).toEqual(me.buildings.map((b) => b.id));
    // Spot checks that the joins and pages came through, not just nulls.
    const shop = data.factories?.find((f) => f.id === FIXTURE_IDS.shop);
    expect(shop?.bankAccounts?.map((a) => a.id)).toEqual([FIXTURE_IDS.shopMainAccount, FIXTURE_IDS.shopSavingsAccount]);
    expect(shop?.bankAccounts?.[0]?.transactions?.transactions).toHaveLength(COMPANY_TX.limit);
    expect(shop?.machineInventory).toEqual({ totalWeight: 0, items: [] });
    const hafen = data.buildings?.find((b) => b.id === FIXTURE_IDS.hafen);
    const rented = hafen?.rooms?.filter((room) => room.occupied) ?? [];
    expect(rented).toHaveLength(5);
    expect(rented.every((room) => typeof room.tenant?.tenantName === 'string')).toBe(true);
    expect(hafen?.tenants?.every((tenant) => typeof tenant.room?.name === 'string')).toBe(true);
  });

  it('makes exactly the expected upstream requests, counted in the simulator log', async () => {
    const response = await postNoCache(operationBody(CompanyDashboardDocument), DEMO_KEYS.premium.key);
    expect(response.status).toBe(200);

    const calls = upstreamCalls(stack.simulator);
    const expected = expectedDashboardRequests();
    expect(expected).toHaveLength(expectedDashboardCount());
    expect(calls).toHaveLength(expectedDashboardCount());
    expect(sorted(calls)).toEqual(sorted(expected));
    expect(stack.simulator.requests.every((request) => request.keyLabel === 'premium')).toBe(true);
  });

  it('makes each distinct upstream request (method + path) once', async () => {
    await postNoCache(operationBody(CompanyDashboardDocument), DEMO_KEYS.premium.key);
    const calls = upstreamCalls(stack.simulator);
    expect(calls.length).toBeGreaterThan(0);
    expect(duplicates(calls)).toEqual([]);
  });
});

describe('CompanyDashboard over HTTP (basic key): partial data', () => {
  it('returns 200 with the allowed fields, errors with paths for the denied ones, never data: null', async () => {
    const response = await postNoCache(operationBody(CompanyDashboardDocument), DEMO_KEYS.basic.key);
    const result = parseResult(response);

    expect(response.status).toBe(200);
    expect(result.data).not.toBeNull();
    expect(result.data).toBeDefined();
    const me = mainCharacter();
    const factories = asObjects(result.data?.factories);
    const buildings = asObjects(result.data?.buildings);
    expect(factories.map((f) => f.id)).toEqual(me.companies.map((c) => c.id));
    expect(buildings.map((b) => b.id)).toEqual(me.buildings.map((b) => b.id));

    // The basic key has factory.inventory, market and building.rooms: these fields are there.
    for (const factory of factories) {
      expect(factory.inventory).not.toBeNull();
      expect(factory.machineInventory).not.toBeNull();
      expect(factory.sellOffers).not.toBeNull();
      expect(factory.buyOffers).not.toBeNull();
    }
    for (const building of buildings) expect(building.rooms).not.toBeNull();

    // Denied: counter, vehicles, options (scopes), bankAccounts, tenants (premium), details (scope).
    const denied: [string, string][] = [
      ['factories', 'counter'],
      ['factories', 'vehicles'],
      ['factories', 'options'],
      ['factories', 'bankAccounts'],
      ['buildings', 'details'],
      ['buildings', 'tenants'],
      ['buildings', 'bankAccounts'],
    ];
    for (const [list, field] of denied) {
      const rows = list === 'factories' ? factories : buildings;
      rows.forEach((row, index) => {
        expect(row[field]).toBeNull();
        const errors = errorsAt(result, list, index, field);
        expect(errors.length).toBeGreaterThan(0);
        for (const error of errors) expect(['UPSTREAM_BAD_REQUEST', 'FORBIDDEN']).toContain(error.extensions?.code);
      });
    }
    // Every error says where it happened.
    expect(result.errors?.length).toBeGreaterThan(0);
    for (const error of result.errors ?? []) expect(error.path?.length).toBeGreaterThan(0);
  });

  it('still makes each distinct upstream request once, all with the basic key', async () => {
    await postNoCache(operationBody(CompanyDashboardDocument), DEMO_KEYS.basic.key);
    const calls = upstreamCalls(stack.simulator);
    expect(duplicates(calls)).toEqual([]);
    expect(stack.simulator.requests.every((request) => request.keyLabel === 'basic')).toBe(true);
  });
});

describe('AliasedFactories over HTTP', () => {
  it('makes each distinct upstream request once despite aliases, fragments and factory(id)', async () => {
    const response = await postNoCache(
      operationBody(AliasedFactoriesDocument, { id: FIXTURE_IDS.shop }),
      DEMO_KEYS.premium.key,
    );
    const result = parseResult(response);
    expect(response.status).toBe(200);
    expect(result.errors).toBeUndefined();
    expect(asObjects(result.data?.a)).toEqual(asObjects(result.data?.b));

    const me = mainCharacter();
    const expected = [
      'GET /factory/list/',
      ...me.companies.flatMap((c) => [`GET /factory/inventory/${c.id}`, `GET /factory/counter/${c.id}`]),
    ];
    const calls = upstreamCalls(stack.simulator);
    expect(duplicates(calls)).toEqual([]);
    expect(sorted(calls)).toEqual(sorted(expected));
  });
});
