/**
 * The catalog of the StateV REST API's endpoints, as the API's published reference describes them.
 *
 * One entry per endpoint: its route pattern (the name used in errors, metrics and
 * logs, never with a key in it), the scopes it needs, whether it is premium-only
 * and which cache kind it belongs to. Schema descriptions and error extensions are
 * derived from these entries, so the documentation and the behaviour cannot drift.
 */

/**
 * Most option slots a company can have: 10 by the reference, 20 for premium keys by one
 * client's notes. `OPTION_SLOTS` (at most this) says how many `Factory.options` reads;
 * invalidation after a write always covers all of them.
 */
export const MAX_OPTION_SLOTS = 20;

/** Groups of endpoints that share a cache lifetime (see docs/configuration.md and docs/fields-to-endpoints.md). */
export type CacheKind = 'lists' | 'details' | 'options' | 'bankAccounts' | 'stock' | 'activity';

/** One upstream endpoint. */
export interface Endpoint {
  /** HTTP method. */
  readonly method: 'GET' | 'POST';
  /** Path pattern below the base URL, with `{name}` placeholders, e.g. `/factory/inventory/{id}`. */
  readonly pattern: string;
  /** `METHOD pattern`, e.g. `GET /factory/inventory/{id}`: the name errors and metrics use. */
  readonly route: string;
  /** Scopes the key must have (all of them). */
  readonly scopes: readonly string[];
  /** Scopes that add fields to the answer but are not required. */
  readonly optionalScopes: readonly string[];
  /** True when the endpoint answers only for premium keys. */
  readonly premium: boolean;
  /** Cache lifetime group (GET only). */
  readonly cacheKind: CacheKind;
}

function endpoint(
  method: Endpoint['method'],
  pattern: string,
  scopes: readonly string[],
  cacheKind: CacheKind,
  extra: { premium?: boolean; optionalScopes?: readonly string[] } = {},
): Endpoint {
  return Object.freeze({
    method,
    pattern,
    route: `${method} ${pattern}`,
    scopes,
    optionalScopes: extra.optionalScopes ?? [],
    premium: extra.premium ?? false,
    cacheKind,
  });
}

/** Every endpoint of the upstream REST API (22 GETs and the one POST). */
export const ENDPOINTS = Object.freeze({
  factoryList: endpoint('GET', '/factory/list/', ['factory'], 'lists', { optionalScopes: ['factory.details'] }),
  factoryInventory: endpoint('GET', '/factory/inventory/{id}', ['factory', 'factory.inventory'], 'stock'),
  factoryMachine: endpoint('GET', '/factory/machine/{id}', ['factory', 'factory.inventory'], 'stock'),
  factoryCounter: endpoint('GET', '/factory/counter/{id}', ['factory', 'factory.counter'], 'stock'),
  factoryProductions: endpoint('GET', '/factory/productions/{id}', ['factory', 'factory.productions'], 'details', {
    premium: true,
  }),
  factoryBankAccounts: endpoint(
    'GET',
    '/factory/bankaccounts/{id}',
    ['factory', 'factory.bankaccount'],
    'bankAccounts',
    { premium: true },
  ),
  factoryTransactions: endpoint(
    'GET',
    '/factory/transactions/{bankId}/{limit}/{skip}',
    ['factory', 'factory.bankaccount'],
    'activity',
    { premium: true },
  ),
  factoryVehicles: endpoint('GET', '/factory/vehicles/{id}', ['factory', 'factory.vehicles'], 'details'),
  factorySellOffers: endpoint('GET', '/factory/marketoffers/sell/{id}', ['factory', 'market'], 'activity'),
  factoryBuyOffers: endpoint('GET', '/factory/marketoffers/buy/{id}', ['factory', 'market'], 'activity'),
  factoryBuyLog: endpoint('GET', '/factory/buyLog/{id}/{limit}/{skip}', ['factory', 'factory.buylog'], 'activity'),
  factoryOption: endpoint('GET', '/factory/options/{id}/{slot}', ['factory', 'factory.options'], 'options'),
  factoryOptionUpdate: endpoint('POST', '/factory/options', ['factory', 'factory.options.edit'], 'options'),
  myImportAuctions: endpoint('GET', '/market/my/auctions/import', ['factory', 'market'], 'activity'),
  myExportAuctions: endpoint('GET', '/market/my/auctions/export', ['factory', 'market'], 'activity'),
  importAuctions: endpoint('GET', '/market/import', ['market'], 'activity', { premium: true }),
  exportAuctions: endpoint('GET', '/market/export', ['market'], 'activity', { premium: true }),
  buildingList: endpoint('GET', '/building/list', ['building'], 'lists'),
  buildingDetails: endpoint('GET', '/building/details/{id}', ['building', 'building.details'], 'details'),
  buildingTenants: endpoint('GET', '/building/tenants/{id}', ['building', 'building.tenants'], 'details', {
    premium: true,
    optionalScopes: ['building.tenants.activity'],
  }),
  buildingRooms: endpoint('GET', '/building/rooms/{id}', ['building', 'building.rooms'], 'details'),
  buildingBankAccounts: endpoint(
    'GET',
    '/building/bankaccounts/{id}',
    ['building', 'building.bankaccount'],
    'bankAccounts',
    { premium: true },
  ),
  buildingTransactions: endpoint(
    'GET',
    '/building/transactions/{bankId}/{limit}/{skip}',
    ['building', 'building.bankaccount'],
    'activity',
    { premium: true },
  ),
});

/** Values for an endpoint's `{name}` placeholders. */
export type PathParams = Readonly<Record<string, string | number>>;

/**
 * Fills an endpoint's placeholders, URL-encoding each value.
 *
 * @throws Error when a placeholder has no value (a programming error, never user input).
 */
export function buildPath(target: Endpoint, params: PathParams = {}): string {
  const parts = patternParts(target.pattern);
  let path = parts[0] ?? '';
  for (let i = 1; i < parts.length; i += 2) {
    const name = parts[i] ?? '';
    const value = params[name];
    if (value === undefined) throw new Error(`Missing path parameter ${name} for ${target.route}`);
    path += encodeURIComponent(String(value)) + (parts[i + 1] ?? '');
  }
  return path;
}

/** Each pattern split once (every read builds a path): literal text at even indices, placeholder names at odd ones. */
const PATTERN_PARTS = new Map<string, readonly string[]>();

/** {@link placeholderNames} of each endpoint asked about. */
const PLACEHOLDERS = new WeakMap<Endpoint, readonly string[]>();

/** The names of an endpoint's `{name}` placeholders, in pattern order (`['id', 'slot']`); kept per endpoint. */
export function placeholderNames(target: Endpoint): readonly string[] {
  let names = PLACEHOLDERS.get(target);
  if (names === undefined) {
    names = patternParts(target.pattern).filter((_, i) => i % 2 === 1);
    PLACEHOLDERS.set(target, names);
  }
  return names;
}

function patternParts(pattern: string): readonly string[] {
  let parts = PATTERN_PARTS.get(pattern);
  if (parts === undefined) {
    parts = pattern.split(/\{(\w+)\}/);
    PATTERN_PARTS.set(pattern, parts);
  }
  return parts;
}

/**
 * The standard description suffix of a field backed by an endpoint: source, scopes, premium.
 * Used in every GraphQL description so `schema.graphql` tells where each field comes from.
 */
export function describeSource(target: Endpoint): string {
  const optional = target.optionalScopes.length > 0 ? ` (optional: ${target.optionalScopes.join(', ')})` : '';
  const premium = target.premium ? ' Premium only.' : ' Not premium-only.';
  return `Source: ${target.route}. Scopes: ${target.scopes.join(', ')}${optional}.${premium}`;
}
