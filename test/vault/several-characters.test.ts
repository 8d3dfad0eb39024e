/**
 * One graph over several characters: an access token over two vault keys (the simulator's
 * character 1 and character 2) answers `factories` and `buildings` merged, each with its
 * owner; `factory(id)`, `building(id)` and writes go to the key that owns the id; each key
 * keeps its own cache and budget share, and one key's failure leaves the other's data.
 */
import { once } from 'node:events';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { addMaxAndErika, ManualClock, startStack, testVault } from '../support';
import { subscribeWs, wsClient } from '../subscriptions/clients';
import type { HttpStack } from '../support';

interface Owned {
  id: string;
  owner: { name: string } | null;
}

interface Answer {
  data?: Record<string, unknown> | null;
  errors?: Array<{ message: string; path?: Array<string | number>; extensions?: Record<string, unknown> }>;
}

describe('a token over several characters', () => {
  const { vault, vaultFile, masterKey } = testVault('several-characters-');
  let stack: HttpStack;
  let both: string;
  let withBroken: string;

  const post = async (query: string, token: string, variables?: Record<string, unknown>): Promise<Answer> =>
    (await stack.post({ query, variables }, { headers: { authorization: `Bearer ${token}` } })).body as Answer;
  const keyPost = async (query: string, key: string): Promise<Answer> =>
    (await stack.post({ query }, { key })).body as Answer;
  const labelsSince = (from: number): string[] =>
    stack.simulator.requests.slice(from).map((request) => `${request.keyLabel} ${request.route}`);

  beforeAll(async () => {
    await vault.addKey('max', DEMO_KEYS.premium.key, DEMO_KEYS.premium.secret);
    await vault.addKey('erika', DEMO_KEYS.other.key, DEMO_KEYS.other.secret);
    await vault.addKey('broken', 'not-a-statev-key', null);
    ({ token: both } = await vault.createToken({
      characters: ['max', 'erika'],
      grants: ['read', 'write:option:3'],
      expiresInMs: 3_600_000,
    }));
    ({ token: withBroken } = await vault.createToken({
      characters: ['max', 'broken'],
      grants: ['read'],
      expiresInMs: 3_600_000,
    }));
    stack = await startStack({ http: true, config: { vaultFile, vaultMasterKey: masterKey, upstreamRateLimit: null } });
  });

  afterAll(async () => {
    await stack.close();
  });

  it('merges factories and buildings across the characters, each with its owner, one list request per key', async () => {
    const answer = await post('{ factories { id owner { name } } buildings { id owner { name } } }', both);
    expect(answer.errors).toBeUndefined();
    const factories = answer.data?.factories as Owned[];
    const buildings = answer.data?.buildings as Owned[];
    const ownerOf = (list: Owned[], id: string): string | undefined => list.find((item) => item.id === id)?.owner?.name;
    expect(ownerOf(factories, FIXTURE_IDS.shop)).toBe('max');
    expect(ownerOf(factories, FIXTURE_IDS.farm)).toBe('max');
    expect(ownerOf(factories, FIXTURE_IDS.otherFactory)).toBe('erika');
    expect(ownerOf(buildings, FIXTURE_IDS.hafen)).toBe('max');
    expect(ownerOf(buildings, FIXTURE_IDS.otherBuilding)).toBe('erika');
    // Character 1's first, then character 2's, as the keys list them.
    const direct = [
      (await keyPost('{ factories { id } }', DEMO_KEYS.premium.key)).data?.factories,
      (await keyPost('{ factories { id } }', DEMO_KEYS.other.key)).data?.factories,
    ] as Array<Array<{ id: string }>>;
    expect(factories.map((factory) => factory.id)).toEqual(direct.flat().map((factory) => factory.id));
    expect(labelsSince(0).sort()).toEqual([
      'other GET /building/list',
      'other GET /factory/list/',
      'premium GET /building/list',
      'premium GET /factory/list/',
    ]);
  });

  it("answers every nested field of a company or building with its owner's key", async () => {
    const from = stack.simulator.requests.length;
    const answer = await post(
      `{ factories { id inventory { __typename } bankAccounts { id transactions(limit: 1) { __typename } } }
         buildings { id rooms { id tenant { room { id } } } } }`,
      both,
    );
    expect(answer.errors).toBeUndefined();
    const requests = stack.simulator.requests.slice(from);
    const other = requests.filter((request) => request.keyLabel === 'other').map((request) => request.path);
    const premium = requests.filter((request) => request.keyLabel === 'premium').map((request) => request.path);
    expect(requests.every((request) => request.status < 300 || request.status === 404)).toBe(true);
    expect(other).toContain(`/factory/inventory/${FIXTURE_IDS.otherFactory}`);
    expect(other).toContain(`/factory/transactions/${FIXTURE_IDS.otherFactoryAccount}/1/0`);
    expect(other).toContain(`/building/rooms/${FIXTURE_IDS.otherBuilding}`);
    expect(other.some((path) => path.includes(FIXTURE_IDS.shop) || path.includes(FIXTURE_IDS.hafen))).toBe(false);
    expect(premium).toContain(`/factory/inventory/${FIXTURE_IDS.shop}`);
    expect(premium).toContain(`/building/tenants/${FIXTURE_IDS.hafen}`);
    expect(
      premium.some((path) => path.includes(FIXTURE_IDS.otherFactory) || path.includes(FIXTURE_IDS.otherBuilding)),
    ).toBe(false);
  });

  it('routes factory(id) and building(id) to the key that owns the id, from the cached lists', async () => {
    const from = stack.simulator.requests.length;
    const answer = await post(
      `{ mine: factory(id: "${FIXTURE_IDS.shop}") { id owner { name } counter { __typename } }
         hers: factory(id: "${FIXTURE_IDS.otherFactory}") { id owner { name } counter { __typename } }
         nobody: factory(id: "000000000000000000000000") { id }
         villa: building(id: "${FIXTURE_IDS.otherBuilding}") { id owner { name } details { __typename } } }`,
      both,
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toMatchObject({
      mine: { id: FIXTURE_IDS.shop, owner: { name: 'max' } },
      hers: { id: FIXTURE_IDS.otherFactory, owner: { name: 'erika' } },
      nobody: null,
      villa: { id: FIXTURE_IDS.otherBuilding, owner: { name: 'erika' } },
    });
    // The lists came from each key's cache; each company's counter from its owner's key.
    expect(labelsSince(from).sort()).toEqual([
      'other GET /building/details/{id}',
      'other GET /factory/counter/{id}',
      'premium GET /factory/counter/{id}',
    ]);
  });

  it("shares each key's cache with that key's own callers", async () => {
    const from = stack.simulator.requests.length;
    expect(
      (await keyPost(`{ factories { id inventory { __typename } } }`, DEMO_KEYS.other.key)).errors,
    ).toBeUndefined();
    expect(labelsSince(from)).toEqual([]);
  });

  it("writes with the owning key's secret from the vault", async () => {
    const from = stack.simulator.requests.length;
    const mutation =
      'mutation($input: UpdateFactoryOptionInput!) { updateFactoryOption(input: $input) { committed option { slot title } } }';
    const answer = await post(mutation, both, {
      input: { factoryId: FIXTURE_IDS.otherFactory, slot: 3, title: 'Sprit', data: 'billig' },
    });
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.updateFactoryOption).toEqual({ committed: true, option: { slot: 3, title: 'Sprit' } });
    const writes = stack.simulator.requests.slice(from).filter((request) => request.method === 'POST');
    expect(writes.map((request) => `${request.keyLabel} ${request.status}`)).toEqual(['other 200']);
    const read = await keyPost(
      `{ factory(id: "${FIXTURE_IDS.otherFactory}") { option(slot: 3) { title data } } }`,
      DEMO_KEYS.other.key,
    );
    expect(read.data).toEqual({ factory: { option: { title: 'Sprit', data: 'billig' } } });
  });

  it("merges each character's auctions", async () => {
    const answer = await post('{ myImportAuctions { id item } importAuctions { id item } }', both);
    expect(answer.errors).toBeUndefined();
    const mine = (answer.data?.myImportAuctions as Array<{ item: string }>).map((auction) => auction.item);
    const open = (answer.data?.importAuctions as Array<{ id: string; item: string }>).map((auction) => auction.item);
    expect(mine).toEqual(['Stahl', 'Gummi', 'Farbpigment', 'Benzin']);
    expect(open).toEqual(['Elektronik', 'Stahl', 'Schrauben', 'Kaffeebohnen', 'Benzin', 'Snackriegel']);
  });

  it("leaves the other key's data when one key fails, with the error at the field's path naming the character", async () => {
    const answer = await post('{ factories { id owner { name } } }', withBroken);
    const factories = answer.data?.factories as Owned[];
    expect(factories.length).toBeGreaterThan(0);
    expect(new Set(factories.map((factory) => factory.owner?.name))).toEqual(new Set(['max']));
    expect(answer.errors).toHaveLength(1);
    expect(answer.errors?.[0]).toMatchObject({ path: ['factories'], extensions: { character: { name: 'broken' } } });
    expect(JSON.stringify(answer)).not.toContain('not-a-statev-key');
  });
});

describe('--budget-share on a token over several characters', () => {
  it("counts the share per key: one key's share spent nulls only that key's part", async () => {
    const { vault, vaultFile, masterKey } = testVault('several-shares-');
    await addMaxAndErika(vault);
    const { token } = await vault.createToken({
      characters: ['max', 'erika'],
      grants: ['read'],
      expiresInMs: 3_600_000,
      budgetShare: 1,
    });
    const stack = await startStack({
      http: true,
      config: { vaultFile, vaultMasterKey: masterKey, upstreamRateLimit: null },
    });
    try {
      const post = async (query: string): Promise<Answer> =>
        (await stack.post({ query }, { headers: { authorization: `Bearer ${token}` } })).body as Answer;
      // Each key's share (1) allows its company list.
      expect((await post('{ factories { id } }')).errors).toBeUndefined();
      expect(stack.simulator.requests.map((request) => request.keyLabel).sort()).toEqual(['other', 'premium']);
      // Character 1's buildings come from its key's cache (filled by the key itself); character 2's need a request its share no longer allows.
      expect(
        (await stack.post({ query: '{ buildings { id } }' }, { key: DEMO_KEYS.premium.key })).body.errors,
      ).toBeUndefined();
      const before = stack.simulator.countRequests();
      const answer = await post('{ buildings { id owner { name } } }');
      expect(stack.simulator.countRequests()).toBe(before);
      expect(new Set((answer.data?.buildings as Owned[]).map((building) => building.owner?.name))).toEqual(
        new Set(['max']),
      );
      expect(answer.errors).toHaveLength(1);
      expect(answer.errors?.[0]).toMatchObject({
        path: ['buildings'],
        extensions: { code: 'RATE_LIMITED', budgetShare: 1, character: { name: 'erika' } },
      });
    } finally {
      await stack.close();
    }
  });
});

describe('subscriptions of a token over several characters', () => {
  it("poll a company with its owner's key", async () => {
    const { vault, vaultFile, masterKey } = testVault('several-subscriptions-');
    await addMaxAndErika(vault);
    const { token } = await vault.createToken({
      characters: ['max', 'erika'],
      grants: ['read', 'subscribe'],
      expiresInMs: 3_600_000,
    });
    const clock = new ManualClock();
    const stack = await startStack({
      http: true,
      config: { vaultFile, vaultMasterKey: masterKey },
      gateway: { now: clock.now, pollClock: clock },
    });
    const client = wsClient(stack.endpoint, token);
    try {
      const joined = once(stack.gateway.subscriptions.hub.activity, 'joined');
      const events = subscribeWs(
        client,
        `subscription { inventoryChanged(factoryId: "${FIXTURE_IDS.otherFactory}") { factoryId changes { item before after } } }`,
      );
      await joined;
      stack.simulator.change({
        kind: 'stock',
        factoryId: FIXTURE_IDS.otherFactory,
        item: 'Benzinkanister',
        delta: -10,
      });
      const next = events.next();
      clock.advance(60_000);
      const event = await next;
      expect(event.errors).toBeUndefined();
      expect(event.data?.inventoryChanged).toEqual({
        factoryId: FIXTURE_IDS.otherFactory,
        changes: [{ item: 'Benzinkanister', before: 60, after: 50 }],
      });
      const polls = stack.simulator.requests.filter((request) => request.route === 'GET /factory/inventory/{id}');
      expect(new Set(polls.map((request) => `${request.keyLabel} ${request.status}`))).toEqual(new Set(['other 200']));

      // The fields below an event (a room's tenant) are read with the owner's key too.
      const rooms = (
        await stack.post(
          { query: `{ building(id: "${FIXTURE_IDS.otherBuilding}") { rooms { id occupied } } }` },
          { headers: { authorization: `Bearer ${token}` } },
        )
      ).body as Answer;
      const room = ((rooms.data?.building as { rooms: Array<{ id: string; occupied: boolean }> }).rooms ?? []).find(
        (each) => each.occupied,
      );
      expect(room).toBeDefined();
      const roomJoined = once(stack.gateway.subscriptions.hub.activity, 'joined');
      const roomEvents = subscribeWs(
        client,
        `subscription { roomChanged(buildingId: "${FIXTURE_IDS.otherBuilding}") { room { id rent tenant { tenantName } } } }`,
      );
      await roomJoined;
      stack.simulator.change({ kind: 'room', roomId: room?.id ?? '', rent: 1750 });
      const roomNext = roomEvents.next();
      clock.advance(300_000);
      const roomEvent = await roomNext;
      expect(roomEvent.errors).toBeUndefined();
      expect(roomEvent.data?.roomChanged).toMatchObject({
        room: { id: room?.id, rent: 1750, tenant: { tenantName: expect.any(String) } },
      });
    } finally {
      await client.dispose();
      await stack.close();
    }
  });
});

describe('live queries of access tokens', () => {
  it('are never shared between tokens of the same key (their grants and characters differ)', async () => {
    const { vault, vaultFile, masterKey } = testVault('token-live-');
    await addMaxAndErika(vault);
    const shop = (
      await vault.createToken({
        characters: ['max'],
        grants: [`factory:${FIXTURE_IDS.shop}`, 'subscribe'],
        expiresInMs: 3_600_000,
      })
    ).token;
    const farm = (
      await vault.createToken({
        characters: ['max'],
        grants: [`factory:${FIXTURE_IDS.farm}`, 'subscribe'],
        expiresInMs: 3_600_000,
      })
    ).token;
    const both = (
      await vault.createToken({ characters: ['max', 'erika'], grants: ['read', 'subscribe'], expiresInMs: 3_600_000 })
    ).token;
    const stack = await startStack({ http: true, config: { vaultFile, vaultMasterKey: masterKey } });
    const clients = [shop, farm, both].map((token) => wsClient(stack.endpoint, token));
    try {
      const ids = async (client: (typeof clients)[number]): Promise<string[]> => {
        const first = await subscribeWs(client, 'query Companies @live { factories { id } }').next();
        expect(first.errors).toBeUndefined();
        return (first.data?.factories as Array<{ id: string }>).map((factory) => factory.id);
      };
      // One after the other, each while the previous one is still live.
      expect(await ids(clients[0]!)).toEqual([FIXTURE_IDS.shop]);
      expect(await ids(clients[1]!)).toEqual([FIXTURE_IDS.farm]);
      expect(await ids(clients[2]!)).toContain(FIXTURE_IDS.otherFactory);
    } finally {
      for (const client of clients) await client.dispose();
      await stack.close();
    }
  });
});
