/**
 * Resolver tests of `Query.buildings`, `Query.building(id)` and every field of `Building`,
 * `Room`, `Tenant` and `BuildingBankAccount`, including the joins Room.building,
 * Room.tenant and Tenant.room, against the built-in simulator.
 */
import { BuildingEverythingDocument, BuildingsDocument, RoomTenantsDocument } from '../generated/graphql';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { useStack } from '../support';
import {
  NON_PREMIUM_KEY,
  NO_OPTIONAL_SCOPES_KEY,
  building,
  calls,
  errorPaths,
  freshKey,
  expectedBuildingAccount,
  expectedBuildingEverything,
  expectedRoom,
  fixtureCharacters,
  must,
  repeatedCalls,
} from './expected';

const stack = useStack(
  { simulator: { extraKeys: [NON_PREMIUM_KEY, NO_OPTIONAL_SCOPES_KEY] } },
  { resetSimulator: true },
);

describe('Query.buildings', () => {
  it('lists the buildings the character owns directly', async () => {
    const { main } = fixtureCharacters();
    const result = await stack.execute(BuildingsDocument, {}, { key: freshKey().key });
    expect(result.errors).toBeUndefined();
    expect(result.data?.buildings).toEqual(
      main.buildings.map((b) => ({ id: b.id, hash: b.hash, label: b.label, address: b.address })),
    );
    expect(calls(stack.simulator)).toEqual(['GET /building/list']);
  });

  it("lists the other character's buildings for the other key", async () => {
    const { other } = fixtureCharacters();
    const result = await stack.execute(BuildingsDocument, {}, { key: DEMO_KEYS.other.key });
    expect(result.data?.buildings?.map((b) => b.id)).toEqual(other.buildings.map((b) => b.id));
  });
});

describe('Query.building(id) with every field (BuildingEverything)', () => {
  const { main } = fixtureCharacters();

  it.each(main.buildings.map((b) => [b.label, b.id] as const))(
    'returns every field of %s as the fixtures hold it',
    async (_label, id) => {
      const result = await stack.execute(BuildingEverythingDocument, { id });
      expect(result.errors).toBeUndefined();
      expect(result.data?.building).toEqual(expectedBuildingEverything(building(id), 10, 0));
    },
  );

  it('Hafenlofts: details, 8 rooms (5 rented), tenants with lastPayDate, both accounts (main and reserve)', async () => {
    const hafen = building(FIXTURE_IDS.hafen);
    const result = await stack.execute(BuildingEverythingDocument, { id: FIXTURE_IDS.hafen });
    const data = must(result.data?.building);
    expect(data.details).toEqual({
      area: hafen.area,
      garageSlots: hafen.garageSlots,
      price: hafen.price,
      totalRooms: 8,
      occupiedRooms: 5,
      freeRooms: 3,
    });
    expect(data.rooms?.map((r) => r.id)).toEqual(FIXTURE_IDS.hafenRooms);
    expect(data.rooms?.map((r) => r.occupied)).toEqual([true, true, true, false, true, false, true, false]);
    expect(data.rooms?.every((r) => typeof r.interiorImage === 'string' && r.interiorImage.endsWith('.jpg'))).toBe(
      true,
    );
    expect(data.tenants?.map((t) => t.lastPayDate)).toEqual(
      hafen.rooms.filter((r) => r.tenant).map((r) => must(r.tenant).lastPayDate),
    );
    expect(data.bankAccounts?.map((a) => [a.id, a.main])).toEqual([
      [FIXTURE_IDS.hafenMainAccount, true],
      [FIXTURE_IDS.hafenReserveAccount, false],
    ]);
  });

  it('Room.tenant is the tenant of an occupied room and null for a vacant one; Tenant.room and Room.building join back', async () => {
    const hafen = building(FIXTURE_IDS.hafen);
    const result = await stack.execute(BuildingEverythingDocument, { id: FIXTURE_IDS.hafen });
    const data = must(result.data?.building);
    for (const [index, room] of hafen.rooms.entries()) {
      const got = must(data.rooms?.[index]);
      expect(got.tenant).toEqual(room.tenant === null ? null : { roomId: room.id, tenantName: room.tenant.name });
      expect(got.building).toEqual({ id: hafen.id, label: hafen.label });
    }
    for (const tenant of data.tenants ?? []) {
      expect(tenant.room?.id).toBe(tenant.roomId);
      expect(tenant.room?.name).toBe(tenant.roomName);
    }
  });

  it('makes each distinct upstream request once: the joins reuse the list, rooms and tenants requests', async () => {
    const hafen = building(FIXTURE_IDS.hafen);
    const result = await stack.execute(BuildingEverythingDocument, { id: FIXTURE_IDS.hafen }, { key: freshKey().key });
    expect(result.errors).toBeUndefined();
    expect(repeatedCalls(stack.simulator)).toEqual([]);
    const id = FIXTURE_IDS.hafen;
    expect(calls(stack.simulator).sort()).toEqual(
      [
        'GET /building/list',
        `GET /building/details/${id}`,
        `GET /building/rooms/${id}`,
        `GET /building/tenants/${id}`,
        `GET /building/bankaccounts/${id}`,
        ...hafen.bankAccounts.map((a) => `GET /building/transactions/${a.id}/10/0`),
      ].sort(),
    );
  });

  it('pages the Hafenlofts main account: 40 transactions, limit 25 skip 25 gives 15', async () => {
    const hafen = building(FIXTURE_IDS.hafen);
    const result = await stack.execute(BuildingEverythingDocument, { id: FIXTURE_IDS.hafen, txLimit: 25, txSkip: 25 });
    expect(result.errors).toBeUndefined();
    const mainAccount = must(result.data?.building?.bankAccounts?.find((a) => a.id === FIXTURE_IDS.hafenMainAccount));
    expect(mainAccount.transactions?.totalTransactions).toBe(40);
    expect(mainAccount.transactions?.transactions).toHaveLength(15);
    expect(result.data?.building?.bankAccounts).toEqual(
      hafen.bankAccounts.map((a) => expectedBuildingAccount(a, 25, 25)),
    );
    // A null reference and a null sender occur in the fixtures and come through as null.
    const all = result.data?.building?.bankAccounts?.flatMap((a) => a.transactions?.transactions ?? []) ?? [];
    expect(all.some((t) => t.reference === null)).toBe(true);
    expect(all.some((t) => t.senderVban === null)).toBe(true);
  });

  it.each([
    [1, 0],
    [25, 0],
    [10, 30],
    [25, 200],
  ])('pages building accounts with limit %i skip %i', async (txLimit, txSkip) => {
    const altstadt = building(FIXTURE_IDS.altstadt);
    const result = await stack.execute(BuildingEverythingDocument, { id: FIXTURE_IDS.altstadt, txLimit, txSkip });
    expect(result.errors).toBeUndefined();
    expect(result.data?.building?.bankAccounts).toEqual(
      altstadt.bankAccounts.map((a) => expectedBuildingAccount(a, txLimit, txSkip)),
    );
  });

  it('is null for a building of the other character and for an unknown id, with only the list requested', async () => {
    for (const id of [FIXTURE_IDS.otherBuilding, '000000000000000000000000']) {
      stack.simulator.resetRequests();
      const result = await stack.execute(BuildingEverythingDocument, { id }, { key: freshKey().key });
      expect(result.errors).toBeUndefined();
      expect(result.data).toEqual({ building: null });
      expect(calls(stack.simulator)).toEqual(['GET /building/list']);
    }
  });

  it("returns the other character's building for the other key", async () => {
    const { other } = fixtureCharacters();
    const result = await stack.execute(
      BuildingEverythingDocument,
      { id: FIXTURE_IDS.otherBuilding },
      { key: DEMO_KEYS.other.key },
    );
    expect(result.errors).toBeUndefined();
    expect(result.data?.building).toEqual(
      expectedBuildingEverything(building(FIXTURE_IDS.otherBuilding, other), 10, 0),
    );
  });
});

describe('Tenant.lastPayDate needs scope building.tenants.activity', () => {
  it('is null without the scope, the other tenant fields are there', async () => {
    const hafen = building(FIXTURE_IDS.hafen);
    const result = await stack.execute(
      BuildingEverythingDocument,
      { id: FIXTURE_IDS.hafen },
      { key: NO_OPTIONAL_SCOPES_KEY.key },
    );
    expect(result.errors).toBeUndefined();
    const occupied = hafen.rooms.filter((r) => r.tenant !== null);
    expect(result.data?.building?.tenants).toEqual(
      occupied.map((r) => ({
        roomId: r.id,
        roomHash: r.hash,
        roomName: r.name,
        tenantName: must(r.tenant).name,
        lastPayDate: null,
        room: { id: r.id, name: r.name },
      })),
    );
  });
});

describe('Room.tenant', () => {
  it('for the premium key: the joined tenant for rented rooms, null for vacant ones, one tenants request', async () => {
    const altstadt = building(FIXTURE_IDS.altstadt);
    const result = await stack.execute(RoomTenantsDocument, { id: FIXTURE_IDS.altstadt }, { key: freshKey().key });
    expect(result.errors).toBeUndefined();
    expect(result.data?.building?.rooms).toEqual(
      altstadt.rooms.map((r) => ({
        id: r.id,
        occupied: r.tenant !== null,
        tenant:
          r.tenant === null ? null : { roomId: r.id, tenantName: r.tenant.name, lastPayDate: r.tenant.lastPayDate },
      })),
    );
    expect(stack.simulator.countRequests({ route: 'GET /building/tenants/{id}' })).toBe(1);
  });

  it('is null without an error for vacant rooms even when the tenants request fails (basic key): only rented rooms report it', async () => {
    const hafen = building(FIXTURE_IDS.hafen);
    // The basic key cannot be replaced by a fresh one: bypass any cached answer for this operation.
    const result = await stack.execute(
      RoomTenantsDocument,
      { id: FIXTURE_IDS.hafen },
      { key: DEMO_KEYS.basic.key, headers: { 'cache-control': 'no-cache' } },
    );
    const rooms = must(result.data?.building?.rooms);
    expect(rooms.map((r) => r.id)).toEqual(hafen.rooms.map((r) => r.id));
    expect(rooms.every((r) => r.tenant === null)).toBe(true);
    const rentedIndexes = hafen.rooms.flatMap((r, i) => (r.tenant === null ? [] : [i]));
    expect(errorPaths(result)).toEqual(rentedIndexes.map((i) => `building.rooms.${i}.tenant`).sort());
    expect(result.errors?.every((e) => e.extensions?.code === 'UPSTREAM_BAD_REQUEST')).toBe(true);
    // One tenants request for the building, shared by all rented rooms.
    expect(stack.simulator.countRequests({ route: 'GET /building/tenants/{id}' })).toBe(1);
  });
});

describe('Room.interiorImage by access', () => {
  it.each([
    ['premium', DEMO_KEYS.premium.key, true],
    ['basic', DEMO_KEYS.basic.key, false],
    ['non-premium with every scope', NON_PREMIUM_KEY.key, false],
  ] as const)('%s key', async (_name, key, premium) => {
    const altstadt = building(FIXTURE_IDS.altstadt);
    const result = await stack.execute(BuildingEverythingDocument, { id: FIXTURE_IDS.altstadt }, { key });
    const rooms = must(result.data?.building?.rooms);
    expect(
      rooms.map(({ id, hash, name, rent, occupied, interior, interiorImage, interiorDetails }) => ({
        id,
        hash,
        name,
        rent,
        occupied,
        interior,
        interiorImage,
        interiorDetails,
      })),
    ).toEqual(altstadt.rooms.map((r) => expectedRoom(r, premium)));
  });
});
