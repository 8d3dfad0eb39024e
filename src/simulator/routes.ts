/**
 * The simulated API without HTTP: route table, authentication, scope and premium checks.
 * The answers (parameter validation and the per-key rendering of the fixture state) are in
 * handlers.ts, the error bodies in api-errors.ts.
 *
 * `dispatchApiRequest` turns one request (method, path below `/req`, Authorization header,
 * body text) into a status, a JSON body and headers. The HTTP server in `simulator.ts` adds
 * latency, the request log and the transport.
 */
import { ApiError, errorBody, PREMIUM_MESSAGE, THROTTLER_MESSAGE } from './api-errors';
import type { HandlerContext } from './api-errors';
import type { FixtureState, Scope, SimulatedApiKey } from './fixtures';
import {
  buildingBankAccounts,
  buildingDetails,
  buildingSummary,
  buildingTransactions,
  buyLog,
  buyOffers,
  company,
  counter,
  exportAuctions,
  factoryBankAccounts,
  factoryList,
  factoryTransactions,
  importAuctions,
  inventory,
  myExportAuctions,
  myImportAuctions,
  productions,
  readOption,
  rooms,
  sellOffers,
  tenants,
  vehicles,
  writeOption,
} from './handlers';

type Segment =
  | { readonly kind: 'static'; readonly value: string }
  | { readonly kind: 'param'; readonly name: string; readonly optional: boolean };

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

function def(
  method: RouteDef['method'],
  pattern: string,
  scopes: readonly Scope[],
  handle: RouteDef['handle'],
  premium = false,
): RouteDef {
  return {
    method,
    route: `${method} ${pattern.replace(/\?\}/g, '}')}`,
    segments: parsePattern(pattern),
    scopes,
    premium,
    handle,
  };
}

// ---------------------------------------------------------------------------------------------
// Route table
// ---------------------------------------------------------------------------------------------

const ROUTES: readonly RouteDef[] = [
  def('GET', '/factory/list/', ['factory'], factoryList),
  def('GET', '/factory/inventory/{id}', ['factory', 'factory.inventory'], (ctx) =>
    inventory(ctx, company(ctx).inventory, 'Inventory is empty'),
  ),
  def('GET', '/factory/machine/{id}', ['factory', 'factory.inventory'], (ctx) =>
    inventory(ctx, company(ctx).machineStore, 'Machine store is empty'),
  ),
  def('GET', '/factory/counter/{id}', ['factory', 'factory.counter'], counter),
  def('GET', '/factory/productions/{id}', ['factory', 'factory.productions'], productions, true),
  def('GET', '/factory/bankaccounts/{id}', ['factory', 'factory.bankaccount'], factoryBankAccounts, true),
  def(
    'GET',
    '/factory/transactions/{bankId}/{limit?}/{skip?}',
    ['factory', 'factory.bankaccount'],
    factoryTransactions,
    true,
  ),
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
  def(
    'GET',
    '/building/transactions/{bankId}/{limit?}/{skip?}',
    ['building', 'building.bankaccount'],
    buildingTransactions,
    true,
  ),
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
  return {
    status: error.status,
    body: errorBody(error.status, error.message),
    headers: error.headers,
    route,
    keyLabel,
  };
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
    if (resolved === undefined)
      throw new ApiError(401, authorization.length === 0 ? 'Missing API key' : 'Invalid API key');
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
    return failure(
      new ApiError(500, error instanceof Error ? error.message : 'Internal server error'),
      route.route,
      keyLabel,
    );
  }
}
