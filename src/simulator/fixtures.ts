/**
 * Deterministic fixture data of the StateV REST API simulator: three characters, their
 * companies, buildings, bank accounts, market data and the API keys that read them
 * (character 3, the merchant with twelve company accounts, is in fixtures-merchant.ts).
 *
 * Everything is a pure function of this file: no randomness, no clock. `createFixtureState()`
 * builds a fresh, independent copy (the simulator mutates its copy on option writes and
 * `reset()` replaces it with a new one).
 */
import type {
  WireBankTransaction,
  WireBuyLogEntry,
  WireExportAuction,
  WireFactoryOption,
  WireImportAuction,
  WireLegacyFactoryOption,
  WireMyExportAuction,
  WireMyImportAuction,
  WireNamedAmount,
} from './upstream.types';
import { MERCHANT_CHARACTER, MERCHANT_KEY, merchantCharacter } from './fixtures-merchant';

/** Base URL of the game's static files; premium icons/images point below it (`/items/…`, `/vehicles/…`, `/interiors/…`). */
export const STATIC_URL = 'https://static.statev.de';

/** Every scope of the API (reference section 5.4), in the documented order. */
export const ALL_SCOPES = [
  'factory',
  'factory.details',
  'factory.inventory',
  'factory.counter',
  'factory.productions',
  'factory.bankaccount',
  'factory.vehicles',
  'factory.buylog',
  'factory.options',
  'factory.options.edit',
  'market',
  'building',
  'building.details',
  'building.tenants',
  'building.tenants.activity',
  'building.rooms',
  'building.bankaccount',
] as const;

/** One scope name, e.g. `'factory.inventory'`. */
export type Scope = (typeof ALL_SCOPES)[number];

/** An API key the simulator accepts. */
export interface SimulatedApiKey {
  /** The bearer token. */
  readonly key: string;
  /** The API secret that `POST /factory/options` expects in its body. */
  readonly secret: string;
  /** Label written to the request log instead of the key (e.g. `'premium'`). */
  readonly label: string;
  /** Id of the character whose data the key reads (see {@link FIXTURE_CHARACTERS}). */
  readonly characterId: string;
  /** Whether the key has premium access (premium-only endpoints, icon/image URLs). */
  readonly premium: boolean;
  /** Scopes granted to the key. */
  readonly scopes: readonly Scope[];
}

/** Key and secret pair. */
export interface KeyPair {
  /** The bearer token. */
  readonly key: string;
  /** The API secret for `POST /factory/options`. */
  readonly secret: string;
}

/**
 * The three demo keys.
 * - `premium`: character 1 (Max Mustermann), premium, every scope.
 * - `basic`: character 1, NOT premium, scopes `factory, factory.inventory, market, building, building.rooms` only.
 * - `other`: character 2 (Erika Musterfrau), premium, every scope.
 */
export const DEMO_KEYS: { readonly premium: KeyPair; readonly basic: KeyPair; readonly other: KeyPair } = Object.freeze(
  {
    premium: Object.freeze({ key: 'demo-premium-key', secret: 'demo-premium-secret' }),
    basic: Object.freeze({ key: 'demo-basic-key', secret: 'demo-basic-secret' }),
    other: Object.freeze({ key: 'demo-other-key', secret: 'demo-other-secret' }),
  },
);

/**
 * The example company site's key in `npm run demo`: character 1 (Max Mustermann), premium,
 * every scope, like `premium`. The demo's gateway holds it as its server key (public-site
 * mode), so the site's reads have a budget of their own: a reader trying the premium key
 * (the README's curl, the playground) cannot spend it.
 */
export const DEMO_SITE_KEY: KeyPair = Object.freeze({ key: 'demo-site-key', secret: 'demo-site-secret' });

/** The two characters of the fixtures. The ids are internal to the simulator (the API never shows them). */
export const FIXTURE_CHARACTERS = Object.freeze({
  /** Character 1, read by the `premium`, `basic` and generated keys. */
  main: Object.freeze({ id: 'character-1', name: 'Max Mustermann' }),
  /** Character 2, read by the `other` key. */
  other: Object.freeze({ id: 'character-2', name: 'Erika Musterfrau' }),
  /** Character 3 (three companies, twelve company bank accounts), read by the `merchant` key. */
  merchant: MERCHANT_CHARACTER,
});

/** Scopes of the basic (non-premium) demo key. */
export const BASIC_SCOPES: readonly Scope[] = Object.freeze([
  'factory',
  'factory.inventory',
  'market',
  'building',
  'building.rooms',
]);

/** Regular expression of generated benchmark keys (`sim-key-<n>`); their secret is `<key>-secret`. */
export const GENERATED_KEY_PATTERN = /^sim-key-\d+$/;

/** The built-in keys: premium, basic and other (see {@link DEMO_KEYS}), the demo site's ({@link DEMO_SITE_KEY}), and the merchant's (`demo-merchant-key`, premium, every scope, character 3). */
export const FIXTURE_KEYS: readonly SimulatedApiKey[] = Object.freeze([
  {
    ...DEMO_KEYS.premium,
    label: 'premium',
    characterId: FIXTURE_CHARACTERS.main.id,
    premium: true,
    scopes: ALL_SCOPES,
  },
  { ...DEMO_KEYS.basic, label: 'basic', characterId: FIXTURE_CHARACTERS.main.id, premium: false, scopes: BASIC_SCOPES },
  { ...DEMO_KEYS.other, label: 'other', characterId: FIXTURE_CHARACTERS.other.id, premium: true, scopes: ALL_SCOPES },
  { ...DEMO_SITE_KEY, label: 'site', characterId: FIXTURE_CHARACTERS.main.id, premium: true, scopes: ALL_SCOPES },
  { ...MERCHANT_KEY, label: 'merchant', characterId: MERCHANT_CHARACTER.id, premium: true, scopes: ALL_SCOPES },
]);

/**
 * Builds the key definition of a generated benchmark key (`sim-key-<n>`): premium, every scope,
 * character 1's data, label `'generated'`, secret `<key>-secret`.
 */
export function generatedKey(key: string): SimulatedApiKey {
  return {
    key,
    secret: `${key}-secret`,
    label: 'generated',
    characterId: FIXTURE_CHARACTERS.main.id,
    premium: true,
    scopes: ALL_SCOPES,
  };
}

function oid(prefix: string, n: number): string {
  return prefix + n.toString(16).padStart(4, '0');
}

const COMPANY = '64f1c2a9e4b0a1d2c3f4';
const COMPANY_ACCOUNT = '6501d3b7a2c4e5f6a7b8';
const BUILDING = '65b2e7d1f0c3a4b5c6d7';
const BUILDING_ACCOUNT = '65c8f1a2b3d4e5f6a7b9';
const ROOM = '66c3a8f2d1e0b9a7c6d5';
const AUCTION = '67d4b1c9e8f7a6b5c4d3';

/**
 * The ids tests and demos need. All are 24-character hex strings (opaque database ids).
 */
export const FIXTURE_IDS = Object.freeze({
  /** Character 1's 24/7 shop: counter, inventory, EMPTY machine store (404), sell+buy offers, option slots 1 and 2 (2 is legacy `lastUpdate`), 2 bank accounts. */
  shop: oid(COMPANY, 1),
  /** Character 1's car dealership ('Autohaus'): 5 vehicles, inventory, empty counter and machine store (404). */
  carDealer: oid(COMPANY, 2),
  /** Character 1's workshop ('Werkstatt'): buy log of 64 entries, 3 productions, inventory and machine store, empty counter. */
  workshop: oid(COMPANY, 3),
  /** Character 1's farm ('Bauernhof'): EMPTY inventory (404), machine store, 1 production, sell offers, no options set. */
  farm: oid(COMPANY, 4),
  /** Character 2's gas station ('Tankstelle'); 404 for character 1's keys. */
  otherFactory: oid(COMPANY, 0x101),
  /** Shop main account, vban '4711002' (string), 12 transactions. */
  shopMainAccount: oid(COMPANY_ACCOUNT, 1),
  /** Shop savings account, vban 4711001 as a JSON NUMBER (quirk), 4 transactions. */
  shopSavingsAccount: oid(COMPANY_ACCOUNT, 2),
  /** Car dealership account, vban '4711003', 6 transactions. */
  carDealerAccount: oid(COMPANY_ACCOUNT, 3),
  /** Workshop account, vban '4711004', 5 transactions. */
  workshopAccount: oid(COMPANY_ACCOUNT, 4),
  /** Farm account, vban '4711005', 3 transactions. */
  farmAccount: oid(COMPANY_ACCOUNT, 5),
  /** Character 2's gas station account, vban '4712001', 4 transactions. */
  otherFactoryAccount: oid(COMPANY_ACCOUNT, 0x101),
  /** Character 1's building 'Hafenlofts': 8 rooms, 5 rented, 2 bank accounts. */
  hafen: oid(BUILDING, 1),
  /** Character 1's building 'Altstadthaus': 3 rooms, 1 rented, 1 bank account. */
  altstadt: oid(BUILDING, 2),
  /** Character 2's building 'Villa Musterfrau'; 404 for character 1's keys. */
  otherBuilding: oid(BUILDING, 0x101),
  /** Hafenlofts main account (main: true), vban '4720001', 40 transactions. */
  hafenMainAccount: oid(BUILDING_ACCOUNT, 1),
  /** Hafenlofts reserve account (main: false), vban '4720002', 5 transactions. */
  hafenReserveAccount: oid(BUILDING_ACCOUNT, 2),
  /** Altstadthaus main account, vban '4720003', 8 transactions. */
  altstadtAccount: oid(BUILDING_ACCOUNT, 3),
  /** Villa Musterfrau main account (character 2), vban '4721001', 3 transactions. */
  otherBuildingAccount: oid(BUILDING_ACCOUNT, 0x101),
  /** Room ids of Hafenlofts in order; rooms 1, 2, 3, 5 and 7 (indexes 0, 1, 2, 4, 6) are rented. */
  hafenRooms: Object.freeze([1, 2, 3, 4, 5, 6, 7, 8].map((n) => oid(ROOM, n))),
  /** Room ids of Altstadthaus in order; the first is rented. */
  altstadtRooms: Object.freeze([0x11, 0x12, 0x13].map((n) => oid(ROOM, n))),
});

// ---------------------------------------------------------------------------------------------
// Stored shapes (the simulator renders them per key: icons, optional scopes, paging).
// ---------------------------------------------------------------------------------------------

/** A stored store/machine-store stack; icon and totalWeight are derived when rendering. */
export interface FixtureItem {
  /** Item name; the icon URL is `${STATIC_URL}/items/<slug(item)>.png`. */
  item: string;
  /** Units. */
  amount: number;
  /** Weight of one unit. */
  singleWeight: number;
}

/** A stored counter stack. */
export interface FixtureCounterItem extends FixtureItem {
  /** Sale price per unit in dollars. */
  price: number;
}

/** A stored production; the icon is derived from `itemName`. */
export interface FixtureProduction {
  /** Produced item. */
  itemName: string;
  /** Ingredients. */
  neededItems: WireNamedAmount[];
}

/** A stored company bank account with its transactions (newest first). */
export interface FixtureCompanyBankAccount {
  /** Opaque id. */
  id: string;
  /** Vban; a number for the legacy account (quirk). */
  vban: string | number;
  /** Balance in dollars. */
  balance: number;
  /** Note or null. */
  note: string | null;
  /** All transactions, newest first. */
  transactions: WireBankTransaction[];
}

/** A stored building bank account with its transactions (newest first). */
export interface FixtureBuildingBankAccount {
  /** Opaque id. */
  id: string;
  /** Vban. */
  vban: string;
  /** Balance in dollars. */
  balance: number;
  /** Note or null. */
  note: string | null;
  /** Main account flag. */
  main: boolean;
  /** All transactions, newest first. */
  transactions: WireBankTransaction[];
}

/** A stored vehicle; the image is derived from `name` (`${STATIC_URL}/vehicles/<slug>.png`). */
export interface FixtureVehicle {
  /** Model name. */
  name: string;
  /** Number plate. */
  numberPlate: string;
  /** Distance driven in whole metres. */
  distance: number;
  /** Engine description. */
  engine: string;
}

/** A stored sell offer; `totalPrice` and `icon` are derived. */
export interface FixtureSellOffer {
  /** Item name. */
  item: string;
  /** Price per unit in dollars. */
  pricePerUnit: number;
  /** Units available. */
  availableAmount: number;
  /** ISO creation time. */
  createdAt: string;
}

/** A stored buy offer. */
export interface FixtureBuyOffer extends FixtureSellOffer {
  /** Listed reference price per unit in dollars. */
  listPrice: number;
}

/** A stored option slot: current records use `lastUpdated`, legacy ones `lastUpdate` (returned as stored). */
export type FixtureOption = WireFactoryOption | WireLegacyFactoryOption;

/** A stored company. */
export interface FixtureCompany {
  /** Opaque id. */
  id: string;
  /** Name. */
  name: string;
  /** Hash. */
  hash: string;
  /** Advertising line or null. */
  adLine: string | null;
  /** Open flag (shown only with `factory.details`). */
  isOpen: boolean | null;
  /** Company type (shown only with `factory.details`). */
  type: string | null;
  /** Address (shown only with `factory.details`). */
  address: string | null;
  /** Normal store; empty answers 404 'Inventory is empty'. */
  inventory: FixtureItem[];
  /** All machine stores; empty answers 404 'Machine store is empty'. */
  machineStore: FixtureItem[];
  /** Counter; empty answers 404 'Counter is empty'. */
  counter: FixtureCounterItem[];
  /** Productions. */
  productions: FixtureProduction[];
  /** Bank accounts. */
  bankAccounts: FixtureCompanyBankAccount[];
  /** Vehicles on sale (dealerships only). */
  vehicles: FixtureVehicle[];
  /** Sell offers on the market. */
  sellOffers: FixtureSellOffer[];
  /** Buy offers on the market. */
  buyOffers: FixtureBuyOffer[];
  /** Buy log, newest first. */
  buyLog: WireBuyLogEntry[];
  /** Option slots by number ('1'..'10'); a missing slot answers 404 'Option not found'. */
  options: Record<string, FixtureOption>;
}

/** A stored room; `occupied` is derived from `tenant`. */
export interface FixtureRoom {
  /** Opaque id. */
  id: string;
  /** Hash. */
  hash: string;
  /** Name. */
  name: string;
  /** Rent in dollars. */
  rent: number;
  /** Interior description; the image is `${STATIC_URL}/interiors/<slug(interior)>.jpg`. */
  interior: string;
  /** Capacities. */
  interiorDetails: { inventoryCapacity: number; kitchenCapacity: number; wardrobeCapacity: number };
  /** The tenant, null when free. */
  tenant: { name: string; lastPayDate: string } | null;
}

/** A stored building. */
export interface FixtureBuilding {
  /** Opaque id. */
  id: string;
  /** Hash. */
  hash: string;
  /** Label. */
  label: string;
  /** Address. */
  address: string;
  /** Area name. */
  area: string;
  /** Garage slots. */
  garageSlots: number;
  /** Purchase price in dollars. */
  price: number;
  /** Rooms. */
  rooms: FixtureRoom[];
  /** Bank accounts. */
  bankAccounts: FixtureBuildingBankAccount[];
}

/** Stored auctions of one character (icons derived from `item`). */
export interface FixtureAuctions {
  /** `/market/my/auctions/import`. */
  myImport: Omit<WireMyImportAuction, 'icon'>[];
  /** `/market/my/auctions/export`. */
  myExport: Omit<WireMyExportAuction, 'icon'>[];
  /** `/market/import` (released for the character's company types). */
  available: { import: Omit<WireImportAuction, 'icon'>[]; export: Omit<WireExportAuction, 'icon'>[] };
}

/** A character and everything it owns. */
export interface FixtureCharacter {
  /** Internal id (see {@link FIXTURE_CHARACTERS}). */
  id: string;
  /** Character name. */
  name: string;
  /** Owned companies in list order. */
  companies: FixtureCompany[];
  /** Owned buildings in list order. */
  buildings: FixtureBuilding[];
  /** Auctions. */
  auctions: FixtureAuctions;
}

/** The whole mutable simulator state. */
export interface FixtureState {
  /** All characters. */
  characters: FixtureCharacter[];
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/** Reference instant of the fixtures: 2024-05-15T12:00:00.000Z. All fixture timestamps lie before it or shortly after it. */
export const FIXTURE_NOW = Date.parse('2024-05-15T12:00:00.000Z');

function minutesBefore(minutes: number): string {
  return new Date(FIXTURE_NOW - minutes * 60_000).toISOString();
}

function hoursBefore(hours: number): string {
  return minutesBefore(hours * 60);
}

function hoursAfter(hours: number): string {
  return minutesBefore(-hours * 60);
}

/** Rounds to two decimals (money) without float noise. */
export function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

/** Rounds to three decimals (weights) without float noise. */
export function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** Turns a German item/model name into the file slug of its static image, e.g. 'Motoröl' → 'motoroel'. */
export function slug(name: string): string {
  return name
    .toLowerCase()
    .replace(/ä/g, 'ae')
    .replace(/ö/g, 'oe')
    .replace(/ü/g, 'ue')
    .replace(/ß/g, 'ss')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** One booking pattern: direction relative to the account, counterpart vban (null = system/cash), reference, amount. */
interface BookingTemplate {
  readonly dir: 'in' | 'out';
  readonly other: string | null;
  readonly reference: string | null;
  readonly amount: number;
}

/**
 * Builds `count` transactions of an account, newest first, cycling through the templates.
 * The first is `firstHoursAgo` hours before {@link FIXTURE_NOW}, then one every `spacingHours`.
 */
function bookings(
  own: string,
  count: number,
  templates: readonly BookingTemplate[],
  firstHoursAgo: number,
  spacingHours: number,
): WireBankTransaction[] {
  const out: WireBankTransaction[] = [];
  for (let i = 0; i < count; i += 1) {
    const t = templates[i % templates.length];
    if (t === undefined) continue;
    out.push({
      senderVban: t.dir === 'in' ? t.other : own,
      receiverVban: t.dir === 'in' ? own : t.other,
      reference: t.reference,
      amount: t.amount,
      timestamp: hoursBefore(firstHoursAgo + i * spacingHours),
    });
  }
  return out;
}

const EMPLOYEES = ['Max Mustermann', 'Jonas Weber', 'Aylin Yilmaz'] as const;
const CUSTOMERS = [
  'Kevin Schulz',
  'Laura Hoffmann',
  'Deniz Kaya',
  'Paul Fischer',
  'Mia Wagner',
  'Luca Bianchi',
  'Nina Braun',
] as const;
const WORKSHOP_PRICES: Readonly<Record<string, number>> = { Reparaturkit: 250, Tuningkit: 1200, Lack: 80 };
const WORKSHOP_BASKETS: readonly WireNamedAmount[][] = [
  [{ name: 'Reparaturkit', amount: 1 }],
  [{ name: 'Reparaturkit', amount: 2 }],
  [{ name: 'Tuningkit', amount: 1 }],
  [
    { name: 'Reparaturkit', amount: 1 },
    { name: 'Lack', amount: 2 },
  ],
  [{ name: 'Lack', amount: 3 }],
];

/** The workshop's buy log: 64 sales, newest first, one every 5.5 hours; discount null except every 4th (10 %) and every 7th (25 %). */
function workshopBuyLog(): WireBuyLogEntry[] {
  const out: WireBuyLogEntry[] = [];
  for (let i = 0; i < 64; i += 1) {
    const basket = WORKSHOP_BASKETS[i % WORKSHOP_BASKETS.length] ?? [];
    const discount = i % 7 === 6 ? 25 : i % 4 === 1 ? 10 : null;
    const gross = basket.reduce((sum, line) => sum + (WORKSHOP_PRICES[line.name] ?? 0) * line.amount, 0);
    out.push({
      seller: EMPLOYEES[i % EMPLOYEES.length] ?? 'Max Mustermann',
      buyer: CUSTOMERS[(i * 3) % CUSTOMERS.length] ?? 'Kevin Schulz',
      price: round2(gross * (1 - (discount ?? 0) / 100)),
      discount,
      items: basket.map((line) => ({ ...line })),
      createdAt: minutesBefore(45 + i * 330),
    });
  }
  return out;
}

const STADTWERKE = '4790001';
const GROSSHANDEL = '4790010';
const FINANZAMT = '4790099';

interface RoomSpec {
  readonly n: number;
  readonly hash: string;
  readonly name: string;
  readonly rent: number;
  readonly interior:
    | 'Industrie-Loft'
    | 'Studio'
    | 'Penthouse'
    | 'Modernes Apartment'
    | 'Einfaches Apartment'
    | 'Altbauwohnung'
    | 'Villa';
  readonly tenant?: { readonly name: string; readonly lastPayDate: string };
}

const INTERIOR_DETAILS: Readonly<Record<RoomSpec['interior'], FixtureRoom['interiorDetails']>> = {
  'Industrie-Loft': { inventoryCapacity: 300, kitchenCapacity: 80, wardrobeCapacity: 60 },
  Studio: { inventoryCapacity: 150, kitchenCapacity: 40, wardrobeCapacity: 30 },
  Penthouse: { inventoryCapacity: 600, kitchenCapacity: 150, wardrobeCapacity: 120 },
  'Modernes Apartment': { inventoryCapacity: 250, kitchenCapacity: 60, wardrobeCapacity: 50 },
  'Einfaches Apartment': { inventoryCapacity: 120, kitchenCapacity: 30, wardrobeCapacity: 25 },
  Altbauwohnung: { inventoryCapacity: 200, kitchenCapacity: 50, wardrobeCapacity: 40 },
  Villa: { inventoryCapacity: 800, kitchenCapacity: 200, wardrobeCapacity: 150 },
};

function room(spec: RoomSpec): FixtureRoom {
  return {
    id: oid(ROOM, spec.n),
    hash: spec.hash,
    name: spec.name,
    rent: spec.rent,
    interior: spec.interior,
    interiorDetails: { ...INTERIOR_DETAILS[spec.interior] },
    tenant: spec.tenant === undefined ? null : { ...spec.tenant },
  };
}

// ---------------------------------------------------------------------------------------------
// Character 1: Max Mustermann
// ---------------------------------------------------------------------------------------------

function shop(): FixtureCompany {
  const main = '4711002';
  return {
    id: FIXTURE_IDS.shop,
    name: 'Max 24/7 Vinewood',
    hash: 'f3a91c07',
    adLine: 'Alles für den Alltag – rund um die Uhr!',
    isOpen: true,
    type: '24/7',
    address: 'Vinewood Blvd 12',
    counter: [
      { item: 'Wasser', price: 4.5, amount: 120, singleWeight: 0.5 },
      { item: 'Sandwich', price: 7, amount: 60, singleWeight: 0.3 },
      { item: 'Kaffee', price: 3.5, amount: 80, singleWeight: 0.25 },
      { item: 'Zigaretten', price: 12, amount: 40, singleWeight: 0.1 },
      { item: 'Verbandskasten', price: 45, amount: 15, singleWeight: 1.2 },
    ],
    inventory: [
      { item: 'Wasser', amount: 400, singleWeight: 0.5 },
      { item: 'Sandwich', amount: 150, singleWeight: 0.3 },
      { item: 'Kaffee', amount: 200, singleWeight: 0.25 },
      { item: 'Pappbecher', amount: 500, singleWeight: 0.02 },
    ],
    machineStore: [],
    productions: [],
    bankAccounts: [
      {
        id: FIXTURE_IDS.shopMainAccount,
        vban: main,
        balance: 18450.75,
        note: 'Hauptkonto',
        transactions: bookings(
          main,
          12,
          [
            { dir: 'in', other: null, reference: 'Tageseinnahmen', amount: 1240.5 },
            { dir: 'out', other: GROSSHANDEL, reference: 'Großhandel Lieferung Wasser', amount: 380 },
            { dir: 'out', other: '4730011', reference: 'Lohn Aylin Yilmaz', amount: 900 },
            { dir: 'in', other: '4733120', reference: 'Catering Bestellung', amount: 260 },
            { dir: 'out', other: STADTWERKE, reference: null, amount: 145.2 },
            { dir: 'in', other: null, reference: 'Tageseinnahmen', amount: 987.25 },
          ],
          3,
          14,
        ),
      },
      {
        id: FIXTURE_IDS.shopSavingsAccount,
        vban: 4711001,
        balance: 50000,
        note: null,
        transactions: bookings(
          '4711001',
          4,
          [
            { dir: 'in', other: main, reference: 'Rücklage', amount: 2500 },
            { dir: 'in', other: null, reference: 'Zinsen', amount: 125 },
          ],
          30,
          168,
        ),
      },
    ],
    vehicles: [],
    sellOffers: [
      { item: 'Wasser', pricePerUnit: 3.2, availableAmount: 200, createdAt: hoursBefore(20) },
      { item: 'Kaffee', pricePerUnit: 2.8, availableAmount: 100, createdAt: hoursBefore(44) },
    ],
    buyOffers: [
      { item: 'Pappbecher', pricePerUnit: 0.15, availableAmount: 1000, listPrice: 0.2, createdAt: hoursBefore(26) },
      { item: 'Brot', pricePerUnit: 1.1, availableAmount: 300, listPrice: 1.4, createdAt: hoursBefore(50) },
    ],
    buyLog: [],
    options: {
      '1': { title: 'Öffnungszeiten', data: 'Mo–So 0–24 Uhr', lastUpdated: '2024-04-02T09:15:00.000Z' },
      // Legacy record: the real API returns it with `lastUpdate` (quirk 3).
      '2': {
        title: 'Angebot der Woche',
        data: '{"item":"Kaffee","price":2.99,"validUntil":"2023-11-27"}',
        lastUpdate: '2023-11-20T18:42:00.000Z',
      },
    },
  };
}

function carDealer(): FixtureCompany {
  const own = '4711003';
  return {
    id: FIXTURE_IDS.carDealer,
    name: 'Mustermann Motors',
    hash: '9b2e44d1',
    adLine: 'Neu- und Gebrauchtwagen mit Garantie',
    isOpen: false,
    type: 'Autohaus',
    address: 'Strawberry Ave 88',
    counter: [],
    inventory: [
      { item: 'Motoröl', amount: 30, singleWeight: 1 },
      { item: 'Reifen', amount: 16, singleWeight: 8 },
      { item: 'Autobatterie', amount: 6, singleWeight: 12 },
    ],
    machineStore: [],
    productions: [],
    bankAccounts: [
      {
        id: FIXTURE_IDS.carDealerAccount,
        vban: own,
        balance: 235400,
        note: 'Fahrzeugverkäufe',
        transactions: bookings(
          own,
          6,
          [
            { dir: 'in', other: '4733871', reference: 'Kauf Karin Sultan LS 1037', amount: 38500 },
            { dir: 'out', other: '4790020', reference: 'Fahrzeugimport', amount: 120000 },
            { dir: 'in', other: '4734410', reference: 'Kauf Bravado Buffalo', amount: 52000 },
          ],
          10,
          37,
        ),
      },
    ],
    vehicles: [
      { name: 'Pegassi Zentorno', numberPlate: 'LS 4821', distance: 12873, engine: 'V12 6.5L' },
      { name: 'Karin Sultan', numberPlate: 'LS 1037', distance: 84520, engine: 'I4 2.0L Turbo' },
      { name: 'Bravado Buffalo', numberPlate: 'MM 0815', distance: 231004, engine: 'V8 5.7L' },
      { name: 'Declasse Rancher', numberPlate: 'MM 4711', distance: 0, engine: 'V8 6.2L' },
      { name: 'Obey Tailgater', numberPlate: 'LS 7342', distance: 55990, engine: 'V6 3.0L' },
    ],
    sellOffers: [],
    buyOffers: [],
    buyLog: [],
    options: {
      '1': {
        title: 'Finanzierung',
        data: 'Ab 0,9 % effektiv, Laufzeit bis 48 Monate',
        lastUpdated: '2024-03-18T14:00:00.000Z',
      },
    },
  };
}

function workshop(): FixtureCompany {
  const own = '4711004';
  return {
    id: FIXTURE_IDS.workshop,
    name: 'Mustermann Tuning & Reparatur',
    hash: '5c7d10ee',
    adLine: null,
    isOpen: true,
    type: 'Werkstatt',
    address: 'Elgin Ave 5',
    counter: [],
    inventory: [
      { item: 'Reparaturkit', amount: 25, singleWeight: 2.5 },
      { item: 'Stahl', amount: 120, singleWeight: 1 },
      { item: 'Gummi', amount: 80, singleWeight: 0.4 },
      { item: 'Schrauben', amount: 600, singleWeight: 0.01 },
    ],
    machineStore: [
      { item: 'Stahl', amount: 40, singleWeight: 1 },
      { item: 'Reparaturkit', amount: 10, singleWeight: 2.5 },
      { item: 'Lack', amount: 12, singleWeight: 0.8 },
    ],
    productions: [
      {
        itemName: 'Reparaturkit',
        neededItems: [
          { name: 'Stahl', amount: 2 },
          { name: 'Gummi', amount: 1 },
          { name: 'Schrauben', amount: 10 },
        ],
      },
      {
        itemName: 'Tuningkit',
        neededItems: [
          { name: 'Stahl', amount: 4 },
          { name: 'Elektronik', amount: 2 },
        ],
      },
      {
        itemName: 'Lack',
        neededItems: [
          { name: 'Farbpigment', amount: 3 },
          { name: 'Lösungsmittel', amount: 1 },
        ],
      },
    ],
    bankAccounts: [
      {
        id: FIXTURE_IDS.workshopAccount,
        vban: own,
        balance: 9120.4,
        note: null,
        transactions: bookings(
          own,
          5,
          [
            { dir: 'in', other: null, reference: 'Kasse Reparaturen', amount: 1750 },
            { dir: 'out', other: GROSSHANDEL, reference: 'Stahl 200 Stk.', amount: 420 },
            { dir: 'out', other: '4730012', reference: 'Lohn Jonas Weber', amount: 1100 },
          ],
          5,
          30,
        ),
      },
    ],
    vehicles: [],
    sellOffers: [],
    buyOffers: [{ item: 'Stahl', pricePerUnit: 2.1, availableAmount: 500, listPrice: 2.5, createdAt: hoursBefore(12) }],
    buyLog: workshopBuyLog(),
    options: {
      '1': {
        title: 'Preisliste',
        data: 'Reparaturkit 250$, Tuningkit 1200$, Lack 80$',
        lastUpdated: '2024-05-01T08:30:00.000Z',
      },
    },
  };
}

function farm(): FixtureCompany {
  const own = '4711005';
  return {
    id: FIXTURE_IDS.farm,
    name: 'Hof Mustermann',
    hash: 'a04be9f2',
    adLine: 'Frisch vom Feld',
    isOpen: false,
    type: 'Bauernhof',
    address: 'Grapeseed Main St 3',
    counter: [],
    inventory: [],
    machineStore: [
      { item: 'Weizen', amount: 800, singleWeight: 0.2 },
      { item: 'Mehl', amount: 150, singleWeight: 1 },
    ],
    productions: [{ itemName: 'Mehl', neededItems: [{ name: 'Weizen', amount: 5 }] }],
    bankAccounts: [
      {
        id: FIXTURE_IDS.farmAccount,
        vban: own,
        balance: 3200,
        note: 'Ernteerlöse',
        transactions: bookings(
          own,
          3,
          [
            { dir: 'in', other: '4711002', reference: 'Mehl 50 Stk.', amount: 175 },
            { dir: 'out', other: '4790030', reference: 'Saatgut', amount: 640 },
            { dir: 'in', other: null, reference: 'Marktverkauf Weizen', amount: 1800 },
          ],
          8,
          48,
        ),
      },
    ],
    vehicles: [],
    sellOffers: [
      { item: 'Weizen', pricePerUnit: 0.9, availableAmount: 2000, createdAt: hoursBefore(6) },
      { item: 'Mehl', pricePerUnit: 3.5, availableAmount: 150, createdAt: hoursBefore(30) },
    ],
    buyOffers: [],
    buyLog: [],
    options: {},
  };
}

function hafen(): FixtureBuilding {
  const own = '4720001';
  const rooms = [
    room({
      n: 1,
      hash: 'r1c0a7e1',
      name: 'Loft 1',
      rent: 1200,
      interior: 'Industrie-Loft',
      tenant: { name: 'Lena Schmidt', lastPayDate: '2024-05-01T10:12:00.000Z' },
    }),
    room({
      n: 2,
      hash: 'r2d4b812',
      name: 'Loft 2',
      rent: 1200,
      interior: 'Industrie-Loft',
      tenant: { name: 'Jonas Weber', lastPayDate: '2024-05-02T19:40:00.000Z' },
    }),
    room({
      n: 3,
      hash: 'r3e9c223',
      name: 'Loft 3',
      rent: 950,
      interior: 'Studio',
      tenant: { name: 'Aylin Yilmaz', lastPayDate: '2024-04-28T07:05:00.000Z' },
    }),
    room({ n: 4, hash: 'r4f0d334', name: 'Loft 4', rent: 950, interior: 'Studio' }),
    room({
      n: 5,
      hash: 'r5a1e445',
      name: 'Penthouse',
      rent: 2400,
      interior: 'Penthouse',
      tenant: { name: 'Tom Becker', lastPayDate: '2024-05-03T21:30:00.000Z' },
    }),
    room({ n: 6, hash: 'r6b2f556', name: 'Loft 6', rent: 1100, interior: 'Modernes Apartment' }),
    room({
      n: 7,
      hash: 'r7c30667',
      name: 'Loft 7',
      rent: 1100,
      interior: 'Modernes Apartment',
      tenant: { name: 'Sofia Rossi', lastPayDate: '2024-04-15T12:00:00.000Z' },
    }),
    room({ n: 8, hash: 'r8d41778', name: 'Lager-Apartment', rent: 700, interior: 'Einfaches Apartment' }),
  ];
  return {
    id: FIXTURE_IDS.hafen,
    hash: 'b7e1042a',
    label: 'Hafenlofts',
    address: 'Elysian Fields Fwy 7',
    area: 'Hafen',
    garageSlots: 12,
    price: 1250000,
    rooms,
    bankAccounts: [
      {
        id: FIXTURE_IDS.hafenMainAccount,
        vban: own,
        balance: 48210.5,
        note: 'Mieteinnahmen',
        main: true,
        transactions: bookings(
          own,
          40,
          [
            { dir: 'in', other: '4740101', reference: 'Miete Loft 1', amount: 1200 },
            { dir: 'in', other: '4740102', reference: 'Miete Loft 2', amount: 1200 },
            { dir: 'in', other: '4740103', reference: 'Miete Loft 3', amount: 950 },
            { dir: 'out', other: STADTWERKE, reference: 'Nebenkosten Strom/Wasser', amount: 310.4 },
            { dir: 'in', other: '4740105', reference: 'Miete Penthouse', amount: 2400 },
            { dir: 'in', other: '4740107', reference: 'Miete Loft 7', amount: 1100 },
            { dir: 'out', other: FINANZAMT, reference: 'Grundsteuer', amount: 312.5 },
            { dir: 'in', other: null, reference: null, amount: 500 },
            { dir: 'out', other: '4790040', reference: 'Hausmeisterservice', amount: 450 },
          ],
          4,
          17,
        ),
      },
      {
        id: FIXTURE_IDS.hafenReserveAccount,
        vban: '4720002',
        balance: 12000,
        note: 'Rücklagen',
        main: false,
        transactions: bookings(
          '4720002',
          5,
          [
            { dir: 'in', other: own, reference: 'Instandhaltungsrücklage', amount: 2000 },
            { dir: 'out', other: '4790041', reference: 'Dachreparatur', amount: 2800 },
          ],
          40,
          120,
        ),
      },
    ],
  };
}

function altstadt(): FixtureBuilding {
  const own = '4720003';
  return {
    id: FIXTURE_IDS.altstadt,
    hash: 'c5a2f91b',
    label: 'Altstadthaus',
    address: 'Carcer Way 21',
    area: 'Altstadt',
    garageSlots: 2,
    price: 420000,
    rooms: [
      room({
        n: 0x11,
        hash: 'a1b2c3d4',
        name: 'Erdgeschoss',
        rent: 800,
        interior: 'Altbauwohnung',
        tenant: { name: 'Paul Fischer', lastPayDate: '2024-05-05T09:00:00.000Z' },
      }),
      room({ n: 0x12, hash: 'a2b3c4d5', name: '1. OG', rent: 850, interior: 'Altbauwohnung' }),
      room({ n: 0x13, hash: 'a3b4c5d6', name: 'Dachgeschoss', rent: 650, interior: 'Einfaches Apartment' }),
    ],
    bankAccounts: [
      {
        id: FIXTURE_IDS.altstadtAccount,
        vban: own,
        balance: 6240,
        note: null,
        main: true,
        transactions: bookings(
          own,
          8,
          [
            { dir: 'in', other: '4740211', reference: 'Miete Erdgeschoss', amount: 800 },
            { dir: 'out', other: STADTWERKE, reference: 'Nebenkosten', amount: 120 },
            { dir: 'out', other: FINANZAMT, reference: 'Grundsteuer', amount: 105 },
            { dir: 'in', other: null, reference: 'Bareinzahlung', amount: 300 },
          ],
          12,
          60,
        ),
      },
    ],
  };
}

// ---------------------------------------------------------------------------------------------
// Character 2: Erika Musterfrau
// ---------------------------------------------------------------------------------------------

function otherFactory(): FixtureCompany {
  const own = '4712001';
  return {
    id: FIXTURE_IDS.otherFactory,
    name: 'Erikas Tankstelle',
    hash: 'e7f3021d',
    adLine: 'Volltanken und weiterfahren',
    isOpen: true,
    type: 'Tankstelle',
    address: 'Route 68 Nr. 4',
    counter: [
      { item: 'Benzinkanister', price: 25, amount: 30, singleWeight: 5 },
      { item: 'Snackriegel', price: 2.5, amount: 90, singleWeight: 0.1 },
      { item: 'Motoröl', price: 18, amount: 20, singleWeight: 1 },
    ],
    inventory: [{ item: 'Benzinkanister', amount: 60, singleWeight: 5 }],
    machineStore: [],
    productions: [],
    bankAccounts: [
      {
        id: FIXTURE_IDS.otherFactoryAccount,
        vban: own,
        balance: 7300,
        note: null,
        transactions: bookings(
          own,
          4,
          [
            { dir: 'in', other: null, reference: 'Tageseinnahmen', amount: 640 },
            { dir: 'out', other: GROSSHANDEL, reference: 'Treibstofflieferung', amount: 900 },
          ],
          6,
          24,
        ),
      },
    ],
    vehicles: [],
    sellOffers: [],
    buyOffers: [
      { item: 'Benzin', pricePerUnit: 1.6, availableAmount: 5000, listPrice: 1.8, createdAt: hoursBefore(15) },
    ],
    buyLog: [],
    options: {
      '1': { title: 'Spritpreise', data: 'Benzin 1,79 $/l', lastUpdated: '2024-05-10T06:00:00.000Z' },
    },
  };
}

function otherBuilding(): FixtureBuilding {
  const own = '4721001';
  return {
    id: FIXTURE_IDS.otherBuilding,
    hash: 'd9e8f7a6',
    label: 'Villa Musterfrau',
    address: 'Vinewood Hills Dr 3',
    area: 'Vinewood Hills',
    garageSlots: 4,
    price: 980000,
    rooms: [
      room({
        n: 0x101,
        hash: 'v1a2b3c4',
        name: 'Gästehaus',
        rent: 1500,
        interior: 'Villa',
        tenant: { name: 'Nina Braun', lastPayDate: '2024-05-04T16:20:00.000Z' },
      }),
      room({ n: 0x102, hash: 'v2b3c4d5', name: 'Einliegerwohnung', rent: 900, interior: 'Modernes Apartment' }),
    ],
    bankAccounts: [
      {
        id: FIXTURE_IDS.otherBuildingAccount,
        vban: own,
        balance: 15800,
        note: 'Villa',
        main: true,
        transactions: bookings(
          own,
          3,
          [{ dir: 'in', other: '4740301', reference: 'Miete Gästehaus', amount: 1500 }],
          20,
          240,
        ),
      },
    ],
  };
}

/** Builds a fresh, independent copy of the whole fixture state (character 1 first, then character 2, then the merchant). */
export function createFixtureState(): FixtureState {
  return {
    characters: [
      {
        id: FIXTURE_CHARACTERS.main.id,
        name: FIXTURE_CHARACTERS.main.name,
        companies: [shop(), carDealer(), workshop(), farm()],
        buildings: [hafen(), altstadt()],
        auctions: {
          myImport: [
            { id: oid(AUCTION, 1), item: 'Stahl', bidAmount: 1850, isLastBidderMe: true, auctionEnd: hoursAfter(30) },
            { id: oid(AUCTION, 2), item: 'Gummi', bidAmount: 640, isLastBidderMe: false, auctionEnd: hoursAfter(6) },
            {
              id: oid(AUCTION, 3),
              item: 'Farbpigment',
              bidAmount: 300,
              isLastBidderMe: true,
              auctionEnd: hoursAfter(52),
            },
          ],
          myExport: [
            {
              id: oid(AUCTION, 0x11),
              item: 'Weizen',
              bidAmount: 920,
              isLastBidderMe: false,
              auctionEnd: hoursAfter(20),
              amount: 2000,
              singleWeight: 0.2,
              totalWeight: 400,
              duration: 48,
            },
            {
              id: oid(AUCTION, 0x12),
              item: 'Mehl',
              bidAmount: 1400,
              isLastBidderMe: false,
              auctionEnd: hoursAfter(70),
              amount: 300,
              singleWeight: 1,
              totalWeight: 300,
              duration: null,
            },
          ],
          available: {
            import: [
              { id: oid(AUCTION, 0x21), item: 'Elektronik', bidAmount: 2600, auctionEnd: hoursAfter(12) },
              { id: oid(AUCTION, 0x22), item: 'Stahl', bidAmount: 1500, auctionEnd: hoursAfter(18) },
              { id: oid(AUCTION, 0x23), item: 'Schrauben', bidAmount: 90, auctionEnd: hoursAfter(26) },
              { id: oid(AUCTION, 0x24), item: 'Kaffeebohnen', bidAmount: 480, auctionEnd: hoursAfter(40) },
            ],
            export: [
              {
                id: oid(AUCTION, 0x31),
                item: 'Weizen',
                bidAmount: 700,
                auctionEnd: hoursAfter(10),
                amount: 5000,
                weight: 1000,
                duration: 24,
              },
              {
                id: oid(AUCTION, 0x32),
                item: 'Reifen',
                bidAmount: 1900,
                auctionEnd: hoursAfter(22),
                amount: 40,
                weight: 320,
                duration: 48,
              },
              {
                id: oid(AUCTION, 0x33),
                item: 'Wasser',
                bidAmount: 350,
                auctionEnd: hoursAfter(34),
                amount: 1000,
                weight: 500,
                duration: 72,
              },
            ],
          },
        },
      },
      {
        id: FIXTURE_CHARACTERS.other.id,
        name: FIXTURE_CHARACTERS.other.name,
        companies: [otherFactory()],
        buildings: [otherBuilding()],
        auctions: {
          myImport: [
            {
              id: oid(AUCTION, 0x101),
              item: 'Benzin',
              bidAmount: 4200,
              isLastBidderMe: true,
              auctionEnd: hoursAfter(16),
            },
          ],
          myExport: [],
          available: {
            import: [
              { id: oid(AUCTION, 0x111), item: 'Benzin', bidAmount: 3900, auctionEnd: hoursAfter(9) },
              { id: oid(AUCTION, 0x112), item: 'Snackriegel', bidAmount: 150, auctionEnd: hoursAfter(33) },
            ],
            export: [
              {
                id: oid(AUCTION, 0x121),
                item: 'Altöl',
                bidAmount: 260,
                auctionEnd: hoursAfter(21),
                amount: 200,
                weight: 200,
                duration: 24,
              },
            ],
          },
        },
      },
      merchantCharacter(),
    ],
  };
}
