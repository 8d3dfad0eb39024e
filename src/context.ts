import type { IncomingHttpHeaders } from 'node:http';
import { DEFAULT_CONFIG } from './config';
import type { GatewayConfig } from './config';
import { operationLoaders } from './domains';
import type { DomainServices, GatewayContext } from './domains/gateway-context';
import { ListItemErrors } from './domains/shared/list-item-errors';
import type { UpstreamEconomy } from './economy';
import { UpstreamSession } from './economy';
import { hashedKey, hashKey } from './pipeline/credential';
import type { Credential } from './pipeline/credential';
import type { ServerCredentials } from './pipeline/public-site';
import { GatewayError } from './errors/gateway-error';
import type { ActiveToken, TokenBudgets } from './vault';
import { Owners } from './domains/shared/owners';
import type { KeyPart } from './domains/shared/owners';
import { patienceFromPrefer } from './http/prefer-wait';

export type { GatewayContext } from './domains/gateway-context';

/** The process-wide parts a context is built from. */
export interface GatewayServices {
  /** The shared upstream economy every operation's session is bound to. */
  economy: UpstreamEconomy;
  /** The settings a context reads: the key-hash secret, loaders on or off, option slots, the request cap, the patience cap. */
  config: Pick<GatewayConfig, 'keyHashSecret' | 'loadersEnabled'> &
    Partial<Pick<GatewayConfig, 'optionSlots' | 'maxUpstreamRequests' | 'upstreamPatienceMaxMs' | 'upstreamPatienceMs' | 'siteDocumentMaxBytes' | 'siteDocumentEncoding'>>;
  /** The access tokens' shares of their keys' budgets (`tokens create --budget-share`); absent: not enforced. */
  tokenBudgets?: TokenBudgets;
  /** The domains' process-wide parts (the payment desk), handed to every context. */
  domains?: DomainServices;
}

function singleHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/** True when the request asks for fresh data (`Cache-Control: no-cache` or `Pragma: no-cache`). */
export function wantsNoCache(cacheControl: string | undefined, pragma: string | undefined): boolean {
  return /(^|,)\s*no-cache\s*(,|$)/i.test(cacheControl ?? '') || /no-cache/i.test(pragma ?? '');
}

/**
 * Builds a fresh context for one operation from the credential its transport read (or, in
 * public-site mode, from the server's credentials) and its other HTTP headers (secret,
 * `Cache-Control`, `Prefer`). The key is not read again from the headers, and is hashed
 * once per credential (`hashedKey`). Loaders are created
 * here and nowhere else, so no per-operation value outlives the operation or crosses keys.
 */
export function createContext(
  services: GatewayServices,
  headers: IncomingHttpHeaders | Map<string, string>,
  credential: Credential,
  serverCredentials: ServerCredentials | null = null,
): GatewayContext {
  const get = (name: string): string | undefined => (headers instanceof Map ? headers.get(name) : singleHeader(headers[name]));
  // Public-site mode: a trusted document sent without a key runs with the server's key
  // and secret, never with a secret header from the browser.
  // The key is hashed once per holder (see hashKey): the caller's credential, the server's
  // credentials, or an access token's vault character (its credentials are per request).
  const secretOfHash = services.config.keyHashSecret;
  const key = serverCredentials ? hashKey(serverCredentials.token?.characters[0] ?? serverCredentials, secretOfHash) : hashedKey(credential, secretOfHash);
  const apiKey = key?.apiKey ?? null;
  const secret = serverCredentials ? (serverCredentials.apiSecret ?? undefined) : get('x-api-secret')?.trim();
  const session = new UpstreamSession(
    services.economy,
    apiKey,
    key?.keyId ?? null,
    // An anonymous caller running with the server's key never bypasses the cache: else
    // each `Cache-Control: no-cache` would spend the site's upstream budget.
    !serverCredentials && wantsNoCache(get('cache-control'), get('pragma')),
    // `Prefer: wait=N`: how long this operation waits for upstream budget, up to the cap.
    patienceFromPrefer(get('prefer'), services.config.upstreamPatienceMaxMs ?? DEFAULT_CONFIG.upstreamPatienceMaxMs),
  );
  // The cost estimate bounds the operation before it runs; this bounds what it really sends.
  if (services.config.maxUpstreamRequests !== undefined) session.accounting.requestCap = services.config.maxUpstreamRequests;
  const token = serverCredentials?.token;
  // A token over several characters: one session per key (its budget, cache and cooldowns), sharing the operation's accounting.
  const siblings = token && token.characters.length > 1 ? characterSessions(services, token, session) : null;
  // An access token with --budget-share n starts at most n upstream requests per window of each of its keys' budgets.
  const budgets = services.tokenBudgets;
  if (token?.budgetShare && budgets) {
    const share = token.budgetShare;
    const budgetOf = (keyId: string): string => (siblings ? `${token.id}:${siblings.find((part) => part.session.keyId === keyId)?.characterId ?? keyId}` : token.id);
    const refusal = (waitMs: number): GatewayError =>
      new GatewayError('RATE_LIMITED', `This access token has used its share of ${share} upstream requests per window of its key's budget: try again later.`, { retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)), budgetShare: share });
    if (budgets.replicated) {
      // With Redis: one count for every replica, asked before each flight the operation starts.
      session.accounting.admitShared = async (_endpoint, keyId) => {
        const waitMs = await budgets.takeShared(budgetOf(keyId), share);
        if (waitMs !== null) throw refusal(waitMs);
      };
    } else {
      session.accounting.admit = (_endpoint, keyId) => {
        const waitMs = budgets.take(budgetOf(keyId), share);
        if (waitMs !== null) throw refusal(waitMs);
      };
    }
  }
  const context: GatewayContext = {
    apiKey,
    apiSecretHeader: secret ? secret : null,
    serverCredentials: serverCredentials !== null,
    ...(serverCredentials?.token ? { token: serverCredentials.token } : {}),
    session,
    loaders: operationLoaders(session, { cache: services.config.loadersEnabled }),
    itemErrors: new ListItemErrors(),
    optionSlots: services.config.optionSlots ?? DEFAULT_CONFIG.optionSlots,
    siteDocuments: {
      maxBytes: services.config.siteDocumentMaxBytes ?? DEFAULT_CONFIG.siteDocumentMaxBytes,
      encoding: services.config.siteDocumentEncoding ?? DEFAULT_CONFIG.siteDocumentEncoding,
      patienceMs: session.patienceMs ?? services.config.upstreamPatienceMs ?? DEFAULT_CONFIG.upstreamPatienceMs,
    },
    ...(services.domains ? { domains: services.domains } : {}),
    warnings: new Map(),
  };
  if (siblings) {
    const parts: KeyPart[] = [];
    context.owners = new Owners(parts);
    for (const [index, sibling] of siblings.entries()) {
      const character = { id: sibling.characterId, name: sibling.name };
      // The first key is the operation's own session and loaders; each other key gets its own loaders.
      parts.push({
        character,
        context:
          index === 0
            ? context
            : { ...context, apiKey: sibling.session.apiKey, apiSecretHeader: sibling.apiSecret, session: sibling.session, loaders: operationLoaders(sibling.session, { cache: services.config.loadersEnabled }) },
      });
    }
  }
  return context;
}

/** One session per character of a token over several (the first is the operation's own), with each key's secret. */
function characterSessions(
  services: GatewayServices,
  token: ActiveToken,
  first: UpstreamSession,
): Array<{ characterId: string; name: string; apiSecret: string | null; session: UpstreamSession }> {
  return token.characters.map((character, index) => {
    const key = hashKey(character, services.config.keyHashSecret);
    const session = index === 0 ? first : first.sibling(key.apiKey, key.keyId);
    return { characterId: character.id, name: character.name, apiSecret: character.apiSecret, session };
  });
}
