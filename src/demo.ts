/**
 * `npm run demo`: starts the built-in upstream simulator with sample data and the
 * gateway pointed at it, then prints the playground URL, the demo keys, a ready `curl`
 * command (the README's) and a ready access token. `PORT`/`HOST` choose the gateway's
 * address as for `npm start`; `SIMULATOR_PORT` (default 4010) the simulator's,
 * `SIMULATOR_RATE_LIMIT` (default `10/60`, like the real API; `off` turns it off) its
 * per-key limit, which the gateway's per-key budget follows unless `UPSTREAM_RATE_LIMIT`
 * is set; a port in use ends it with one line naming the setting. The gateway runs in
 * public-site mode with the demo site key ({@link DEMO_SITE_KEY}) as server key, serves the
 * example company website, keeps its upstream cache in {@link DEMO_CACHE_FILE}, and opens
 * a demo vault ({@link DEMO_VAULT_FILE}, master key in {@link DEMO_VAULT_KEY_FILE}) holding
 * the demo keys, so tokens, webhooks and payments work without any setup.
 */
import 'reflect-metadata';
import { DEFAULT_CONFIG, loadConfig } from './config';
import type { SiteDocumentEncoding } from './config';
import type { RateSetting } from './config/settings-readers';
import { applyHeapGrowth } from './heap-growth';
import { explainPortErrors, runUntilSignal } from './process-lifecycle';
import type { Started } from './process-lifecycle';
import { startGateway } from './server';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { projectRoot } from './project-root';
import {
  DEMO_KEYS,
  DEMO_SITE_KEY,
  FIXTURE_CHARACTERS,
  FIXTURE_IDS,
  MERCHANT_KEY,
  createFixtureState,
  describeRateLimit,
  shopCatalogue,
  startSimulator,
} from './simulator';
import type { Simulator } from './simulator';
import { prepareValue } from './domains/site-documents/site-document.codec';
import { seedWrites } from './domains/site-documents/site-document.store';
import { MasterKeys, RecordMac, Vault, vaultStorage } from './vault';
import { ConsoleAuth, signInLink } from './admin/console-auth';
import { consoleStore } from './admin/console-store';

/**
 * Where the demo keeps its upstream cache across restarts unless `CACHE_FILE` names another
 * file: apart from the real gateway's `.data/upstream-cache`, so that `npm start` against the
 * real API never loads the simulator's sample data (relative to the working directory).
 */
export const DEMO_CACHE_FILE = '.data/demo-upstream-cache';

/**
 * The demo's vault, unless `VAULT_FILE` names another: apart from the real gateway's
 * `.data/vault.json`, whose master key is not the demo's (relative to the working directory).
 */
export const DEMO_VAULT_FILE = '.data/demo-vault.json';

/**
 * The demo vault's master key, unless `VAULT_MASTER_KEY` is set: 32 random bytes in base64,
 * generated at the demo's first start and kept here (mode 0600). Demo only: it guards
 * nothing but the simulator's demo keys.
 */
export const DEMO_VAULT_KEY_FILE = '.data/demo-vault-key';

/** Names of the demo keys in the demo vault (the `--character` of `tokens create` and `webhooks add`). */
const VAULT_NAMES = { premium: 'demo-premium', other: 'demo-other', merchant: 'demo-merchant' } as const;

/** Grants of the access token the demo prints: every field of character 1, subscriptions and payment requests. */
const DEMO_TOKEN_GRANTS = ['read', 'subscribe', 'write:payments'];

/** The subscription the demo prints as a curl command (Server-Sent Events). */
export const DEMO_SUBSCRIPTION =
  'subscription { myAuctionChanged { kind observedAt previousBidAmount auction { ... on MyImportAuction { item bidAmount isLastBidderMe } ... on MyExportAuction { item bidAmount isLastBidderMe } } } }';

/**
 * The nested query the demo prints as a curl command: the README's (`<!-- readme-curl -->`),
 * so the two are one command (test/e2e/entry-points.test.ts compares them). It needs 7
 * upstream requests on the sample data, so a first run fits the simulator's default limit
 * of 10 per key per minute.
 */
export const DEMO_QUERY = `{ factories { name counter { items { item price } } } buildings { label rooms { name tenant { tenantName } } } }`;

/**
 * Puts the shop's catalogue into its option slots as the site document `catalogue`, as
 * setSiteDocument would write it, but straight into the simulator's data (no upstream
 * budget spent at start): the example company site shows it next to the counter prices.
 */
function sameRate(a: RateSetting | null, b: RateSetting | null): boolean {
  return a === b || (a !== null && b !== null && a.requests === b.requests && a.windowSeconds === b.windowSeconds);
}

/** The line of the banner on the gateway's per-key budget. */
function describeBudget(limit: RateSetting | null, own: boolean): string {
  const source = own ? 'UPSTREAM_RATE_LIMIT' : "the simulator's limit; UPSTREAM_RATE_LIMIT sets another";
  return limit === null
    ? `Gateway budget: off (${source}).`
    : `Gateway budget: ${limit.requests} requests per key per ${limit.windowSeconds} s (${source}).`;
}

function seedShopCatalogue(simulator: Simulator, encoding: SiteDocumentEncoding): void {
  const shop = createFixtureState()
    .characters.flatMap((character) => character.companies)
    .find((company) => company.id === FIXTURE_IDS.shop);
  const contents = Array.from({ length: 10 }, (_, i) => {
    const option = shop?.options[String(i + 1)];
    return option ? { title: option.title, data: option.data, lastUpdated: null } : null;
  });
  const value = prepareValue('catalogue', shopCatalogue(), encoding);
  for (const write of seedWrites(contents, value, Date.now()))
    simulator.change({
      kind: 'option',
      factoryId: FIXTURE_IDS.shop,
      slot: write.slot,
      title: write.title,
      data: write.data,
    });
}

/**
 * The demo vault's master key: `VAULT_MASTER_KEY` when set, else the one in
 * {@link DEMO_VAULT_KEY_FILE}, generated there (mode 0600, folder 0700) at the first start.
 */
function demoMasterKey(configured: string | null): string {
  if (configured !== null) return configured;
  if (existsSync(DEMO_VAULT_KEY_FILE)) return readFileSync(DEMO_VAULT_KEY_FILE, 'utf8').trim();
  mkdirSync(dirname(DEMO_VAULT_KEY_FILE), { recursive: true, mode: 0o700 });
  const key = randomBytes(32).toString('base64');
  writeFileSync(DEMO_VAULT_KEY_FILE, `${key}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}

/**
 * Puts the demo keys (with their secrets) into the demo vault under {@link VAULT_NAMES}
 * (again at each start: same names, same ids) and creates an access token over
 * `demo-premium` for a day. Done before the gateway starts, so the token works at once.
 *
 * @returns the new token (printed once, in the banner)
 */
async function seedDemoVault(config: Parameters<typeof vaultStorage>[0], masterKey: string): Promise<string> {
  const opened = vaultStorage(config);
  try {
    const vault = new Vault(opened.storage, MasterKeys.parse(masterKey));
    await vault.addKey(VAULT_NAMES.premium, DEMO_KEYS.premium.key, DEMO_KEYS.premium.secret);
    await vault.addKey(VAULT_NAMES.other, DEMO_KEYS.other.key, DEMO_KEYS.other.secret);
    await vault.addKey(VAULT_NAMES.merchant, MERCHANT_KEY.key, MERCHANT_KEY.secret);
    const created = await vault.createToken({
      characters: [VAULT_NAMES.premium],
      grants: DEMO_TOKEN_GRANTS,
      expiresInMs: 86_400_000,
      origin: null,
      budgetShare: null,
    });
    return created.token;
  } finally {
    await opened.close();
  }
}

/**
 * A one-time console sign-in link (as `statev-gateway console` prints it), after telling the
 * console which companies the demo characters own (for its token grant picker), as adding
 * their keys in the console would.
 */
async function consoleSignIn(
  config: Parameters<typeof consoleStore>[0] & { readonly publicUrl: string | null },
  masterKey: string,
  gatewayUrl: string,
): Promise<string> {
  const store = consoleStore(config);
  try {
    const auth = new ConsoleAuth(store, RecordMac.fromSetting(masterKey));
    const characters = createFixtureState().characters;
    const companiesOf = (id: string): string[] =>
      characters.find((character) => character.id === id)?.companies.map((company) => company.id) ?? [];
    await auth.rememberFactories(VAULT_NAMES.premium, companiesOf(FIXTURE_CHARACTERS.main.id));
    await auth.rememberFactories(VAULT_NAMES.other, companiesOf(FIXTURE_CHARACTERS.other.id));
    await auth.rememberFactories(VAULT_NAMES.merchant, companiesOf(FIXTURE_CHARACTERS.merchant.id));
    const { code } = await auth.issueCode();
    return signInLink({ publicUrl: config.publicUrl ?? gatewayUrl, port: 0 }, code);
  } finally {
    await store.close();
  }
}

async function main(): Promise<Started> {
  const settings = loadConfig();
  applyHeapGrowth(settings.heapGrowingPercent);
  // Live mode: the data changes every few seconds, so subscriptions have something to report.
  const simulator = await explainPortErrors({ name: 'SIMULATOR_PORT', command: 'npm run demo' }, () =>
    startSimulator({
      port: settings.simulatorPort,
      host: '127.0.0.1',
      live: { intervalMs: 5000 },
      rateLimit: settings.simulatorRateLimit ?? 'off',
    }),
  );
  seedShopCatalogue(simulator, settings.siteDocumentEncoding);
  const manifest = join(projectRoot(), 'examples', 'company-site', 'generated', 'persisted-documents.json');
  const publicMode = existsSync(manifest);
  // The gateway paces each key as the simulator limits it (off when the simulator's limit is
  // off), unless UPSTREAM_RATE_LIMIT says otherwise.
  const ownBudget = !sameRate(settings.upstreamRateLimit, DEFAULT_CONFIG.upstreamRateLimit);
  const vaultMasterKey = demoMasterKey(settings.vaultMasterKey);
  const config = {
    ...settings,
    upstreamBaseUrl: simulator.baseUrl,
    upstreamRateLimit: ownBudget ? settings.upstreamRateLimit : (settings.simulatorRateLimit ?? null),
    cacheFile: settings.cacheFile === DEFAULT_CONFIG.cacheFile ? DEMO_CACHE_FILE : settings.cacheFile,
    vaultFile: settings.vaultFile === DEFAULT_CONFIG.vaultFile ? DEMO_VAULT_FILE : settings.vaultFile,
    vaultMasterKey,
    // Public-site mode for the example website: keyless requests may run its trusted
    // documents with the demo site key, held by the server (a budget apart from the demo keys).
    serverApiKey: settings.serverApiKey ?? DEMO_SITE_KEY.key,
    trustedDocumentsPath: publicMode ? manifest : settings.trustedDocumentsPath,
    serveExamples: true,
    // The playground starts with the premium demo key in its Headers tab.
    playgroundApiKey: DEMO_KEYS.premium.key,
  };
  const token = await seedDemoVault(config, vaultMasterKey);
  const gateway = await explainPortErrors({ name: 'PORT', command: 'npm run demo' }, () => startGateway(config));
  // As `npm start` does: the large-text path compiled before a client's first large document.
  gateway.pipeline.warmUp();
  const endpoint = `${gateway.url}/graphql`;
  const body = JSON.stringify({ query: DEMO_QUERY });
  const consoleLink = await consoleSignIn(config, vaultMasterKey, gateway.url);
  const vaultEnv = `VAULT_FILE=${config.vaultFile}${settings.vaultMasterKey === null ? ` VAULT_MASTER_KEY="$(cat ${DEMO_VAULT_KEY_FILE})"` : ''}`;
  console.log(
    [
      '',
      'StateV GraphQL gateway demo',
      `  simulator (upstream): ${simulator.baseUrl} (live: a stock, counter, booking, bid or room change every 5 s)`,
      `  ${describeRateLimit(simulator.rateLimit, 'SIMULATOR_RATE_LIMIT=off npm run demo')}`,
      `  ${describeBudget(config.upstreamRateLimit, ownBudget)}`,
      `  GraphQL endpoint:     ${endpoint}`,
      `  playground:           ${endpoint} (open in a browser; the demo premium key is preset in its Headers tab)`,
      ...(publicMode
        ? [
            `  example company site: ${gateway.url}/examples/company-site/?id=${FIXTURE_IDS.shop} (public-site mode, no key in the browser; its reads use ${DEMO_SITE_KEY.key}, a budget of its own)`,
          ]
        : []),
      '',
      'Demo API keys (Authorization: Bearer <key>):',
      `  premium, every scope:   ${DEMO_KEYS.premium.key}   (secret ${DEMO_KEYS.premium.secret})`,
      `  basic, few scopes:      ${DEMO_KEYS.basic.key}`,
      `  another character:      ${DEMO_KEYS.other.key}`,
      '',
      'Try:',
      `  curl -s ${endpoint} -H 'content-type: application/json' -H 'authorization: Bearer ${DEMO_KEYS.premium.key}' --data '${body}'`,
      'Subscribe (Server-Sent Events; WebSocket at ws://…/graphql, see docs/subscriptions.md):',
      `  curl -N ${gateway.url}/graphql/stream -H 'accept: text/event-stream' -H 'content-type: application/json' -H 'authorization: Bearer ${DEMO_KEYS.premium.key}' --data '${JSON.stringify({ query: DEMO_SUBSCRIPTION })}'`,
      '',
      `Demo vault (demo only: ${config.vaultFile}, master key ${settings.vaultMasterKey === null ? `in ${DEMO_VAULT_KEY_FILE}` : 'from VAULT_MASTER_KEY'}), see docs/access-tokens.md:`,
      `  keys ${VAULT_NAMES.premium}, ${VAULT_NAMES.other}, ${VAULT_NAMES.merchant} (the simulator's demo keys, with their secrets)`,
      `  access token (${VAULT_NAMES.premium}; ${DEMO_TOKEN_GRANTS.join(', ')}; 24 h): ${token}`,
      `  its commands on this vault: ${vaultEnv} npm run cli -- tokens list`,
      '',
      'Console (keys, tokens, budgets, webhooks in the browser; see docs/console.md):',
      `  sign-in link (works once, for 10 minutes): ${consoleLink}`,
      `  a new link: PORT=${new URL(gateway.url).port} ${vaultEnv} npm run cli -- console`,
      '',
      'Ctrl+C stops both.',
    ].join('\n'),
  );
  return {
    stop: async () => {
      await gateway.stop(); // drains first: requests in flight still reach the simulator
      await simulator.close();
    },
    gracePeriodMs: config.shutdownDelayMs + config.shutdownGracePeriodMs,
  };
}

void runUntilSignal(main);
