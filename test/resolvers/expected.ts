/**
 * What the gateway must answer, computed from the simulator's fixture data
 * (`src/simulator/fixtures.ts`) rather than written down by hand, plus small readers of
 * the simulator's request log and of GraphQL errors for the resolver tests.
 */
import type { GraphQLFormattedError } from 'graphql';
import {
  ALL_SCOPES,
  FIXTURE_CHARACTERS,
  STATIC_URL,
  createFixtureState,
  round2,
  round3,
  slug,
} from '../../src/simulator/fixtures';
import type {
  FixtureAuctions,
  FixtureBuilding,
  FixtureBuildingBankAccount,
  FixtureCharacter,
  FixtureCompany,
  FixtureCompanyBankAccount,
  FixtureItem,
  FixtureOption,
  FixtureRoom,
  SimulatedApiKey,
} from '../../src/simulator/fixtures';
import type { Simulator } from '../../src/simulator';
import type { WireBankTransaction } from '../../src/simulator/upstream.types';
import type { Result } from '../support';

/** A test key: character 1, every scope, but NOT premium (premium-only endpoints answer 401). */
export const NON_PREMIUM_KEY: SimulatedApiKey = {
  key: 'test-resolvers-non-premium',
  secret: 'test-resolvers-non-premium-secret',
  label: 'non-premium',
  characterId: FIXTURE_CHARACTERS.main.id,
  premium: false,
  scopes: ALL_SCOPES,
};

/** A test key: character 1, premium, every scope except the optional ones (factory.details, building.tenants.activity). */
export const NO_OPTIONAL_SCOPES_KEY: SimulatedApiKey = {
  key: 'test-resolvers-no-optional',
  secret: 'test-resolvers-no-optional-secret',
  label: 'no-optional',
  characterId: FIXTURE_CHARACTERS.main.id,
  premium: true,
  scopes: ALL_SCOPES.filter((scope) => scope !== 'factory.details' && scope !== 'building.tenants.activity'),
};

let freshKeys = 0;

/**
 * A key nobody used before in this process: the simulator accepts `sim-key-<n>` as a
 * premium key with every scope for character 1 (secret `<key>-secret`). Tests that
 * count upstream requests use one, so no answer cached for another test can hide a
 * request, and no other test's rate-limit state applies.
 */
export function freshKey(): { key: string; secret: string } {
  freshKeys += 1;
  const key = `sim-key-${process.pid}${String(freshKeys).padStart(4, '0')}`;
  return { key, secret: `${key}-secret` };
}

/** Fails loudly instead of returning undefined (the suite runs with noUncheckedIndexedAccess). */
export function must<T>(value: T | null | undefined, what = 'value'): T {
  if (value === null || value === undefined) throw new Error(`expected ${what} to be present`);
  return value;
}

/** A fresh copy of the fixtures: character 1 (premium/basic keys) and character 2 (other key). */
export function fixtureCharacters(): { main: FixtureCharacter; other: FixtureCharacter } {
  const state = createFixtureState();
  return {
    main: must(
      state.characters.find((c) => c.id === FIXTURE_CHARACTERS.main.id),
      'character 1',
    ),
    other: must(
      state.characters.find((c) => c.id === FIXTURE_CHARACTERS.other.id),
      'character 2',
    ),
  };
}

/** One company of character 1 (or 2) by id. */
export function company(id: string, character: FixtureCharacter = fixtureCharacters().main): FixtureCompany {
  return must(
    character.companies.find((c) => c.id === id),
    `company ${id}`,
  );
}

/** One building of character 1 (or 2) by id. */
export function building(id: string, character: FixtureCharacter = fixtureCharacters().main): FixtureBuilding {
  return must(
    character.buildings.find((b) => b.id === id),
    `building ${id}`,
  );
}

/** The icon URL the simulator renders for a premium key, null for other keys. */
export function iconUrl(
  premium: boolean,
  folder: 'items' | 'vehicles' | 'interiors',
  name: string,
  ext = 'png',
): string | null {
  return premium ? `${STATIC_URL}/${folder}/${slug(name)}.${ext}` : null;
}

/** `Inventory` of a store; an empty store is `{totalWeight: 0, items: []}`. */
export function expectedInventory(items: readonly FixtureItem[], premium: boolean) {
  const rendered = items.map((i) => ({
    item: i.item,
    amount: i.amount,
    singleWeight: i.singleWeight,
    totalWeight: round3(i.amount * i.singleWeight),
    icon: iconUrl(premium, 'items', i.item),
  }));
  return { totalWeight: round3(rendered.reduce((sum, i) => sum + i.totalWeight, 0)), items: rendered };
}

/** `Counter` of a company; an empty counter is `{totalWeight: 0, items: []}`. */
export function expectedCounter(c: FixtureCompany, premium: boolean) {
  const items = c.counter.map((i) => ({
    item: i.item,
    price: i.price,
    amount: i.amount,
    singleWeight: i.singleWeight,
    totalWeight: round3(i.amount * i.singleWeight),
    icon: iconUrl(premium, 'items', i.item),
  }));
  return { totalWeight: round3(items.reduce((sum, i) => sum + i.totalWeight, 0)), items };
}

/** `BankTransaction`s as GraphQL returns them (the fixture timestamps are already ISO with milliseconds). */
export function expectedTransactions(all: readonly WireBankTransaction[], limit: number, skip: number) {
  return {
    totalTransactions: all.length,
    transactions: all.slice(skip, skip + limit).map((t) => ({
      senderVban: t.senderVban,
      receiverVban: t.receiverVban,
      reference: t.reference,
      amount: t.amount,
      timestamp: t.timestamp,
    })),
  };
}

/** A company bank account; the VBAN always a string (the savings account stores a number). */
export function expectedFactoryAccount(a: FixtureCompanyBankAccount, limit: number, skip: number) {
  return {
    id: a.id,
    vban: String(a.vban),
    balance: a.balance,
    note: a.note,
    transactions: expectedTransactions(a.transactions, limit, skip),
  };
}

/** A building bank account. */
export function expectedBuildingAccount(a: FixtureBuildingBankAccount, limit: number, skip: number) {
  return {
    id: a.id,
    vban: a.vban,
    balance: a.balance,
    note: a.note,
    main: a.main,
    transactions: expectedTransactions(a.transactions, limit, skip),
  };
}

/** A stored option slot as `FactoryOption`: a legacy `lastUpdate` record fills `lastUpdated`. */
export function expectedOption(slot: number, stored: FixtureOption | undefined) {
  if (stored === undefined) return null;
  return {
    slot,
    title: stored.title,
    data: stored.data,
    lastUpdated: 'lastUpdated' in stored ? stored.lastUpdated : stored.lastUpdate,
  };
}

/** The set slots in slot order (unset slots are left out). */
export function expectedOptions(c: FixtureCompany) {
  const out: NonNullable<ReturnType<typeof expectedOption>>[] = [];
  for (let slot = 1; slot <= 10; slot += 1) {
    const option = expectedOption(slot, c.options[String(slot)]);
    if (option) out.push(option);
  }
  return out;
}

/** Paging arguments of FactoryEverything. */
export interface FactoryPaging {
  slot: number;
  buyLogLimit: number;
  buyLogSkip: number;
  txLimit: number;
  txSkip: number;
}

/**
 * Every field of `FactoryEverything` for a company, as a key with every scope and
 * premium access must see it.
 */
export function expectedFactoryEverything(c: FixtureCompany, paging: FactoryPaging) {
  const premium = true;
  return {
    id: c.id,
    name: c.name,
    hash: c.hash,
    adLine: c.adLine,
    isOpen: c.isOpen,
    type: c.type,
    address: c.address,
    inventory: expectedInventory(c.inventory, premium),
    machineInventory: expectedInventory(c.machineStore, premium),
    counter: expectedCounter(c, premium),
    productions: c.productions.map((p) => ({
      itemName: p.itemName,
      icon: `${STATIC_URL}/items/${slug(p.itemName)}.png`,
      neededItems: p.neededItems.map((n) => ({ name: n.name, amount: n.amount })),
    })),
    bankAccounts: c.bankAccounts.map((a) => expectedFactoryAccount(a, paging.txLimit, paging.txSkip)),
    vehicles: expectedVehicles(c, premium),
    sellOffers: expectedSellOffers(c, premium),
    buyOffers: c.buyOffers.map((o) => ({ ...expectedOffer(o, premium), listPrice: o.listPrice })),
    buyLog: expectedBuyLog(c, paging.buyLogLimit, paging.buyLogSkip),
    option: expectedOption(paging.slot, c.options[String(paging.slot)]),
    options: expectedOptions(c),
  };
}

/** The vehicles of a dealership; `image` a URL only with premium access. */
export function expectedVehicles(c: FixtureCompany, premium: boolean) {
  return c.vehicles.map((v) => ({
    name: v.name,
    image: iconUrl(premium, 'vehicles', v.name),
    numberPlate: v.numberPlate,
    distance: v.distance,
    engine: v.engine,
  }));
}

/** The sell offers of a company. */
export function expectedSellOffers(c: FixtureCompany, premium: boolean) {
  return c.sellOffers.map((o) => expectedOffer(o, premium));
}

/** One offer (sell or buy) as the API shows it: the total is price x amount, rounded to cents. */
function expectedOffer(o: FixtureCompany['sellOffers'][number], premium: boolean) {
  return {
    item: o.item,
    pricePerUnit: o.pricePerUnit,
    totalPrice: round2(o.pricePerUnit * o.availableAmount),
    availableAmount: o.availableAmount,
    createdAt: o.createdAt,
    icon: iconUrl(premium, 'items', o.item),
  };
}

/** One page of a company's buy log. */
export function expectedBuyLog(c: FixtureCompany, limit: number, skip: number) {
  return c.buyLog.slice(skip, skip + limit).map((e) => ({
    seller: e.seller,
    buyer: e.buyer,
    price: e.price,
    discount: e.discount,
    items: e.items.map((i) => ({ name: i.name, amount: i.amount })),
    createdAt: e.createdAt,
  }));
}

/** A room as `Room` (without the joins). */
export function expectedRoom(r: FixtureRoom, premium: boolean) {
  return {
    id: r.id,
    hash: r.hash,
    name: r.name,
    rent: r.rent,
    occupied: r.tenant !== null,
    interior: r.interior,
    interiorImage: iconUrl(premium, 'interiors', r.interior, 'jpg'),
    interiorDetails: { ...r.interiorDetails },
  };
}

/** Every field of `BuildingEverything` for a building, for a premium key with every scope. */
export function expectedBuildingEverything(b: FixtureBuilding, txLimit: number, txSkip: number) {
  const occupied = b.rooms.filter((r) => r.tenant !== null);
  return {
    id: b.id,
    hash: b.hash,
    label: b.label,
    address: b.address,
    details: {
      area: b.area,
      garageSlots: b.garageSlots,
      price: b.price,
      totalRooms: b.rooms.length,
      occupiedRooms: occupied.length,
      freeRooms: b.rooms.length - occupied.length,
    },
    rooms: b.rooms.map((r) => ({
      ...expectedRoom(r, true),
      building: { id: b.id, label: b.label },
      tenant: r.tenant === null ? null : { roomId: r.id, tenantName: r.tenant.name },
    })),
    tenants: occupied.map((r) => ({
      roomId: r.id,
      roomHash: r.hash,
      roomName: r.name,
      tenantName: must(r.tenant).name,
      lastPayDate: must(r.tenant).lastPayDate,
      room: { id: r.id, name: r.name },
    })),
    bankAccounts: b.bankAccounts.map((a) => expectedBuildingAccount(a, txLimit, txSkip)),
  };
}

/** The four auction lists of a character as `Auctions` returns them. */
export function expectedAuctions(auctions: FixtureAuctions, premium: boolean) {
  /** The fields every auction has. */
  const auction = (a: { id: string; item: string; bidAmount: number; auctionEnd: string }) => ({
    id: a.id,
    item: a.item,
    bidAmount: a.bidAmount,
    auctionEnd: a.auctionEnd,
    icon: iconUrl(premium, 'items', a.item),
  });
  return {
    myImportAuctions: auctions.myImport.map((a) => ({ ...auction(a), isLastBidderMe: a.isLastBidderMe })),
    myExportAuctions: auctions.myExport.map((a) => ({
      ...auction(a),
      isLastBidderMe: a.isLastBidderMe,
      amount: a.amount,
      singleWeight: a.singleWeight,
      totalWeight: a.totalWeight,
      duration: a.duration,
    })),
    importAuctions: auctions.available.import.map(auction),
    exportAuctions: auctions.available.export.map((a) => ({
      ...auction(a),
      amount: a.amount,
      weight: a.weight,
      duration: a.duration,
    })),
  };
}

// ---------------------------------------------------------------------------------------------
// Request log and errors
// ---------------------------------------------------------------------------------------------

/** Every logged upstream request as `METHOD /path`, in arrival order. */
export function calls(simulator: Simulator): string[] {
  return simulator.requests.map((r) => `${r.method} ${r.path}`);
}

/** How often each `METHOD /path` was requested. */
export function callCounts(simulator: Simulator): Map<string, number> {
  const counts = new Map<string, number>();
  for (const call of calls(simulator)) counts.set(call, (counts.get(call) ?? 0) + 1);
  return counts;
}

/** Requests made more than once (each listed once); `[]` when every request was distinct. */
export function repeatedCalls(simulator: Simulator): string[] {
  return [...callCounts(simulator)].filter(([, n]) => n > 1).map(([call]) => call);
}

/** The errors of a result (fails when there are none). */
export function errorsOf(result: Result<unknown>): readonly GraphQLFormattedError[] {
  expect(result.errors).toBeDefined();
  return result.errors ?? [];
}

/** The single error of a result. */
export function onlyError(result: Result<unknown>): GraphQLFormattedError {
  const errors = errorsOf(result);
  expect(errors).toHaveLength(1);
  return must(errors[0], 'error');
}

/** Error paths as strings (`factories.0.counter`), sorted. */
export function errorPaths(result: Result<unknown>): string[] {
  return (result.errors ?? []).map((e) => (e.path ?? []).join('.')).sort();
}
