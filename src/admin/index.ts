/**
 * The administration graph and the console's sign-in (see docs/console.md): started
 * beside the gateway when it has a vault (`VAULT_MASTER_KEY`), served by the router at
 * `/admin/graphql` and `/console/`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApolloServer } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config';
import type { UpstreamEconomy } from '../economy';
import type { PaymentStore } from '../domains/payments/payment-request.store';
import type { AlertOutbox } from '../alerts/alert-outbox';
import type { GatewayAlerts } from '../alerts';
import { formatError } from '../errors/format-error';
import { LiveVault, RecordMac, vaultStorage } from '../vault';
import { adminRoutes } from './admin-http';
import { buildAdminSchema } from './admin-schema';
import type { AdminContext } from './admin-schema';
import { AdminService } from './admin-service';
import { SAMPLE_EVERY_MS } from './budget-history';
import { loadConsoleAssets } from './console-assets';
import { ConsoleAuth } from './console-auth';
import { consoleStore } from './console-store';

/** The administration routes of a running gateway. */
export interface AdminGateway {
  /** Answers `/admin/graphql` and `/console/…` (resolves true), or resolves false for any other path. */
  handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean>;
  /** Stops the Apollo server, the vault watch and the store's connections. */
  close(): Promise<void>;
}

/** What {@link startAdmin} needs of the gateway. */
export interface AdminGatewayParts {
  /** The economy (budgets; `addVaultKey`'s key check). */
  readonly economy: UpstreamEconomy;
  /** The payment store (the webhook outbox). */
  readonly payments: PaymentStore;
  /** The alerts' outbox (`deliveries` lists its deliveries, `redeliver` sends one again), when there is one. */
  readonly outbox?: AlertOutbox | null;
  /** The gateway's logger: one line per administration operation (actor, operation, error codes; never variables). */
  readonly logger: Logger;
  /** The gateway's alert rules, when watched (an alert's `lastFiredAt`). */
  readonly alerts?: GatewayAlerts | null;
  /** The upstream-answer cache's lookups since the start (the console's hit ratio). */
  readonly cacheOutcomes?: () => { readonly hit: number; readonly miss: number; readonly stale: number };
  /** The public graph's view of the vault: reloaded after `siteDocumentEditor` so that its token works at once here. */
  readonly publicVault?: { reload(): Promise<void> } | null;
}

/**
 * Starts the administration graph, or returns null when the gateway has no vault.
 *
 * @throws when the vault does not open with `VAULT_MASTER_KEY`
 */
export async function startAdmin(
  config: Pick<
    GatewayConfig,
    | 'vaultMasterKey'
    | 'vaultFile'
    | 'redisUrl'
    | 'redisPrefix'
    | 'keyHashSecret'
    | 'publicUrl'
    | 'maxBodyBytes'
    | 'upstreamRateLimit'
    | 'tokenMaxLifetimeDays'
    | 'webhookAllowHosts'
  >,
  parts: AdminGatewayParts,
): Promise<AdminGateway | null> {
  const masterKey = config.vaultMasterKey;
  if (masterKey === null) return null;
  const opened = vaultStorage(config);
  const store = consoleStore(config);
  const logger = parts.logger.child({ graph: 'admin' });
  try {
    const tokens = await LiveVault.start(opened.storage, masterKey, (error) =>
      logger.error(
        { error: error instanceof Error ? error.message : String(error) },
        'The vault changed but does not open.',
      ),
    );
    const auth = new ConsoleAuth(store, RecordMac.fromSetting(masterKey));
    const admin = new AdminService({
      storage: opened.storage,
      masterKey,
      keyHashSecret: config.keyHashSecret,
      rateLimit: config.upstreamRateLimit,
      tokenMaxLifetimeDays: config.tokenMaxLifetimeDays,
      economy: parts.economy,
      payments: parts.payments,
      alerts: parts.outbox ?? undefined,
      auth,
      allowHosts: config.webhookAllowHosts,
      alertWatcher: parts.alerts?.watcher ?? null,
      cacheOutcomes: parts.cacheOutcomes,
      tokensChanged: parts.publicVault ? () => parts.publicVault?.reload() ?? Promise.resolve() : undefined,
    });
    // The overview's last hour: one sample a minute, in memory (no upstream request).
    const sampling = setInterval(() => void admin.sampleBudgets().catch(() => undefined), SAMPLE_EVERY_MS).unref();
    const apollo = new ApolloServer<AdminContext>({
      schema: await buildAdminSchema(),
      introspection: true,
      includeStacktraceInErrorResponses: false,
      stopOnTerminationSignals: false,
      formatError,
      logger,
      plugins: [
        ApolloServerPluginCacheControlDisabled(),
        ApolloServerPluginLandingPageDisabled(),
        {
          // One line per operation: who, which operation, which error codes (never variables: they may hold a key).
          requestDidStart: async () => ({
            willSendResponse: async ({ contextValue, operationName, errors }) => {
              logger.info(
                {
                  actor: contextValue.actor,
                  operation: operationName ?? null,
                  errorCodes: (errors ?? []).map((error) => String(error.extensions.code ?? 'INTERNAL_SERVER_ERROR')),
                },
                'admin operation',
              );
            },
          }),
        },
      ],
    });
    await apollo.start();
    const handle = adminRoutes({
      apollo,
      admin,
      auth,
      tokens,
      publicUrl: config.publicUrl,
      maxBodyBytes: config.maxBodyBytes,
      assets: loadConsoleAssets(),
    });
    return {
      handle,
      close: async () => {
        clearInterval(sampling);
        await apollo.stop();
        await tokens.close();
        await store.close();
        await opened.close();
      },
    };
  } catch (error) {
    await store.close();
    await opened.close();
    throw error;
  }
}

/**
 * The administration routes of a gateway without a vault: `/admin/graphql` and `/console/…`
 * answer 404 saying that they need `VAULT_MASTER_KEY`.
 */
export function adminUnavailable(): AdminGateway {
  const message = 'The administration graph and the console need a vault: set VAULT_MASTER_KEY (see docs/console.md).';
  return {
    handle: async (_req, res, path) => {
      if (path !== '/admin/graphql' && path !== '/console' && !path.startsWith('/console/')) return false;
      const text = JSON.stringify({ errors: [{ message, extensions: { code: 'NOT_FOUND' } }] });
      res.writeHead(404, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': String(Buffer.byteLength(text)),
      });
      res.end(text);
      return true;
    },
    close: async () => undefined,
  };
}
