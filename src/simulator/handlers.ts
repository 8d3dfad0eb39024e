/**
 * The simulated API's answers: one function per route of the table in routes.ts, rendering
 * the caller's character from the fixture state, with the validation and lookup helpers
 * they share (path parameters within bounds, a company or building of the caller, or 404).
 */
import { characterLength } from '../field-rules/character-length';
import { ApiError } from './api-errors';
import type { HandlerContext } from './api-errors';
import { round2, round3, slug, STATIC_URL } from './fixtures';
import type { FixtureBuilding, FixtureCompany, FixtureItem, Scope, SimulatedApiKey } from './fixtures';
import type {
  WireBankTransaction,
  WireBuildingBankAccount,
  WireBuildingDetails,
  WireBuildingSummary,
  WireCompanyBankAccount,
  WireCounterResponse,
  WireExportAuction,
  WireFactorySummary,
  WireImportAuction,
  WireInventoryResponse,
  WireMarketOfferBuy,
  WireMarketOfferSell,
  WireMyExportAuction,
  WireMyImportAuction,
  WireProduction,
  WireRoom,
  WireTenant,
  WireTransactionsResponse,
  WireBuyLogEntry,
  WireVehicle,
} from './upstream.types';
// ---------------------------------------------------------------------------------------------
// Validation and lookup helpers
// ---------------------------------------------------------------------------------------------

/** Parses an integer path parameter with bounds; absent → `fallback` (or 400 when there is none). */
function intParam(name: string, raw: string | undefined, min: number, max: number, fallback?: number): number {
  if (raw === undefined) {
    if (fallback !== undefined) return fallback;
    throw new ApiError(400, `${name} must be an integer number`);
  }
  if (!/^-?\d+$/.test(raw)) throw new ApiError(400, `${name} must be an integer number`);
  const value = Number(raw);
  if (value < min) throw new ApiError(400, `${name} must not be less than ${min}`);
  if (value > max) throw new ApiError(400, `${name} must not be greater than ${max}`);
  return value;
}

/** The caller's company named by the `idParam` path parameter; 404 when it is not theirs. */
export function company(ctx: HandlerContext, idParam = 'id'): FixtureCompany {
  const id = ctx.params[idParam];
  const found = ctx.character.companies.find((c) => c.id === id);
  if (found === undefined) throw new ApiError(404, 'Factory not found');
  return found;
}

function building(ctx: HandlerContext): FixtureBuilding {
  const id = ctx.params.id;
  const found = ctx.character.buildings.find((b) => b.id === id);
  if (found === undefined) throw new ApiError(404, 'Building not found');
  return found;
}

function has(key: SimulatedApiKey, scope: Scope): boolean {
  return key.scopes.includes(scope);
}

function icon(
  ctx: HandlerContext,
  folder: 'items' | 'vehicles' | 'interiors',
  name: string,
  ext = 'png',
): string | null {
  return ctx.key.premium ? `${STATIC_URL}/${folder}/${slug(name)}.${ext}` : null;
}

/** An inventory answer of `items` (the store or the machine store), or 404 with `emptyMessage` when there are none. */
export function inventory(
  ctx: HandlerContext,
  items: readonly FixtureItem[],
  emptyMessage: string,
): WireInventoryResponse {
  if (items.length === 0) throw new ApiError(404, emptyMessage);
  const rendered = items.map((i) => ({
    item: i.item,
    amount: i.amount,
    singleWeight: i.singleWeight,
    totalWeight: round3(i.amount * i.singleWeight),
    icon: icon(ctx, 'items', i.item),
  }));
  return { totalWeight: round3(rendered.reduce((sum, i) => sum + i.totalWeight, 0)), items: rendered };
}

function page(all: readonly WireBankTransaction[], limit: number, skip: number): WireTransactionsResponse {
  return { totalTransactions: all.length, transactions: all.slice(skip, skip + limit).map((t) => ({ ...t })) };
}

function transactionPaging(ctx: HandlerContext): { limit: number; skip: number } {
  return { limit: intParam('limit', ctx.params.limit, 1, 25, 10), skip: intParam('skip', ctx.params.skip, 0, 200, 0) };
}

// ---------------------------------------------------------------------------------------------
// Handlers
// ---------------------------------------------------------------------------------------------

/** `GET /factory/list/`: the simulated answer for the caller's character. */
export function factoryList(ctx: HandlerContext): WireFactorySummary[] {
  const details = has(ctx.key, 'factory.details');
  return ctx.character.companies.map((c) => {
    const summary: WireFactorySummary = { id: c.id, name: c.name, hash: c.hash, adLine: c.adLine };
    if (details) {
      summary.isOpen = c.isOpen;
      summary.type = c.type;
      summary.address = c.address;
    }
    return summary;
  });
}

/** `GET /factory/counter/{id}`: the simulated answer for the caller's character. */
export function counter(ctx: HandlerContext): WireCounterResponse {
  const c = company(ctx);
  if (c.counter.length === 0) throw new ApiError(404, 'Counter is empty');
  const items = c.counter.map((i) => ({
    item: i.item,
    price: i.price,
    amount: i.amount,
    singleWeight: i.singleWeight,
    totalWeight: round3(i.amount * i.singleWeight),
    icon: icon(ctx, 'items', i.item),
  }));
  return { totalWeight: round3(items.reduce((sum, i) => sum + i.totalWeight, 0)), items };
}

/** `GET /factory/productions/{id}`: the simulated answer for the caller's character. */
export function productions(ctx: HandlerContext): WireProduction[] {
  return company(ctx).productions.map((p) => ({
    itemName: p.itemName,
    icon: `${STATIC_URL}/items/${slug(p.itemName)}.png`,
    neededItems: p.neededItems.map((n) => ({ ...n })),
  }));
}

/** `GET /factory/bankaccounts/{id}`: the simulated answer for the caller's character. */
export function factoryBankAccounts(ctx: HandlerContext): WireCompanyBankAccount[] {
  return company(ctx).bankAccounts.map((a) => ({ id: a.id, vban: a.vban, balance: a.balance, note: a.note }));
}

/** One page of the transactions of an account owned by one of `owners` (companies or buildings). */
function ownedAccountTransactions(
  ctx: HandlerContext,
  owners: ReadonlyArray<{ bankAccounts: ReadonlyArray<{ id: string; transactions: Parameters<typeof page>[0] }> }>,
): WireTransactionsResponse {
  const { limit, skip } = transactionPaging(ctx);
  for (const owner of owners) {
    const account = owner.bankAccounts.find((a) => a.id === ctx.params.bankId);
    if (account !== undefined) return page(account.transactions, limit, skip);
  }
  throw new ApiError(404, 'Bank account not found');
}

/** `GET /factory/transactions/{bankId}/{limit?}/{skip?}`: the simulated answer for the caller's character. */
export function factoryTransactions(ctx: HandlerContext): WireTransactionsResponse {
  return ownedAccountTransactions(ctx, ctx.character.companies);
}

/** `GET /factory/vehicles/{id}`: the simulated answer for the caller's character. */
export function vehicles(ctx: HandlerContext): WireVehicle[] {
  return company(ctx).vehicles.map((v) => ({
    name: v.name,
    image: icon(ctx, 'vehicles', v.name),
    numberPlate: v.numberPlate,
    distance: v.distance,
    engine: v.engine,
  }));
}

/** `GET /factory/marketoffers/sell/{id}`: the simulated answer for the caller's character. */
export function sellOffers(ctx: HandlerContext): WireMarketOfferSell[] {
  return company(ctx).sellOffers.map((o) => ({
    item: o.item,
    pricePerUnit: o.pricePerUnit,
    totalPrice: round2(o.pricePerUnit * o.availableAmount),
    availableAmount: o.availableAmount,
    createdAt: o.createdAt,
    icon: icon(ctx, 'items', o.item),
  }));
}

/** `GET /factory/marketoffers/buy/{id}`: the simulated answer for the caller's character. */
export function buyOffers(ctx: HandlerContext): WireMarketOfferBuy[] {
  return company(ctx).buyOffers.map((o) => ({
    item: o.item,
    pricePerUnit: o.pricePerUnit,
    totalPrice: round2(o.pricePerUnit * o.availableAmount),
    availableAmount: o.availableAmount,
    listPrice: o.listPrice,
    createdAt: o.createdAt,
    icon: icon(ctx, 'items', o.item),
  }));
}

/** `GET /factory/buyLog/{id}/{limit}/{skip}`: the simulated answer for the caller's character. */
export function buyLog(ctx: HandlerContext): WireBuyLogEntry[] {
  const limit = intParam('limit', ctx.params.limit, 1, 50);
  const skip = intParam('skip', ctx.params.skip, 0, 1000);
  return company(ctx)
    .buyLog.slice(skip, skip + limit)
    .map((e) => ({ ...e, items: e.items.map((i) => ({ ...i })) }));
}

/** `GET /factory/options/{id}/{slot}`: the simulated answer for the caller's character. */
export function readOption(ctx: HandlerContext): unknown {
  const slot = intParam('option', ctx.params.slot, 1, 10);
  const stored = company(ctx).options[String(slot)];
  if (stored === undefined) throw new ApiError(404, 'Option not found');
  return { ...stored };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `POST /factory/options`: the simulated answer for the caller's character. */
export function writeOption(ctx: HandlerContext): string {
  let parsed: unknown;
  if (ctx.body.trim().length === 0) {
    parsed = {};
  } else {
    try {
      parsed = JSON.parse(ctx.body);
    } catch {
      throw new ApiError(400, 'Invalid JSON body');
    }
  }
  if (!isRecord(parsed)) throw new ApiError(400, 'Request body must be a JSON object');
  const { apiSecret, factoryId, option, title, data } = parsed;
  if (typeof apiSecret !== 'string') throw new ApiError(400, 'apiSecret must be a string');
  if (typeof factoryId !== 'string') throw new ApiError(400, 'factoryId must be a string');
  if (typeof option !== 'number' || !Number.isInteger(option))
    throw new ApiError(400, 'option must be an integer number');
  if (option < 1) throw new ApiError(400, 'option must not be less than 1');
  if (option > 10) throw new ApiError(400, 'option must not be greater than 10');
  if (typeof title !== 'string') throw new ApiError(400, 'title must be a string');
  if (characterLength(title) > 64) throw new ApiError(400, 'title must be shorter than or equal to 64 characters');
  if (typeof data !== 'string') throw new ApiError(400, 'data must be a string');
  if (characterLength(data) > 2400) throw new ApiError(400, 'data must be shorter than or equal to 2400 characters');
  if (apiSecret !== ctx.key.secret) throw new ApiError(401, 'Invalid api secret');
  const target = ctx.character.companies.find((c) => c.id === factoryId);
  if (target === undefined) throw new ApiError(404, 'Factory not found');
  target.options[String(option)] = { title, data, lastUpdated: new Date(ctx.now).toISOString() };
  return 'option was updated';
}

/** `GET /market/my/auctions/import`: the simulated answer for the caller's character. */
export function myImportAuctions(ctx: HandlerContext): WireMyImportAuction[] {
  return ctx.character.auctions.myImport.map((a) => ({ ...a, icon: icon(ctx, 'items', a.item) }));
}

/** `GET /market/my/auctions/export`: the simulated answer for the caller's character. */
export function myExportAuctions(ctx: HandlerContext): WireMyExportAuction[] {
  return ctx.character.auctions.myExport.map((a) => ({ ...a, icon: icon(ctx, 'items', a.item) }));
}

/** `GET /market/import`: the simulated answer for the caller's character. */
export function importAuctions(ctx: HandlerContext): WireImportAuction[] {
  return ctx.character.auctions.available.import.map((a) => ({ ...a, icon: icon(ctx, 'items', a.item) }));
}

/** `GET /market/export`: the simulated answer for the caller's character. */
export function exportAuctions(ctx: HandlerContext): WireExportAuction[] {
  return ctx.character.auctions.available.export.map((a) => ({ ...a, icon: icon(ctx, 'items', a.item) }));
}

/** One building as `GET /building/list` lists it. */
export function buildingSummary(b: FixtureBuilding): WireBuildingSummary {
  return { id: b.id, hash: b.hash, label: b.label, address: b.address };
}

/** `GET /building/details/{id}`: the simulated answer for the caller's character. */
export function buildingDetails(ctx: HandlerContext): WireBuildingDetails {
  const b = building(ctx);
  const occupied = b.rooms.filter((r) => r.tenant !== null).length;
  return {
    ...buildingSummary(b),
    area: b.area,
    garageSlots: b.garageSlots,
    price: b.price,
    totalRooms: b.rooms.length,
    occupiedRooms: occupied,
    freeRooms: b.rooms.length - occupied,
  };
}

/** `GET /building/tenants/{id}`: the simulated answer for the caller's character. */
export function tenants(ctx: HandlerContext): WireTenant[] {
  const activity = has(ctx.key, 'building.tenants.activity');
  const out: WireTenant[] = [];
  for (const r of building(ctx).rooms) {
    if (r.tenant === null) continue;
    const tenant: WireTenant = { roomId: r.id, roomHash: r.hash, roomName: r.name, tenantName: r.tenant.name };
    if (activity) tenant.lastPayDate = r.tenant.lastPayDate;
    out.push(tenant);
  }
  return out;
}

/** `GET /building/rooms/{id}`: the simulated answer for the caller's character. */
export function rooms(ctx: HandlerContext): WireRoom[] {
  return building(ctx).rooms.map((r) => ({
    id: r.id,
    hash: r.hash,
    name: r.name,
    rent: r.rent,
    occupied: r.tenant !== null,
    interior: r.interior,
    interiorImage: icon(ctx, 'interiors', r.interior, 'jpg'),
    interiorDetails: { ...r.interiorDetails },
  }));
}

/** `GET /building/bankaccounts/{id}`: the simulated answer for the caller's character. */
export function buildingBankAccounts(ctx: HandlerContext): WireBuildingBankAccount[] {
  return building(ctx).bankAccounts.map((a) => ({
    id: a.id,
    vban: a.vban,
    balance: a.balance,
    note: a.note,
    main: a.main,
  }));
}

/** `GET /building/transactions/{bankId}/{limit?}/{skip?}`: the simulated answer for the caller's character. */
export function buildingTransactions(ctx: HandlerContext): WireTransactionsResponse {
  return ownedAccountTransactions(ctx, ctx.character.buildings);
}
