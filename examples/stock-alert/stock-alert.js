/* global fetch */
/* eslint-disable @typescript-eslint/no-require-imports -- a plain CommonJS script, runnable with node as it is */
'use strict';
/**
 * stock-alert: watches a company store through the gateway's `inventoryChanged`
 * subscription (graphql-ws over WebSocket) and posts a message to a Discord-style
 * webhook whenever an item falls below a threshold.
 *
 *   GATEWAY_URL=ws://127.0.0.1:4000/graphql STATEV_API_KEY=demo-premium-key \
 *   FACTORY_ID=64f1c2a9e4b0a1d2c3f40001 THRESHOLD=395 WEBHOOK_URL=https://discord.com/api/webhooks/… \
 *   node examples/stock-alert/stock-alert.js
 *
 * GATEWAY_TOKEN=svg_… (an access token with factory:<id>, read:Factory.inventory and
 * subscribe) may stand in for STATEV_API_KEY: the bot then never holds the key.
 * Optional: STORE=MACHINE for the machine store. Stops on Ctrl+C. See README.md.
 */
const { createClient } = require('graphql-ws');
const WebSocket = require('ws');

/** The subscription this script sends: only what the message needs. */
const SUBSCRIPTION = `subscription StockAlert($factoryId: ID!, $store: InventoryKind!) {
  inventoryChanged(factoryId: $factoryId, store: $store) {
    observedAt
    changes { item before after }
  }
}`;

/**
 * The items of one event that fell below the threshold: at or above it before, below it now.
 *
 * @param {{changes: Array<{item: string, before: number, after: number}>}} change
 * @param {number} threshold
 */
function fallenBelow(change, threshold) {
  return change.changes.filter((entry) => entry.before >= threshold && entry.after < threshold);
}

/** The webhook message (Discord's `content`, at most 2000 characters). */
function message(items, threshold, observedAt) {
  const lines = items.map((entry) => `- **${entry.item}**: ${entry.after} left (was ${entry.before})`);
  return `Stock below ${threshold} (${observedAt}):\n${lines.join('\n')}`.slice(0, 2000);
}

/** POSTs `{content, username}` to the webhook; throws on a non-2xx answer. */
async function postWebhook(url, content) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'StateV stock alert', content }),
  });
  if (!response.ok) throw new Error(`webhook answered ${response.status}`);
}

/**
 * Starts watching. Resolves to `{stop}`; `onAlert(items)` is told after each posted
 * alert and `onError(error)` about failures (a failed webhook post does not stop it).
 *
 * `apiKey` is what goes after `Bearer`: a StateV API key or a gateway access token.
 *
 * @param {{gatewayUrl: string, apiKey: string, factoryId: string, store?: 'STORE'|'MACHINE', threshold: number,
 *          webhookUrl: string, onAlert?: (items: unknown[]) => void, onError?: (error: unknown) => void}} options
 */
function startStockAlert(options) {
  const onError = options.onError ?? ((error) => console.error(error));
  const client = createClient({
    url: options.gatewayUrl,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${options.apiKey}` },
    retryAttempts: Infinity, // the gateway restarting is not the end of the watch
  });
  const unsubscribe = client.subscribe(
    { query: SUBSCRIPTION, variables: { factoryId: options.factoryId, store: options.store ?? 'STORE' } },
    {
      next(result) {
        if (result.errors) {
          onError(
            new Error(
              result.errors.map((error) => `${error.extensions?.code ?? 'ERROR'}: ${error.message}`).join('; '),
            ),
          );
          return;
        }
        const change = result.data?.inventoryChanged;
        const items = change ? fallenBelow(change, options.threshold) : [];
        if (items.length === 0) return;
        postWebhook(options.webhookUrl, message(items, options.threshold, change.observedAt)).then(
          () => options.onAlert?.(items),
          onError,
        );
      },
      error: onError,
      complete: () => undefined,
    },
  );
  return {
    async stop() {
      unsubscribe();
      await client.dispose();
    },
  };
}

module.exports = { startStockAlert, fallenBelow, SUBSCRIPTION };

if (require.main === module) {
  const env = process.env;
  const missing = ['FACTORY_ID', 'THRESHOLD', 'WEBHOOK_URL'].filter((name) => !env[name]);
  if (!env.GATEWAY_TOKEN && !env.STATEV_API_KEY) missing.unshift('GATEWAY_TOKEN (or STATEV_API_KEY)');
  if (missing.length > 0) {
    console.error(`Set ${missing.join(', ')} (see examples/stock-alert/README.md).`);
    process.exit(2);
  }
  const threshold = Number(env.THRESHOLD);
  if (!Number.isFinite(threshold)) {
    console.error(`THRESHOLD must be a number, got "${env.THRESHOLD}"`);
    process.exit(2);
  }
  const watch = startStockAlert({
    gatewayUrl: env.GATEWAY_URL || 'ws://127.0.0.1:4000/graphql',
    apiKey: env.GATEWAY_TOKEN || env.STATEV_API_KEY,
    factoryId: env.FACTORY_ID,
    store: env.STORE === 'MACHINE' ? 'MACHINE' : 'STORE',
    threshold,
    webhookUrl: env.WEBHOOK_URL,
    onAlert: (items) => console.log(`alert posted: ${items.map((entry) => `${entry.item} ${entry.after}`).join(', ')}`),
  });
  console.log(`watching ${env.FACTORY_ID} for items below ${threshold}…`);
  process.once('SIGINT', () => void watch.stop().then(() => process.exit(0)));
}
