/**
 * `npm run demo`: starts the built-in upstream simulator with sample data and the
 * gateway pointed at it, then prints the playground URL, the demo keys and a ready
 * `curl` command. `PORT`/`HOST` choose the gateway's address as for `npm start`;
 * `SIMULATOR_PORT` (default 4010) the simulator's, `SIMULATOR_RATE_LIMIT` (default `10/60`,
 * like the real API; `off` turns it off) its per-key limit; a port in use ends it with one
 * line naming the setting. The gateway runs in public-site mode with the premium demo key as
 * server key, serves the example company website and keeps its upstream cache in
 * {@link DEMO_CACHE_FILE}.
 */
import 'reflect-metadata';
import { DEFAULT_CONFIG, loadConfig } from './config';
import type { SiteDocumentEncoding } from './config';
import { applyHeapGrowth } from './heap-growth';
import { explainPortErrors, runUntilSignal } from './process-lifecycle';
import type { Started } from './process-lifecycle';
import { startGateway } from './server';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from './project-root';
import { DEMO_KEYS, FIXTURE_IDS, createFixtureState, describeRateLimit, shopCatalogue, startSimulator } from './simulator';
import type { Simulator } from './simulator';
import { prepareValue } from './domains/site-documents/site-document.codec';
import { seedWrites } from './domains/site-documents/site-document.store';

/**
 * Where the demo keeps its upstream cache across restarts unless `CACHE_FILE` names another
 * file: apart from the real gateway's `.data/upstream-cache`, so that `npm start` against the
 * real API never loads the simulator's sample data (relative to the working directory).
 */
export const DEMO_CACHE_FILE = '.data/demo-upstream-cache';

/** The subscription the demo prints as a curl command (Server-Sent Events). */
export const DEMO_SUBSCRIPTION = 'subscription { myAuctionChanged { kind observedAt previousBidAmount auction { ... on MyImportAuction { item bidAmount isLastBidderMe } ... on MyExportAuction { item bidAmount isLastBidderMe } } } }';

/**
 * The nested query the demo prints as a curl command. It needs 10 upstream requests on the
 * sample data, so a first run fits the simulator's default limit of 10 per key per minute.
 */
export const DEMO_QUERY = `{ factories { id name type counter { items { item price amount } } } buildings { label rooms { name occupied tenant { tenantName } } } }`;

/**
 * Puts the shop's catalogue into its option slots as the site document `catalogue`, as
 * setSiteDocument would write it, but straight into the simulator's data (no upstream
 * budget spent at start): the example company site shows it next to the counter prices.
 */
function seedShopCatalogue(simulator: Simulator, encoding: SiteDocumentEncoding): void {
  const shop = createFixtureState().characters.flatMap((character) => character.companies).find((company) => company.id === FIXTURE_IDS.shop);
  const contents = Array.from({ length: 10 }, (_, i) => {
    const option = shop?.options[String(i + 1)];
    return option ? { title: option.title, data: option.data, lastUpdated: null } : null;
  });
  const value = prepareValue('catalogue', shopCatalogue(), encoding);
  for (const write of seedWrites(contents, value, Date.now())) simulator.change({ kind: 'option', factoryId: FIXTURE_IDS.shop, slot: write.slot, title: write.title, data: write.data });
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
  const config = {
    ...settings,
    upstreamBaseUrl: simulator.baseUrl,
    cacheFile: settings.cacheFile === DEFAULT_CONFIG.cacheFile ? DEMO_CACHE_FILE : settings.cacheFile,
    // Public-site mode for the example website: keyless requests may run its trusted
    // documents with the premium demo key, held by the server.
    serverApiKey: settings.serverApiKey ?? DEMO_KEYS.premium.key,
    trustedDocumentsPath: publicMode ? manifest : settings.trustedDocumentsPath,
    serveExamples: true,
    // The playground starts with the premium demo key in its Headers tab.
    playgroundApiKey: DEMO_KEYS.premium.key,
  };
  const gateway = await explainPortErrors({ name: 'PORT', command: 'npm run demo' }, () => startGateway(config));
  const endpoint = `${gateway.url}/graphql`;
  const body = JSON.stringify({ query: DEMO_QUERY });
  console.log(
    [
      '',
      'StateV GraphQL gateway demo',
      `  simulator (upstream): ${simulator.baseUrl} (live: a stock, counter, booking, bid or room change every 5 s)`,
      `  ${describeRateLimit(simulator.rateLimit, 'SIMULATOR_RATE_LIMIT=off npm run demo')}`,
      `  GraphQL endpoint:     ${endpoint}`,
      `  playground:           ${endpoint} (open in a browser; the demo premium key is preset in its Headers tab)`,
      ...(publicMode
        ? [`  example company site: ${gateway.url}/examples/company-site/?id=${FIXTURE_IDS.shop} (public-site mode, no key in the browser)`]
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
