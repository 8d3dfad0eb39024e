/**
 * The simulated API without HTTP: route table, authentication, scope and premium checks,
 * parameter validation and the per-key rendering of the fixture state.
 *
 * `dispatchApiRequest` turns one request (method, path below `/req`, Authorization header,
 * body text) into a status, a JSON body and headers. The HTTP server in `simulator.ts` adds
 * latency, the request log and the transport.
 */
import { characterLength } from '../domains/shared/character-length';
import { STATIC_URL, round2, round3, slug } from './fixtures';
import type { FixtureBuilding, FixtureCharacter, FixtureCompany, FixtureItem, FixtureState, Scope, SimulatedApiKey } from './fixtures';
import type {
  WireBankTransaction,
  WireBuildingBankAccount,
  WireBuildingDetails,
  WireBuildingSummary,
  WireCompanyBankAccount,
  WireCounterResponse,
  WireErrorBody,
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

/** HTTP status phrases used in error bodies (`error` field). */
export const STATUS_PHRASES: Readonly<Record<number, string>> = Object.freeze({
  200: 'OK',
  400: 'Bad Request',
  401: 'Unauthorized',
  404: 'Not Found',
  413: 'Payload Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
});

/** An error answer; thrown by handlers and turned into a {@link WireErrorBody}. */
export class ApiError extends Error {
  /**
   * @param status HTTP status code.
   * @param message The `message` of the error body.
   * @param headers Extra response headers (e.g. `Retry-After`).
   */
  constructor(
    /** HTTP status code of the error answer. */
    readonly status: number,
    message: string,
    /** Extra response headers (e.g. `Retry-After`). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Builds the JSON error body `{statusCode, message, error}` for a status and message. */
export function errorBody(status: number, message: string): WireErrorBody {
  // NestJS's ThrottlerException, which the real API answers with, carries no `error` phrase.
  if (status === 429) return { statusCode: status, message };
  return { statusCode: status, message, error: STATUS_PHRASES[status] ?? 'Error' };
}

/** The message of the real API's 429 (NestJS's throttler). */
export const THROTTLER_MESSAGE = 'ThrottlerException: Too Many Requests';

/** The message of a premium-only endpoint refused to a key without premium: a 401 containing "Premium", as clients check. */
export const PREMIUM_MESSAGE = 'Premium required: this endpoint is only available to StateV Premium keys';

/** Everything a route handler may use. */
interface HandlerContext {
  readonly key: SimulatedApiKey;
  readonly character: FixtureCharacter;
  readonly params: Readonly<Record<string, string | undefined>>;
  readonly body: string;
  readonly now: number;
}

type Segment = { readonly kind: 'static'; readonly value: string } | { readonly kind: 'param'; readonly name: string; readonly optional: boolean };

interface RouteDef {
  readonly method: 'GET' | 'POST';
  readonly route: string;
  readonly segments: readonly Segment[];
  readonly scopes: readonly Scope[];
  readonly premium: boolean;
  readonly handle: (ctx: HandlerContext) => unknown;
}

/** Public description of one simulated route. */
export interface SimulatedRouteInfo {
  /** `METHOD pattern`, e.g. `'GET /factory/inventory/{id}'` (the name used in the request log). */
  readonly route: string;
  /** Required scopes. */
  readonly scopes: readonly Scope[];
  /** Whether the route is premium-only. */
  readonly premium: boolean;
}

function parsePattern(pattern: string): Segment[] {
  return pattern
    .split('/')
    .filter((part) => part.length > 0)
    .map((part): Segment => {
      const param = /^\{(\w+)(\?)?\}$/.exec(part);
      if (param === null) return { kind: 'static', value: part };
      return { kind: 'param', name: param[1] ?? '', optional: param[2] === '?' };
    });
}

function def(method: RouteDef['method'], pattern: string, scopes: readonly Scope[], handle: RouteDef['handle'], premium = false): RouteDef {
  return { method, route: `${method} ${pattern.replace(/\?\}/g, '}')}`, segments: parsePattern(pattern), scopes, premium, handle };
}

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

function company(ctx: HandlerContext, idParam = 'id'): FixtureCompany {
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

function icon(ctx: HandlerContext, folder: 'items' | 'vehicles' | 'interiors', name: string, ext = 'png'): string | null {
  return ctx.key.premium ? `${STATIC_URL}/${folder}/${slug(name)}.${ext}` : null;
}

function inventory(ctx: HandlerContext, items: readonly FixtureItem[], emptyMessage: string): WireInventoryResponse {
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

function factoryList(ctx: HandlerContext): WireFactorySummary[] {
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

function counter(ctx: HandlerContext): WireCounterResponse {
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

function productions(ctx: HandlerContext): WireProduction[] {
  return company(ctx).productions.map((p) => ({
    itemName: p.itemName,
    icon: `${STATIC_URL}/items/${slug(p.itemName)}.png`,
    neededItems: p.neededItems.map((n) => ({ ...n })),
  }));
}

function factoryBankAccounts(ctx: HandlerContext): WireCompanyBankAccount[] {
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

function factoryTransactions(ctx: HandlerContext): WireTransactionsResponse {
  return ownedAccountTransactions(ctx, ctx.character.companies);
}

function vehicles(ctx: HandlerContext): WireVehicle[] {
  return company(ctx).vehicles.map((v) => ({
    name: v.name,
    image: icon(ctx, 'vehicles', v.name),
    numberPlate: v.numberPlate,
    distance: v.distance,
    engine: v.engine,
  }));
}

function sellOffers(ctx: HandlerContext): WireMarketOfferSell[] {
  return company(ctx).sellOffers.map((o) => ({
    item: o.item,
    pricePerUnit: o.pricePerUnit,
    totalPrice: round2(o.pricePerUnit * o.availableAmount),
    availableAmount: o.availableAmount,
    createdAt: o.createdAt,
    icon: icon(ctx, 'items', o.item),
  }));
}

function buyOffers(ctx: HandlerContext): WireMarketOfferBuy[] {
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

function buyLog(ctx: HandlerContext): WireBuyLogEntry[] {
  const limit = intParam('limit', ctx.params.limit, 1, 50);
  const skip = intParam('skip', ctx.params.skip, 0, 1000);
  return company(ctx)
    .buyLog.slice(skip, skip + limit)
    .map((e) => ({ ...e, items: e.items.map((i) => ({ ...i })) }));
}

function readOption(ctx: HandlerContext): unknown {
  const slot = intParam('option', ctx.params.slot, 1, 10);
  const stored = company(ctx).options[String(slot)];
  if (stored === undefined) throw new ApiError(404, 'Option not found');
  return { ...stored };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function writeOption(ctx: HandlerContext): string {
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
  if (typeof option !== 'number' || !Number.isInteger(option)) throw new ApiError(400, 'option must be an integer number');
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

function myImportAuctions(ctx: HandlerContext): WireMyImportAuction[] {
  return ctx.character.auctions.myImport.map((a) => ({ ...a, icon: icon(ctx, 'items', a.item) }));
}

function myExportAuctions(ctx: HandlerContext): WireMyExportAuction[] {
  return ctx.character.auctions.myExport.map((a) => ({ ...a, icon: icon(ctx, 'items', a.item) }));
}

function importAuctions(ctx: HandlerContext): WireImportAuction[] {
  return ctx.character.auctions.available.import.map((a) => ({ ...a, icon: icon(ctx, 'items', a.item) }));
}

function exportAuctions(ctx: HandlerContext): WireExportAuction[] {
  return ctx.character.auctions.available.export.map((a) => ({ ...a, icon: icon(ctx, 'items', a.item) }));
}

function buildingSummary(b: FixtureBuilding): WireBuildingSummary {
  return { id: b.id, hash: b.hash, label: b.label, address: b.address };
}

function buildingDetails(ctx: HandlerContext): WireBuildingDetails {
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

function tenants(ctx: HandlerContext): WireTenant[] {
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

function rooms(ctx: HandlerContext): WireRoom[] {
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

function buildingBankAccounts(ctx: HandlerContext): WireBuildingBankAccount[] {
  return building(ctx).bankAccounts.map((a) => ({ id: a.id, vban: a.vban, balance: a.balance, note: a.note, main: a.main }));
}

function buildingTransactions(ctx: HandlerContext): WireTransactionsResponse {
  return ownedAccountTransactions(ctx, ctx.character.buildings);
}

// ---------------------------------------------------------------------------------------------
// Route table
// ---------------------------------------------------------------------------------------------

const ROUTES: readonly RouteDef[] = [
  def('GET', '/factory/list/', ['factory'], factoryList),
  def('GET', '/factory/inventory/{id}', ['factory', 'factory.inventory'], (ctx) => inventory(ctx, company(ctx).inventory, 'Inventory is empty')),
  def('GET', '/factory/machine/{id}', ['factory', 'factory.inventory'], (ctx) => inventory(ctx, company(ctx).machineStore, 'Machine store is empty')),
  def('GET', '/factory/counter/{id}', ['factory', 'factory.counter'], counter),
  def('GET', '/factory/productions/{id}', ['factory', 'factory.productions'], productions, true),
  def('GET', '/factory/bankaccounts/{id}', ['factory', 'factory.bankaccount'], factoryBankAccounts, true),
  def('GET', '/factory/transactions/{bankId}/{limit?}/{skip?}', ['factory', 'factory.bankaccount'], factoryTransactions, true),
  def('GET', '/factory/vehicles/{id}', ['factory', 'factory.vehicles'], vehicles),
  def('GET', '/factory/marketoffers/sell/{id}', ['factory', 'market'], sellOffers),
  def('GET', '/factory/marketoffers/buy/{id}', ['factory', 'market'], buyOffers),
  def('GET', '/factory/buyLog/{id}/{limit}/{skip}', ['factory', 'factory.buylog'], buyLog),
  def('GET', '/factory/options/{id}/{slot}', ['factory', 'factory.options'], readOption),
  def('POST', '/factory/options', ['factory', 'factory.options.edit'], writeOption),
  def('GET', '/market/my/auctions/import', ['factory', 'market'], myImportAuctions),
  def('GET', '/market/my/auctions/export', ['factory', 'market'], myExportAuctions),
  def('GET', '/market/import', ['market'], importAuctions, true),
  def('GET', '/market/export', ['market'], exportAuctions, true),
  def('GET', '/building/list', ['building'], (ctx) => ctx.character.buildings.map(buildingSummary)),
  def('GET', '/building/details/{id}', ['building', 'building.details'], buildingDetails),
  def('GET', '/building/tenants/{id}', ['building', 'building.tenants'], tenants, true),
  def('GET', '/building/rooms/{id}', ['building', 'building.rooms'], rooms),
  def('GET', '/building/bankaccounts/{id}', ['building', 'building.bankaccount'], buildingBankAccounts, true),
  def('GET', '/building/transactions/{bankId}/{limit?}/{skip?}', ['building', 'building.bankaccount'], buildingTransactions, true),
];

/**
 * Every simulated route (22 GETs and the POST), with the route names the request log uses:
 * `{id}` for company/building ids, `{bankId}/{limit}/{skip}` for transactions (also when the
 * optional segments are omitted), `{slot}` for the option number.
 */
export const SIMULATOR_ROUTES: readonly SimulatedRouteInfo[] = Object.freeze(
  ROUTES.map((r) => Object.freeze({ route: r.route, scopes: r.scopes, premium: r.premium })),
);

/** Route name logged for paths that match no route (any method). */
export const UNKNOWN_ROUTE = 'UNKNOWN';

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function match(route: RouteDef, parts: readonly string[]): Record<string, string | undefined> | undefined {
  const params: Record<string, string | undefined> = {};
  const required = route.segments.filter((s) => !(s.kind === 'param' && s.optional)).length;
  if (parts.length < required || parts.length > route.segments.length) return undefined;
  for (let i = 0; i < route.segments.length; i += 1) {
    const segment = route.segments[i];
    const part = parts[i];
    if (segment === undefined) return undefined;
    if (segment.kind === 'static') {
      if (part !== segment.value) return undefined;
    } else {
      params[segment.name] = part === undefined ? undefined : decode(part);
    }
  }
  return params;
}

/** The input of {@link dispatchApiRequest}. */
export interface ApiRequest {
  /** HTTP method, upper case. */
  readonly method: string;
  /** Path below `/req` without query, e.g. `/factory/inventory/64f…`. */
  readonly path: string;
  /** Raw `Authorization` header, if any. */
  readonly authorization: string | undefined;
  /** Request body as text (empty when none). */
  readonly body: string;
  /** Current time in ms since the epoch (`Date.now()`). */
  readonly now: number;
}

/** Environment of {@link dispatchApiRequest}. */
export interface ApiEnvironment {
  /** The mutable fixture state. */
  readonly state: FixtureState;
  /** Finds the key definition for a bearer token, undefined when unknown. */
  readonly resolveKey: (token: string) => SimulatedApiKey | undefined;
  /**
   * Counts one request for a key; returns the 429's extra headers (`Retry-After`, or none
   * when the simulator leaves it out) when the key is over its limit, else undefined.
   */
  readonly rateLimit: (key: SimulatedApiKey, now: number) => Readonly<Record<string, string>> | undefined;
}

/** The outcome of {@link dispatchApiRequest}. */
export interface ApiResult {
  /** HTTP status code. */
  readonly status: number;
  /** JSON-serialisable body (an error body for non-2xx). */
  readonly body: unknown;
  /** Extra headers (e.g. `Retry-After`). */
  readonly headers: Readonly<Record<string, string>>;
  /** Matched route name or {@link UNKNOWN_ROUTE}. */
  readonly route: string;
  /** Key label for the log: the key's label, `'invalid'` or `'none'`. */
  readonly keyLabel: string;
}

function failure(error: ApiError, route: string, keyLabel: string): ApiResult {
  return { status: error.status, body: errorBody(error.status, error.message), headers: error.headers, route, keyLabel };
}

/**
 * Answers one API request. Order of checks: route (404) → key (401) → rate limit (429) →
 * required scopes (400 `Missing scope: …`) → premium (401) → parameters (400) → ids (404) →
 * empty-store quirks (404) → 200.
 */
export function dispatchApiRequest(request: ApiRequest, env: ApiEnvironment): ApiResult {
  const parts = request.path.split('/').filter((p) => p.length > 0);
  const authorization = request.authorization?.trim() ?? '';
  const bearer = /^Bearer\s+(\S+)$/i.exec(authorization);
  const token = bearer?.[1];
  const resolved = token === undefined ? undefined : env.resolveKey(token);
  const keyLabel = resolved?.label ?? (authorization.length === 0 ? 'none' : 'invalid');

  let route: RouteDef | undefined;
  let params: Record<string, string | undefined> | undefined;
  for (const candidate of ROUTES) {
    if (candidate.method !== request.method) continue;
    params = match(candidate, parts);
    if (params !== undefined) {
      route = candidate;
      break;
    }
  }
  if (route === undefined || params === undefined) {
    return failure(new ApiError(404, `Cannot ${request.method} /req${request.path}`), UNKNOWN_ROUTE, keyLabel);
  }
  try {
    if (resolved === undefined) throw new ApiError(401, authorization.length === 0 ? 'Missing API key' : 'Invalid API key');
    const throttled = env.rateLimit(resolved, request.now);
    if (throttled !== undefined) throw new ApiError(429, THROTTLER_MESSAGE, throttled);
    const missing = route.scopes.filter((s) => !resolved.scopes.includes(s));
    if (missing.length > 0) throw new ApiError(400, `Missing scope: ${missing.join(', ')}`);
    if (route.premium && !resolved.premium) throw new ApiError(401, PREMIUM_MESSAGE);
    const character = env.state.characters.find((c) => c.id === resolved.characterId);
    if (character === undefined) throw new ApiError(401, 'Invalid API key');
    const body = route.handle({ key: resolved, character, params, body: request.body, now: request.now });
    return { status: 200, body, headers: {}, route: route.route, keyLabel };
  } catch (error) {
    if (error instanceof ApiError) return failure(error, route.route, keyLabel);
    return failure(new ApiError(500, error instanceof Error ? error.message : 'Internal server error'), route.route, keyLabel);
  }
}
