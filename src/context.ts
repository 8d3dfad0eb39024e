import type { IncomingHttpHeaders } from 'node:http';
import { DEFAULT_CONFIG } from './config';
import type { GatewayConfig } from './config';
import { operationLoaders } from './domains';
import type { DomainServices, GatewayContext } from './domains/gateway-context';
import { ListItemErrors } from './domains/shared/list-item-errors';
import type { UpstreamEconomy } from './economy';
import { OperationAccounting, UpstreamSession } from './economy';
import type { HitContext } from './pipeline/http-result-phase';
import type { CharacterKey, KeyInUse } from './pipeline/key-in-use';
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
    Partial<
      Pick<
        GatewayConfig,
        | 'optionSlots'
        | 'maxUpstreamRequests'
        | 'upstreamPatienceMaxMs'
        | 'upstreamPatienceMs'
        | 'siteDocumentMaxBytes'
        | 'siteDocumentEncoding'
      >
    >;
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
  if (cacheControl === undefined && pragma === undefined) return false;
  return /(^|,)\s*no-cache\s*(,|$)/i.test(cacheControl ?? '') || /no-cache/i.test(pragma ?? '');
}

/**
 * Builds a fresh context for one operation from the key the request steps resolved (the
 * caller's, the site's in public-site mode, an access token's: see `key-in-use.ts`, hashed
 * there once) and its other HTTP headers (`X-Api-Secret` with the caller's own key,
 * `Cache-Control`, `Prefer`). The key is neither read again from the headers nor hashed
 * again here. Loaders are created here and nowhere else, so no per-operation value
 * outlives the operation or crosses keys.
 */
export function createContext(
  services: GatewayServices,
  headers: IncomingHttpHeaders | Map<string, string>,
  key: KeyInUse | null,
): GatewayContext {
  const get = (name: string): string | undefined =>
    headers instanceof Map ? headers.get(name) : singleHeader(headers[name]);
  // A key the gateway holds (the site's, a vault's) runs with the secret stored with it,
  // never with a secret header from the browser.
  const held = key !== null && key.source !== 'caller';
  const apiSecret = held ? key.storedSecret : get('x-api-secret')?.trim() || null;
  const session = new UpstreamSession(
    services.economy,
    key?.key.apiKey ?? null,
    key?.key.keyId ?? null,
    // A key the gateway holds never bypasses the cache: else each `Cache-Control: no-cache`
    // of an anonymous caller (or a token's) would spend the site's (the vault key's) upstream budget.
    !held && wantsNoCache(get('cache-control'), get('pragma')),
    // `Prefer: wait=N`: how long this operation waits for upstream budget, up to the cap.
    patienceFromPrefer(get('prefer'), services.config.upstreamPatienceMaxMs ?? DEFAULT_CONFIG.upstreamPatienceMaxMs),
  );
  // The cost estimate bounds the operation before it runs; this bounds what it really sends.
  if (services.config.maxUpstreamRequests !== undefined)
    session.accounting.requestCap = services.config.maxUpstreamRequests;
  const token = key?.source === 'token' ? key : null;
  // A token over several characters: one session per key (its budget, cache and cooldowns), sharing the operation's accounting.
  const siblings =
    token && token.characters.length > 1
      ? token.characters.map((part, index) => ({
          ...part,
          session: index === 0 ? session : session.sibling(part.key.apiKey, part.key.keyId),
        }))
      : null;
  // An access token with --budget-share n starts at most n upstream requests per window of each of its keys' budgets.
  if (token) shareBudget(services.tokenBudgets, token.token, session, siblings);
  const context: GatewayContext = {
    apiKey: key?.key.apiKey ?? null,
    apiSecret,
    keySource: key?.source ?? null,
    ...(token ? { token: token.token } : {}),
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
      const character = { id: sibling.character.id, name: sibling.character.name };
      // The first key is the operation's own session and loaders; each other key gets its own loaders.
      parts.push({
        character,
        context:
          index === 0
            ? context
            : {
                ...context,
                apiKey: sibling.key.apiKey,
                apiSecret: sibling.character.apiSecret,
                session: sibling.session,
                loaders: operationLoaders(sibling.session, { cache: services.config.loadersEnabled }),
              },
      });
    }
  }
  return context;
}

/** Holds a token with `--budget-share n` to n upstream requests per window of each of its keys' budgets (not enforced without `budgets`). */
/** The list-item errors of a hit answered before Apollo: none (nothing executes). */
const NO_ITEM_ERRORS: HitContext['itemErrors'] = Object.freeze({ size: 0, formatted: () => [] });

/**
 * The context of a response-cache hit answered before Apollo (src/web/cached-answers.ts):
 * what {@link createContext} would give its result phase (the key and secret to redact,
 * the token, a fresh accounting, no item errors or warnings), without the session,
 * loaders and budget an execution needs.
 *
 * @param headers - the request's headers (`X-Api-Secret` of a caller's own key)
 * @param key - the key the request runs with, as the request steps resolved it
 */
export function createHitContext(headers: IncomingHttpHeaders, key: KeyInUse): HitContext {
  const held = key.source !== 'caller';
  return {
    apiKey: key.key.apiKey,
    apiSecret: held ? key.storedSecret : singleHeader(headers['x-api-secret'])?.trim() || null,
    ...(key.source === 'token' ? { token: key.token } : {}),
    session: { accounting: new OperationAccounting(), keyId: key.key.keyId },
    itemErrors: NO_ITEM_ERRORS,
  };
}

function shareBudget(
  budgets: TokenBudgets | undefined,
  token: ActiveToken,
  session: UpstreamSession,
  siblings: ReadonlyArray<CharacterKey & { session: UpstreamSession }> | null,
): void {
  const share = token.budgetShare;
  if (!share || !budgets) return;
  const budgetOf = (keyId: string): string =>
    siblings ? `${token.id}:${siblings.find((part) => part.session.keyId === keyId)?.character.id ?? keyId}` : token.id;
  const refusal = (waitMs: number): GatewayError =>
    new GatewayError(
      'RATE_LIMITED',
      `This access token has used its share of ${share} upstream requests per window of its key's budget: try again later.`,
      { retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)), budgetShare: share },
    );
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
