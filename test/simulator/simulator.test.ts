import {
  ALL_SCOPES,
  DEMO_KEYS,
  FIXTURE_IDS,
  MERCHANT_IDS,
  MERCHANT_KEY,
  PREMIUM_MESSAGE,
  SIMULATOR_ROUTES,
  createFixtureState,
  describeRateLimit,
  startSimulator,
} from '../../src/simulator';
import type { Simulator, SimulatedApiKey } from '../../src/simulator';
import { parseCliArgs } from '../../src/simulator/main';

const NO_ACTIVITY_KEY: SimulatedApiKey = {
  key: 'test-no-optional-scopes',
  secret: 'test-no-optional-secret',
  label: 'no-optional',
  characterId: 'character-1',
  premium: true,
  scopes: ALL_SCOPES.filter((s) => s !== 'building.tenants.activity' && s !== 'factory.details'),
};

let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, extraKeys: [NO_ACTIVITY_KEY] });
});

afterAll(async () => {
  await sim.close();
});

beforeEach(() => {
  sim.reset();
  sim.setLatency(0);
  sim.setRateLimit('off'); // the rate-limit tests below set their own
});

interface Answer {
  status: number;
  body: unknown;
  text: string;
  headers: Headers;
}

async function call(path: string, key: string | null = DEMO_KEYS.premium.key, init: RequestInit = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...(init.headers as Record<string, string> | undefined) };
  if (key !== null) headers.authorization = `Bearer ${key}`;
  const res = await fetch(`${sim.baseUrl}${path}`, { ...init, headers });
  const text = await res.text();
  return {
    status: res.status,
    text,
    body: text.length > 0 ? (JSON.parse(text) as unknown) : undefined,
    headers: res.headers,
  };
}

function post(body: unknown, key: string = DEMO_KEYS.premium.key): Promise<Answer> {
  return call('/factory/options', key, {
    method: 'POST',
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
}

function asArray(value: unknown): Record<string, unknown>[] {
  expect(Array.isArray(value)).toBe(true);
  return value as Record<string, unknown>[];
}

function asObject(value: unknown): Record<string, unknown> {
  expect(typeof value).toBe('object');
  expect(value).not.toBeNull();
  return value as Record<string, unknown>;
}

function expectError(answer: Answer, status: number, error: string, message?: string | RegExp): void {
  expect(answer.status).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  const body = asObject(answer.body);
  expect(body.statusCode).toBe(status);
  expect(body.error).toBe(error);
  expect(typeof body.message).toBe('string');
  if (typeof message === 'string') expect(body.message).toBe(message);
  else if (message !== undefined) expect(body.message).toMatch(message);
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

describe('authentication', () => {
  it('answers 401 without a key and with an unknown key, logging no key', async () => {
    expectError(await call('/factory/list/', null), 401, 'Unauthorized');
    expectError(await call('/factory/list/', 'nope'), 401, 'Unauthorized', 'Invalid API key');
    expectError(await call('/factory/list/', 'sim-key-x'), 401, 'Unauthorized');
    expect(sim.requests.map((r) => r.keyLabel)).toEqual(['none', 'invalid', 'invalid']);
    expect(JSON.stringify(sim.requests)).not.toContain('nope');
  });

  it('accepts generated benchmark keys as premium keys of character 1', async () => {
    const res = await call(`/factory/bankaccounts/${FIXTURE_IDS.shop}`, 'sim-key-417');
    expect(res.status).toBe(200);
    expect(sim.countRequests({ keyLabel: 'generated' })).toBe(1);
  });

  it('rejects generated keys when allowGeneratedKeys is false', async () => {
    const strict = await startSimulator({ allowGeneratedKeys: false });
    try {
      const res = await fetch(`${strict.baseUrl}/factory/list/`, { headers: { authorization: 'Bearer sim-key-1' } });
      expect(res.status).toBe(401);
      await res.text();
    } finally {
      await strict.close();
    }
  });
});

describe('scopes and premium', () => {
  it('answers 400 naming the missing scope, before premium and id checks', async () => {
    const res = await call(`/factory/counter/${FIXTURE_IDS.shop}`, DEMO_KEYS.basic.key);
    expectError(res, 400, 'Bad Request', 'Missing scope: factory.counter');
    // productions: scope missing AND premium-only AND unknown id -> scope wins
    expectError(
      await call('/factory/productions/unknown', DEMO_KEYS.basic.key),
      400,
      'Bad Request',
      'Missing scope: factory.productions',
    );
    expectError(
      await call(`/building/details/${FIXTURE_IDS.hafen}`, DEMO_KEYS.basic.key),
      400,
      'Bad Request',
      'Missing scope: building.details',
    );
  });

  it('answers 401 for premium-only endpoints with a non-premium key that has the scopes', async () => {
    const basicWithScopes: SimulatedApiKey = {
      key: 'basic-all-scopes',
      secret: 's',
      label: 'basic-all',
      characterId: 'character-1',
      premium: false,
      scopes: ALL_SCOPES,
    };
    const local = await startSimulator({ extraKeys: [basicWithScopes], rateLimit: 'off' });
    try {
      const premiumOnly = [
        `/factory/productions/${FIXTURE_IDS.workshop}`,
        `/factory/bankaccounts/${FIXTURE_IDS.shop}`,
        `/factory/transactions/${FIXTURE_IDS.shopMainAccount}/5/0`,
        '/market/import',
        '/market/export',
        `/building/tenants/${FIXTURE_IDS.hafen}`,
        `/building/bankaccounts/${FIXTURE_IDS.hafen}`,
        `/building/transactions/${FIXTURE_IDS.hafenMainAccount}`,
      ];
      for (const path of premiumOnly) {
        const res = await fetch(`${local.baseUrl}${path}`, { headers: { authorization: 'Bearer basic-all-scopes' } });
        const body = asObject(await res.json());
        expect([path, res.status, body.message]).toEqual([path, 401, PREMIUM_MESSAGE]);
      }
      const open = await fetch(`${local.baseUrl}/factory/counter/${FIXTURE_IDS.shop}`, {
        headers: { authorization: 'Bearer basic-all-scopes' },
      });
      expect(open.status).toBe(200);
      await open.text();
    } finally {
      await local.close();
    }
  });

  it('answers 401 premium-only for the basic demo key on /market/import (it has the market scope)', async () => {
    expectError(await call('/market/import', DEMO_KEYS.basic.key), 401, 'Unauthorized', PREMIUM_MESSAGE);
    // Community clients check `status == 401 and "Premium" in message`.
    expect(PREMIUM_MESSAGE).toContain('Premium');
  });

  it('gives icon URLs to premium keys and null to basic keys', async () => {
    const premium = asObject((await call(`/factory/inventory/${FIXTURE_IDS.shop}`)).body);
    const basic = asObject((await call(`/factory/inventory/${FIXTURE_IDS.shop}`, DEMO_KEYS.basic.key)).body);
    const premiumItems = asArray(premium.items);
    expect(premiumItems[0]?.icon).toBe('https://static.statev.de/items/wasser.png');
    expect(asArray(basic.items).every((i) => i.icon === null)).toBe(true);
    const rooms = asArray((await call(`/building/rooms/${FIXTURE_IDS.hafen}`, DEMO_KEYS.basic.key)).body);
    expect(rooms.every((r) => r.interiorImage === null)).toBe(true);
    const premiumRooms = asArray((await call(`/building/rooms/${FIXTURE_IDS.hafen}`)).body);
    expect(premiumRooms[0]?.interiorImage).toMatch(/^https:\/\/static\.statev\.de\/interiors\/.+\.jpg$/);
    const vehicles = asArray((await call(`/factory/vehicles/${FIXTURE_IDS.carDealer}`)).body);
    expect(vehicles.every((v) => typeof v.image === 'string')).toBe(true);
  });

  it('omits isOpen/type/address without factory.details', async () => {
    const basic = asArray((await call('/factory/list/', DEMO_KEYS.basic.key)).body);
    expect(basic).toHaveLength(4);
    for (const company of basic) {
      expect(Object.keys(company).sort()).toEqual(['adLine', 'hash', 'id', 'name']);
    }
    const premium = asArray((await call('/factory/list/')).body);
    expect(premium[0]).toEqual({
      id: FIXTURE_IDS.shop,
      name: 'Max 24/7 Vinewood',
      hash: 'f3a91c07',
      adLine: 'Alles für den Alltag – rund um die Uhr!',
      isOpen: true,
      type: '24/7',
      address: 'Vinewood Blvd 12',
    });
    // trailing slash optional
    expect((await call('/factory/list')).status).toBe(200);
    expect(asArray((await call('/factory/list/', NO_ACTIVITY_KEY.key)).body)[0]).not.toHaveProperty('type');
  });

  it('includes lastPayDate only with building.tenants.activity', async () => {
    const withActivity = asArray((await call(`/building/tenants/${FIXTURE_IDS.hafen}`)).body);
    expect(withActivity).toHaveLength(5);
    expect(withActivity.every((t) => typeof t.lastPayDate === 'string' && ISO.test(t.lastPayDate))).toBe(true);
    const without = asArray((await call(`/building/tenants/${FIXTURE_IDS.hafen}`, NO_ACTIVITY_KEY.key)).body);
    expect(without).toHaveLength(5);
    expect(without.every((t) => !('lastPayDate' in t))).toBe(true);
    expect(sim.countRequests({ keyLabel: 'no-optional' })).toBe(1);
  });
});

describe('fixtures and shapes', () => {
  it('answers 200 on every route for the premium key', async () => {
    const paths: Record<string, string> = {
      'GET /factory/list/': '/factory/list/',
      'GET /factory/inventory/{id}': `/factory/inventory/${FIXTURE_IDS.workshop}`,
      'GET /factory/machine/{id}': `/factory/machine/${FIXTURE_IDS.workshop}`,
      'GET /factory/counter/{id}': `/factory/counter/${FIXTURE_IDS.shop}`,
      'GET /factory/productions/{id}': `/factory/productions/${FIXTURE_IDS.workshop}`,
      'GET /factory/bankaccounts/{id}': `/factory/bankaccounts/${FIXTURE_IDS.shop}`,
      'GET /factory/transactions/{bankId}/{limit}/{skip}': `/factory/transactions/${FIXTURE_IDS.shopMainAccount}/5/0`,
      'GET /factory/vehicles/{id}': `/factory/vehicles/${FIXTURE_IDS.carDealer}`,
      'GET /factory/marketoffers/sell/{id}': `/factory/marketoffers/sell/${FIXTURE_IDS.shop}`,
      'GET /factory/marketoffers/buy/{id}': `/factory/marketoffers/buy/${FIXTURE_IDS.shop}`,
      'GET /factory/buyLog/{id}/{limit}/{skip}': `/factory/buyLog/${FIXTURE_IDS.workshop}/10/0`,
      'GET /factory/options/{id}/{slot}': `/factory/options/${FIXTURE_IDS.shop}/1`,
      'GET /market/my/auctions/import': '/market/my/auctions/import',
      'GET /market/my/auctions/export': '/market/my/auctions/export',
      'GET /market/import': '/market/import',
      'GET /market/export': '/market/export',
      'GET /building/list': '/building/list',
      'GET /building/details/{id}': `/building/details/${FIXTURE_IDS.hafen}`,
      'GET /building/tenants/{id}': `/building/tenants/${FIXTURE_IDS.hafen}`,
      'GET /building/rooms/{id}': `/building/rooms/${FIXTURE_IDS.hafen}`,
      'GET /building/bankaccounts/{id}': `/building/bankaccounts/${FIXTURE_IDS.hafen}`,
      'GET /building/transactions/{bankId}/{limit}/{skip}': `/building/transactions/${FIXTURE_IDS.hafenMainAccount}/5/0`,
    };
    const getRoutes = SIMULATOR_ROUTES.filter((r) => r.route.startsWith('GET ')).map((r) => r.route);
    expect(Object.keys(paths).sort()).toEqual([...getRoutes].sort());
    for (const [route, path] of Object.entries(paths)) {
      const res = await call(path);
      expect([route, res.status]).toEqual([route, 200]);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(res.text)));
    }
    for (const route of getRoutes) expect(sim.countRequests({ route })).toBe(1);
  });

  it('renders stores, counters and productions with the documented fields', async () => {
    const counter = asObject((await call(`/factory/counter/${FIXTURE_IDS.shop}`)).body);
    const items = asArray(counter.items);
    expect(items.length).toBeGreaterThanOrEqual(3);
    expect(Object.keys(items[0] ?? {}).sort()).toEqual([
      'amount',
      'icon',
      'item',
      'price',
      'singleWeight',
      'totalWeight',
    ]);
    const sum = items.reduce((acc, i) => acc + (i.totalWeight as number), 0);
    expect(counter.totalWeight).toBeCloseTo(sum, 6);
    for (const i of items) expect(i.totalWeight).toBeCloseTo((i.amount as number) * (i.singleWeight as number), 6);

    const productions = asArray((await call(`/factory/productions/${FIXTURE_IDS.workshop}`)).body);
    expect(productions.length).toBeGreaterThanOrEqual(2);
    expect(productions[0]).toEqual({
      itemName: 'Reparaturkit',
      icon: 'https://static.statev.de/items/reparaturkit.png',
      neededItems: [
        { name: 'Stahl', amount: 2 },
        { name: 'Gummi', amount: 1 },
        { name: 'Schrauben', amount: 10 },
      ],
    });
  });

  it('lists vehicles of the own dealership, [] for other own companies, 404 for foreign ones', async () => {
    const vehicles = asArray((await call(`/factory/vehicles/${FIXTURE_IDS.carDealer}`)).body);
    expect(vehicles.length).toBeGreaterThanOrEqual(4);
    for (const v of vehicles) {
      expect(Object.keys(v).sort()).toEqual(['distance', 'engine', 'image', 'name', 'numberPlate']);
      expect(Number.isInteger(v.distance)).toBe(true);
    }
    expect(asArray((await call(`/factory/vehicles/${FIXTURE_IDS.shop}`)).body)).toEqual([]);
    expectError(
      await call(`/factory/vehicles/${FIXTURE_IDS.carDealer}`, DEMO_KEYS.other.key),
      404,
      'Not Found',
      'Factory not found',
    );
  });

  it('pages the buy log and validates its bounds', async () => {
    const all = asArray((await call(`/factory/buyLog/${FIXTURE_IDS.workshop}/50/0`)).body);
    expect(all).toHaveLength(50);
    const rest = asArray((await call(`/factory/buyLog/${FIXTURE_IDS.workshop}/50/50`)).body);
    expect(rest.length).toBeGreaterThanOrEqual(10);
    expect(all.some((e) => e.discount === null)).toBe(true);
    expect(all.some((e) => typeof e.discount === 'number')).toBe(true);
    const second = asArray((await call(`/factory/buyLog/${FIXTURE_IDS.workshop}/1/1`)).body);
    expect(second).toEqual([all[1]]);
    expect(Object.keys(all[0] ?? {}).sort()).toEqual(['buyer', 'createdAt', 'discount', 'items', 'price', 'seller']);
    expectError(
      await call(`/factory/buyLog/${FIXTURE_IDS.workshop}/51/0`),
      400,
      'Bad Request',
      'limit must not be greater than 50',
    );
    expectError(
      await call(`/factory/buyLog/${FIXTURE_IDS.workshop}/0/0`),
      400,
      'Bad Request',
      'limit must not be less than 1',
    );
    expectError(
      await call(`/factory/buyLog/${FIXTURE_IDS.workshop}/10/1001`),
      400,
      'Bad Request',
      'skip must not be greater than 1000',
    );
    expectError(
      await call(`/factory/buyLog/${FIXTURE_IDS.workshop}/abc/0`),
      400,
      'Bad Request',
      'limit must be an integer number',
    );
    expectError(await call(`/factory/buyLog/${FIXTURE_IDS.workshop}/10`), 404, 'Not Found'); // both segments required
  });

  it('pages building transactions with defaults 10/0 and bounds 25/200', async () => {
    const base = `/building/transactions/${FIXTURE_IDS.hafenMainAccount}`;
    const def = asObject((await call(base)).body);
    expect(def.totalTransactions).toBe(40);
    expect(asArray(def.transactions)).toHaveLength(10);
    const page = asObject((await call(`${base}/25/30`)).body);
    expect(asArray(page.transactions)).toHaveLength(10);
    const onlyLimit = asObject((await call(`${base}/3`)).body);
    expect(asArray(onlyLimit.transactions)).toEqual(asArray(def.transactions).slice(0, 3));
    const t = asArray(def.transactions)[0] ?? {};
    expect(Object.keys(t).sort()).toEqual(['amount', 'receiverVban', 'reference', 'senderVban', 'timestamp']);
    expect(t.timestamp).toMatch(ISO);
    expectError(await call(`${base}/26/0`), 400, 'Bad Request', 'limit must not be greater than 25');
    expectError(await call(`${base}/10/201`), 400, 'Bad Request', 'skip must not be greater than 200');
    expectError(await call(`${base}/10/-1`), 400, 'Bad Request', 'skip must not be less than 0');
    expectError(await call(`${base}/1.5`), 400, 'Bad Request', 'limit must be an integer number');
  });

  it('pages company transactions and rejects foreign or building accounts', async () => {
    const res = asObject((await call(`/factory/transactions/${FIXTURE_IDS.shopMainAccount}/5/10`)).body);
    expect(res.totalTransactions).toBe(12);
    expect(asArray(res.transactions)).toHaveLength(2);
    expect(
      asArray(asObject((await call(`/factory/transactions/${FIXTURE_IDS.shopMainAccount}`)).body).transactions),
    ).toHaveLength(10);
    expectError(
      await call(`/factory/transactions/${FIXTURE_IDS.shopMainAccount}/0/0`),
      400,
      'Bad Request',
      'limit must not be less than 1',
    );
    expectError(
      await call(`/factory/transactions/${FIXTURE_IDS.hafenMainAccount}/5/0`),
      404,
      'Not Found',
      'Bank account not found',
    );
    expectError(
      await call(`/factory/transactions/${FIXTURE_IDS.otherFactoryAccount}/5/0`),
      404,
      'Not Found',
      'Bank account not found',
    );
    expectError(
      await call(`/building/transactions/${FIXTURE_IDS.shopMainAccount}`),
      404,
      'Not Found',
      'Bank account not found',
    );
    expect(
      (await call(`/factory/transactions/${FIXTURE_IDS.otherFactoryAccount}/5/0`, DEMO_KEYS.other.key)).status,
    ).toBe(200);
  });

  it('renders buildings, rooms and tenants consistently', async () => {
    const list = asArray((await call('/building/list')).body);
    expect(list.map((b) => b.id)).toEqual([FIXTURE_IDS.hafen, FIXTURE_IDS.altstadt]);
    expect(Object.keys(list[0] ?? {}).sort()).toEqual(['address', 'hash', 'id', 'label']);
    const details = asObject((await call(`/building/details/${FIXTURE_IDS.hafen}`)).body);
    expect(details).toMatchObject({ id: FIXTURE_IDS.hafen, totalRooms: 8, occupiedRooms: 5, freeRooms: 3 });
    const rooms = asArray((await call(`/building/rooms/${FIXTURE_IDS.hafen}`)).body);
    expect(rooms.map((r) => r.id)).toEqual(FIXTURE_IDS.hafenRooms);
    for (const r of rooms) {
      expect(Object.keys(r).sort()).toEqual([
        'hash',
        'id',
        'interior',
        'interiorDetails',
        'interiorImage',
        'name',
        'occupied',
        'rent',
      ]);
      expect(Object.keys(asObject(r.interiorDetails)).sort()).toEqual([
        'inventoryCapacity',
        'kitchenCapacity',
        'wardrobeCapacity',
      ]);
    }
    const tenants = asArray((await call(`/building/tenants/${FIXTURE_IDS.hafen}`)).body);
    for (const t of tenants) {
      const r = rooms.find((x) => x.id === t.roomId);
      expect(r).toBeDefined();
      expect([r?.hash, r?.name, r?.occupied]).toEqual([t.roomHash, t.roomName, true]);
    }
    expect(rooms.filter((r) => r.occupied === true)).toHaveLength(tenants.length);
    const accounts = asArray((await call(`/building/bankaccounts/${FIXTURE_IDS.hafen}`)).body);
    expect(accounts.map((a) => [a.id, a.main])).toEqual([
      [FIXTURE_IDS.hafenMainAccount, true],
      [FIXTURE_IDS.hafenReserveAccount, false],
    ]);
  });

  it('returns market offers and auctions with the documented fields', async () => {
    const sell = asArray((await call(`/factory/marketoffers/sell/${FIXTURE_IDS.shop}`)).body);
    expect(Object.keys(sell[0] ?? {}).sort()).toEqual([
      'availableAmount',
      'createdAt',
      'icon',
      'item',
      'pricePerUnit',
      'totalPrice',
    ]);
    const buy = asArray((await call(`/factory/marketoffers/buy/${FIXTURE_IDS.shop}`)).body);
    expect(Object.keys(buy[0] ?? {}).sort()).toEqual([
      'availableAmount',
      'createdAt',
      'icon',
      'item',
      'listPrice',
      'pricePerUnit',
      'totalPrice',
    ]);
    const myImport = asArray((await call('/market/my/auctions/import')).body);
    expect(myImport.length).toBeGreaterThanOrEqual(2);
    expect(Object.keys(myImport[0] ?? {}).sort()).toEqual([
      'auctionEnd',
      'bidAmount',
      'icon',
      'id',
      'isLastBidderMe',
      'item',
    ]);
    const myExport = asArray((await call('/market/my/auctions/export')).body);
    expect(myExport.length).toBeGreaterThanOrEqual(2);
    expect(myExport.some((a) => a.duration === null)).toBe(true);
    expect(Object.keys(myExport[0] ?? {}).sort()).toEqual(
      [
        'amount',
        'auctionEnd',
        'bidAmount',
        'duration',
        'icon',
        'id',
        'isLastBidderMe',
        'item',
        'singleWeight',
        'totalWeight',
      ].sort(),
    );
    const imports = asArray((await call('/market/import')).body);
    expect(imports.length).toBeGreaterThanOrEqual(3);
    expect(Object.keys(imports[0] ?? {}).sort()).toEqual(['auctionEnd', 'bidAmount', 'icon', 'id', 'item']);
    const exports = asArray((await call('/market/export')).body);
    expect(exports.length).toBeGreaterThanOrEqual(3);
    expect(exports.every((a) => typeof a.duration === 'number')).toBe(true);
    expect(Object.keys(exports[0] ?? {}).sort()).toEqual([
      'amount',
      'auctionEnd',
      'bidAmount',
      'duration',
      'icon',
      'id',
      'item',
      'weight',
    ]);
    const basicImport = asArray((await call('/market/my/auctions/import', DEMO_KEYS.basic.key)).body);
    expect(basicImport.every((a) => a.icon === null)).toBe(true);
  });

  it('separates the characters', async () => {
    const other = asArray((await call('/factory/list/', DEMO_KEYS.other.key)).body);
    expect(other.map((c) => c.id)).toEqual([FIXTURE_IDS.otherFactory]);
    const otherBuildings = asArray((await call('/building/list', DEMO_KEYS.other.key)).body);
    expect(otherBuildings.map((b) => b.id)).toEqual([FIXTURE_IDS.otherBuilding]);
    expectError(await call(`/factory/inventory/${FIXTURE_IDS.otherFactory}`), 404, 'Not Found', 'Factory not found');
    expectError(
      await call(`/factory/inventory/${FIXTURE_IDS.shop}`, DEMO_KEYS.other.key),
      404,
      'Not Found',
      'Factory not found',
    );
    expectError(await call(`/building/rooms/${FIXTURE_IDS.otherBuilding}`), 404, 'Not Found', 'Building not found');
    expectError(await call('/building/details/does-not-exist'), 404, 'Not Found', 'Building not found');
    expectError(await call('/factory/productions/does-not-exist'), 404, 'Not Found', 'Factory not found');
  });

  it('gives the merchant key a character of its own with twelve company bank accounts, each polled on its own', async () => {
    const companies = asArray((await call('/factory/list/', MERCHANT_KEY.key)).body);
    expect(companies.map((c) => c.id)).toEqual([
      MERCHANT_IDS.tradingHouse,
      MERCHANT_IDS.logistics,
      MERCHANT_IDS.marketStall,
    ]);
    const accounts: Array<Record<string, unknown>> = [];
    for (const company of companies)
      accounts.push(...asArray((await call(`/factory/bankaccounts/${String(company.id)}`, MERCHANT_KEY.key)).body));
    expect(accounts.map((a) => a.id)).toEqual(MERCHANT_IDS.accounts);
    expect(new Set(accounts.map((a) => a.vban)).size).toBe(12);
    expect(accounts[9]).toMatchObject({ vban: '4713010' });
    for (const id of MERCHANT_IDS.accounts) {
      const page = asObject((await call(`/factory/transactions/${id}/25/0`, MERCHANT_KEY.key)).body);
      expect(page.totalTransactions).toBe(3);
    }
    expect(asArray((await call('/building/list', MERCHANT_KEY.key)).body)).toEqual([]);
    // Neither way across characters; the log names the key 'merchant'.
    expectError(
      await call(`/factory/transactions/${MERCHANT_IDS.accounts[0] ?? ''}/5/0`),
      404,
      'Not Found',
      'Bank account not found',
    );
    expectError(
      await call(`/factory/inventory/${FIXTURE_IDS.shop}`, MERCHANT_KEY.key),
      404,
      'Not Found',
      'Factory not found',
    );
    expect(sim.countRequests({ keyLabel: 'merchant' })).toBe(1 + 3 + 12 + 1 + 1);
    sim.change({
      kind: 'transaction',
      bankAccountId: MERCHANT_IDS.accounts[11] ?? '',
      amount: 25,
      reference: 'Order X',
      otherVban: '4799001',
    });
    expect(
      asObject((await call(`/factory/transactions/${MERCHANT_IDS.accounts[11] ?? ''}/25/0`, MERCHANT_KEY.key)).body)
        .totalTransactions,
    ).toBe(4);
  });

  it('createFixtureState returns independent deep copies', () => {
    const a = createFixtureState();
    const b = createFixtureState();
    expect(a).toEqual(b);
    a.characters[0]?.companies.pop();
    expect(b.characters[0]?.companies).toHaveLength(4);
  });
});

describe('quirks of the real API', () => {
  it('answers 404 for empty stores and counters', async () => {
    expectError(await call(`/factory/machine/${FIXTURE_IDS.shop}`), 404, 'Not Found', 'Machine store is empty');
    expectError(await call(`/factory/inventory/${FIXTURE_IDS.farm}`), 404, 'Not Found', 'Inventory is empty');
    expectError(await call(`/factory/counter/${FIXTURE_IDS.farm}`), 404, 'Not Found', 'Counter is empty');
    expectError(await call(`/factory/counter/${FIXTURE_IDS.carDealer}`), 404, 'Not Found', 'Counter is empty');
  });

  it('sends a numeric vban for one company account', async () => {
    const accounts = asArray((await call(`/factory/bankaccounts/${FIXTURE_IDS.shop}`)).body);
    expect(accounts).toEqual([
      { id: FIXTURE_IDS.shopMainAccount, vban: '4711002', balance: 18450.75, note: 'Hauptkonto' },
      { id: FIXTURE_IDS.shopSavingsAccount, vban: 4711001, balance: 50000, note: null },
    ]);
  });

  it('returns the legacy option record with lastUpdate, and 404 for unset slots', async () => {
    const slot1 = asObject((await call(`/factory/options/${FIXTURE_IDS.shop}/1`)).body);
    expect(Object.keys(slot1).sort()).toEqual(['data', 'lastUpdated', 'title']);
    const slot2 = asObject((await call(`/factory/options/${FIXTURE_IDS.shop}/2`)).body);
    expect(Object.keys(slot2).sort()).toEqual(['data', 'lastUpdate', 'title']);
    expectError(await call(`/factory/options/${FIXTURE_IDS.shop}/3`), 404, 'Not Found', 'Option not found');
    expectError(await call(`/factory/options/${FIXTURE_IDS.farm}/1`), 404, 'Not Found', 'Option not found');
    expectError(
      await call(`/factory/options/${FIXTURE_IDS.shop}/11`),
      400,
      'Bad Request',
      'option must not be greater than 10',
    );
    expectError(
      await call(`/factory/options/${FIXTURE_IDS.shop}/0`),
      400,
      'Bad Request',
      'option must not be less than 1',
    );
    expectError(await call(`/factory/options/${FIXTURE_IDS.otherFactory}/1`), 404, 'Not Found', 'Factory not found');
  });
});

describe('POST /factory/options', () => {
  const valid = {
    apiSecret: DEMO_KEYS.premium.secret,
    factoryId: FIXTURE_IDS.farm,
    option: 4,
    title: 'Hofladen',
    data: 'Sa 8–12 Uhr',
  };

  it('writes a slot and answers the JSON string "option was updated"', async () => {
    const res = await post(valid);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.text).toBe('"option was updated"');
    expect(res.body).toBe('option was updated');
    const read = asObject((await call(`/factory/options/${FIXTURE_IDS.farm}/4`)).body);
    expect(read).toMatchObject({ title: 'Hofladen', data: 'Sa 8–12 Uhr' });
    expect(read.lastUpdated).toMatch(ISO);
    // overwriting the legacy slot stores a current record
    expect((await post({ ...valid, factoryId: FIXTURE_IDS.shop, option: 2 })).status).toBe(200);
    expect(Object.keys(asObject((await call(`/factory/options/${FIXTURE_IDS.shop}/2`)).body)).sort()).toEqual([
      'data',
      'lastUpdated',
      'title',
    ]);
    expect(sim.countRequests({ route: 'POST /factory/options' })).toBe(2);
  });

  it('reset() restores the fixtures', async () => {
    expect((await post(valid)).status).toBe(200);
    sim.reset();
    expect(sim.requests).toHaveLength(0);
    expectError(await call(`/factory/options/${FIXTURE_IDS.farm}/4`), 404, 'Not Found', 'Option not found');
  });

  it('rejects wrong secrets, missing scopes, bad bounds, bad JSON and unknown companies', async () => {
    expectError(await post({ ...valid, apiSecret: 'wrong' }), 401, 'Unauthorized', 'Invalid api secret');
    expectError(await post(valid, DEMO_KEYS.basic.key), 400, 'Bad Request', 'Missing scope: factory.options.edit');
    expectError(await post({ ...valid, option: 11 }), 400, 'Bad Request', 'option must not be greater than 10');
    expectError(await post({ ...valid, option: 0 }), 400, 'Bad Request', 'option must not be less than 1');
    expectError(await post({ ...valid, option: 2.5 }), 400, 'Bad Request', 'option must be an integer number');
    expectError(await post({ ...valid, title: 'x'.repeat(65) }), 400, 'Bad Request', /title/);
    expect((await post({ ...valid, title: 'x'.repeat(64), data: 'y'.repeat(2400) })).status).toBe(200);
    expectError(await post({ ...valid, data: 'y'.repeat(2401) }), 400, 'Bad Request', /data/);
    const { data: _data, ...withoutData } = valid;
    expectError(await post(withoutData), 400, 'Bad Request', /data/);
    expectError(await post('{"apiSecret":'), 400, 'Bad Request');
    expectError(await post([valid]), 400, 'Bad Request');
    expectError(await post({ ...valid, factoryId: FIXTURE_IDS.otherFactory }), 404, 'Not Found', 'Factory not found');
    expectError(await post({ ...valid, apiSecret: DEMO_KEYS.other.secret }), 401, 'Unauthorized', 'Invalid api secret');
  });
});

describe('routing', () => {
  it('answers unknown paths and wrong methods with 404 JSON', async () => {
    expectError(await call('/factory/nothing'), 404, 'Not Found');
    expectError(
      await call('/factory/list/', DEMO_KEYS.premium.key, { method: 'POST', body: '{}' }),
      404,
      'Not Found',
      'Cannot POST /req/factory/list/',
    );
    expectError(await call('/factory/options', DEMO_KEYS.premium.key), 404, 'Not Found');
    expectError(await call(`/factory/inventory/${FIXTURE_IDS.shop}/extra`), 404, 'Not Found');
    const outside = await fetch(`${sim.origin}/elsewhere`);
    expect(outside.status).toBe(404);
    expect(asObject(await outside.json()).error).toBe('Not Found');
    expect(sim.requests.map((r) => r.route)).toEqual(['UNKNOWN', 'UNKNOWN', 'UNKNOWN', 'UNKNOWN']);
  });

  it('decodes path parameters', async () => {
    expectError(await call('/factory/inventory/%E2%9C%93'), 404, 'Not Found', 'Factory not found');
    expect((await call(`/factory/inventory/${encodeURIComponent(FIXTURE_IDS.shop)}`)).status).toBe(200);
  });
});

describe('request log, latency and admin endpoints', () => {
  it('logs every /req request in order with route, label and status, and counts them', async () => {
    await call('/factory/list/');
    await call(`/factory/inventory/${FIXTURE_IDS.shop}`, DEMO_KEYS.basic.key);
    await call(`/factory/counter/${FIXTURE_IDS.shop}`, DEMO_KEYS.basic.key);
    const log = sim.requests;
    expect(log.map((r) => [r.method, r.path, r.route, r.keyLabel, r.status])).toEqual([
      ['GET', '/factory/list/', 'GET /factory/list/', 'premium', 200],
      ['GET', `/factory/inventory/${FIXTURE_IDS.shop}`, 'GET /factory/inventory/{id}', 'basic', 200],
      ['GET', `/factory/counter/${FIXTURE_IDS.shop}`, 'GET /factory/counter/{id}', 'basic', 400],
    ]);
    expect(log.every((r, i) => typeof r.at === 'number' && (i === 0 || r.at >= (log[i - 1]?.at ?? 0)))).toBe(true);
    expect(sim.countRequests()).toBe(3);
    expect(sim.countRequests({ keyLabel: 'basic' })).toBe(2);
    expect(sim.countRequests({ route: 'GET /factory/list/', keyLabel: 'basic' })).toBe(0);
    sim.resetRequests();
    expect(sim.countRequests()).toBe(0);
    expect(log).toHaveLength(3); // earlier snapshots are not mutated
  });

  it('applies the configured latency (visible in the log)', async () => {
    sim.setLatency(25);
    const res = await call('/building/list');
    expect(res.status).toBe(200);
    expect(sim.requests[0]?.latencyMs).toBe(25);
    sim.setLatency(0);
    await call('/building/list');
    expect(sim.requests[1]?.latencyMs).toBe(0);
    expect(() => sim.setLatency(-1)).toThrow(RangeError);
  });

  it('takes latencyMs from the options', async () => {
    const slow = await startSimulator({ latencyMs: 10 });
    try {
      const res = await fetch(`${slow.baseUrl}/building/list`, {
        headers: { authorization: `Bearer ${DEMO_KEYS.premium.key}` },
      });
      expect(res.status).toBe(200);
      await res.text();
      expect(slow.requests[0]?.latencyMs).toBe(10);
    } finally {
      await slow.close();
    }
  });

  it('serves the log on GET /__sim/requests and clears it on POST /__sim/reset', async () => {
    await call('/factory/list/');
    await call('/building/list', DEMO_KEYS.basic.key);
    const listed = asObject(await (await fetch(`${sim.origin}/__sim/requests`)).json());
    expect(listed.count).toBe(2);
    expect(asArray(listed.requests).map((r) => r.route)).toEqual(['GET /factory/list/', 'GET /building/list']);
    const filtered = asObject(await (await fetch(`${sim.origin}/__sim/requests?keyLabel=basic`)).json());
    expect(filtered.count).toBe(1);
    const reset = await fetch(`${sim.origin}/__sim/reset`, { method: 'POST' });
    expect(reset.status).toBe(200);
    await reset.text();
    const after = asObject(await (await fetch(`${sim.origin}/__sim/requests`)).json());
    expect(after).toEqual({ count: 0, requests: [] });
    expect(sim.countRequests()).toBe(0);
  });
});

describe('rate limit', () => {
  const realTimersExceptDate = [
    'hrtime',
    'nextTick',
    'performance',
    'queueMicrotask',
    'setImmediate',
    'clearImmediate',
    'setInterval',
    'clearInterval',
    'setTimeout',
    'clearTimeout',
  ] as const;
  const T = Date.parse('2024-06-01T10:00:00.000Z');

  afterEach(() => {
    jest.useRealTimers();
  });

  async function withSimulator(
    options: Parameters<typeof startSimulator>[0],
    run: (get: (key?: string) => Promise<Answer>) => Promise<void>,
  ): Promise<void> {
    const local = await startSimulator(options);
    try {
      await run(async (key = 'sim-key-1') => {
        const res = await fetch(`${local.baseUrl}/building/list`, { headers: { authorization: `Bearer ${key}` } });
        const text = await res.text();
        return { status: res.status, headers: res.headers, text, body: JSON.parse(text) as unknown };
      });
    } finally {
      await local.close();
    }
  }

  it('limits each key to 10 requests per rolling 60 s by default, with the real 429 body and Retry-After', async () => {
    jest.useFakeTimers({ doNotFake: [...realTimersExceptDate], now: T });
    await withSimulator({}, async (get) => {
      for (let i = 0; i < 10; i += 1) {
        jest.setSystemTime(T + i * 1000); // one request a second
        expect((await get()).status).toBe(200);
      }
      jest.setSystemTime(T + 15_000);
      const limited = await get();
      expect(limited.status).toBe(429);
      expect(limited.body).toEqual({ statusCode: 429, message: 'ThrottlerException: Too Many Requests' });
      expect(limited.headers.get('retry-after')).toBe('45'); // the first request leaves the window at T + 60 s
      expect((await get('sim-key-2')).status).toBe(200); // another key has its own window

      // Rolling: at T + 60 s exactly one request has left the window, so exactly one more is allowed.
      jest.setSystemTime(T + 60_000);
      expect((await get()).status).toBe(200);
      const again = await get();
      expect(again.status).toBe(429);
      expect(again.headers.get('retry-after')).toBe('1');
      jest.setSystemTime(T + 61_000);
      expect((await get()).status).toBe(200);
    });
  });

  it('a refused request does not count: a key that keeps asking is free again when its window has passed', async () => {
    jest.useFakeTimers({ doNotFake: [...realTimersExceptDate], now: T });
    await withSimulator({ rateLimit: { requests: 2, windowSeconds: 10 } }, async (get) => {
      expect((await get()).status).toBe(200);
      expect((await get()).status).toBe(200);
      for (let i = 1; i < 10; i += 1) {
        jest.setSystemTime(T + i * 1000);
        expect((await get()).status).toBe(429);
      }
      jest.setSystemTime(T + 10_000);
      expect((await get()).status).toBe(200);
    });
  });

  it('leaves Retry-After out when retryAfterHeader is false', async () => {
    jest.useFakeTimers({ doNotFake: [...realTimersExceptDate], now: T });
    await withSimulator({ rateLimit: { requests: 1, windowSeconds: 60 }, retryAfterHeader: false }, async (get) => {
      expect((await get()).status).toBe(200);
      const limited = await get();
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBeNull();
      expect(limited.body).toEqual({ statusCode: 429, message: 'ThrottlerException: Too Many Requests' });
    });
  });

  it("window 'fixed' counts from a key's first hit, as NestJS's throttler does: a burst at the end of one window and the start of the next passes", async () => {
    jest.useFakeTimers({ doNotFake: [...realTimersExceptDate], now: T });
    await withSimulator({ rateLimit: { requests: 3, windowSeconds: 10, window: 'fixed' } }, async (get) => {
      expect((await get()).status).toBe(200); // the window is T .. T + 10 s
      jest.setSystemTime(T + 9_000);
      expect((await get()).status).toBe(200);
      expect((await get()).status).toBe(200);
      const limited = await get();
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('1');
      jest.setSystemTime(T + 10_000); // a new window: 3 more at once, 5 within 1 s (a rolling window would refuse them)
      for (let i = 0; i < 3; i += 1) expect((await get()).status).toBe(200);
      expect((await get()).status).toBe(429);
    });
  });

  it('setRateLimit changes and turns off the limit, reset clears the windows', async () => {
    jest.useFakeTimers({ doNotFake: [...realTimersExceptDate], now: T });
    sim.setRateLimit({ requests: 1, windowSeconds: 60 });
    expect(sim.rateLimit).toEqual({ requests: 1, windowSeconds: 60, window: 'rolling' });
    expect((await call('/building/list')).status).toBe(200);
    expect((await call('/building/list')).status).toBe(429);
    sim.reset();
    expect((await call('/building/list')).status).toBe(200);
    sim.setRateLimit('off');
    expect(sim.rateLimit).toBeUndefined();
    for (let i = 0; i < 12; i += 1) expect((await call('/building/list')).status).toBe(200);
    expect(() => sim.setRateLimit({ requests: 0, windowSeconds: 60 })).toThrow(RangeError);
  });

  it('never lets Retry-After drop below 1', async () => {
    jest.useFakeTimers({ doNotFake: [...realTimersExceptDate], now: 1_000_000 });
    await withSimulator({ rateLimit: { requests: 1, windowSeconds: 2 } }, async (get) => {
      expect((await get()).status).toBe(200);
      jest.setSystemTime(1_000_000 + 1_999);
      const res = await get();
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('1');
    });
  });

  it('describes the limit for banners, with how to turn it off', () => {
    expect(describeRateLimit({ requests: 10, windowSeconds: 60 })).toMatch(
      /10 requests per key per rolling 60 s.*--rate-limit off/,
    );
    expect(describeRateLimit({ requests: 10, windowSeconds: 60 }, 'SIMULATOR_RATE_LIMIT=off npm run demo')).toContain(
      'SIMULATOR_RATE_LIMIT=off',
    );
    expect(describeRateLimit(undefined)).toMatch(/^Rate limit: off/);
  });
});

describe('lifecycle and CLI', () => {
  it('closes promptly with open keep-alive connections', async () => {
    const local = await startSimulator();
    const res = await fetch(`${local.baseUrl}/factory/list/`, {
      headers: { authorization: `Bearer ${DEMO_KEYS.premium.key}` },
    });
    await res.text();
    expect(local.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(local.baseUrl).toBe(`${local.origin}/req`);
    await local.close();
    await local.close(); // idempotent
    await expect(fetch(`${local.baseUrl}/factory/list/`)).rejects.toThrow();
  });

  it('parses CLI arguments', () => {
    expect(parseCliArgs([])).toEqual({});
    expect(parseCliArgs(['--port', '4010', '--host', '0.0.0.0', '--latency=15', '--rate-limit', '100/60'])).toEqual({
      port: 4010,
      host: '0.0.0.0',
      latencyMs: 15,
      rateLimit: { requests: 100, windowSeconds: 60 },
    });
    expect(() => parseCliArgs(['--rate-limit', '100'])).toThrow(/N\/SECONDS/);
    expect(parseCliArgs(['--rate-limit', 'off'])).toEqual({ rateLimit: 'off' });
    expect(parseCliArgs(['--rate-limit-window', 'fixed', '--no-retry-after'])).toEqual({
      rateLimit: { requests: 10, windowSeconds: 60, window: 'fixed' },
      retryAfterHeader: false,
    });
    expect(parseCliArgs(['--rate-limit', '5/30', '--rate-limit-window=fixed'])).toEqual({
      rateLimit: { requests: 5, windowSeconds: 30, window: 'fixed' },
    });
    expect(() => parseCliArgs(['--rate-limit', 'off', '--rate-limit-window', 'fixed'])).toThrow(/needs a rate limit/);
    expect(() => parseCliArgs(['--rate-limit-window', 'sliding'])).toThrow(/rolling or fixed/);
    expect(() => parseCliArgs(['--port'])).toThrow(/needs a value/);
    expect(() => parseCliArgs(['--bogus'])).toThrow(/Unknown argument/);
  });
});
