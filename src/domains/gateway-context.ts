/**
 * What every resolver receives ({@link GatewayContext}) and the per-operation loaders in
 * it. Declared beside the resolvers that read it; `src/context.ts` builds one per
 * operation from the request.
 */
import type { OperationDefinitionNode } from 'graphql';
import type { SiteDocumentEncoding } from '../config';
import type { UpstreamSession } from '../economy';
import type { ListItemErrors } from './shared/list-item-errors';
import type { Loaders } from './shared/loader';
import type { Owners } from './shared/owners';
import type { SubscriptionScope } from './feeds/feed';
import type { ActiveToken } from '../vault';

/**
 * Process-wide parts of the domains (e.g. the payment desk), by domain. Empty here: each
 * domain adds its optional member by declaration merging, so this module names no domain.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by each domain's declaration merging
export interface DomainServices {}

/** What every resolver receives: the caller's credentials, its upstream session and loaders. */
export interface GatewayContext {
  /** The bearer key of the request, or null (introspection works without one). */
  apiKey: string | null;
  /**
   * The secret of the key it runs with, used by writes whose input has no secret: the
   * caller's `X-Api-Secret` header with its own key; the secret the gateway stores with a key
   * it holds (`STATEV_API_SECRET`, the vault's); null for none.
   */
  apiSecret: string | null;
  /**
   * Where the key comes from: the caller's own (`caller`), the site's in public-site mode
   * (`site`), an access token's vault key (`token`); null without a key. With `site` and
   * `token` only the stored secret ({@link apiSecret}) may be used, never one from the input.
   */
  keySource: 'caller' | 'site' | 'token' | null;
  /** The access token the caller sent, once the vault accepted it (its characters, grants, expiry); absent for a key or no key. */
  token?: ActiveToken;
  /** A token over several characters: each key's part of the operation and which part answered which object (see `shared/owners.ts`); absent with one key. */
  owners?: Owners;
  /** The operation's upstream session (the key bound to the shared economy, with accounting). */
  session: UpstreamSession;
  /** Per-operation DataLoaders, by domain (each domain registers its own): each distinct upstream request at most once per operation. */
  loaders: Loaders;
  /** Errors of single list items a fan-out field answered without (see `ListItemErrors`). */
  itemErrors: ListItemErrors;
  /** When the whole-response cache answered: the JSON text of that answer's `data`, as stored (set by `ResponseCacheStore`), so it is not serialized again. */
  responseCacheData?: string;
  /**
   * The identity of the raw HTTP request (hashed key, query, operation name, variables as
   * sent; see `ResponseCacheHits.requestKey`), set by the HTTP layer for a request it may
   * answer from the response cache next time: the response cache links it to the entry it reads.
   */
  responseHitKey?: string;
  /** The length of the result's JSON text, characters, once the result phase has measured it (HTTP): the response cache stores no response over its entry bound. */
  responseTextLength?: number;
  /**
   * Set by the result phase (HTTP) while it serializes a large answer's data in slices:
   * settles when it measured the text (`responseTextLength`) and ran the result steps. The
   * response cache waits for it before it decides to store the answer.
   */
  resultPhaseDone?: Promise<void>;
  /**
   * True when the result is written to a plain HTTP response by the result phase's
   * serializer (set by the HTTP handler): a whole-response cache hit then carries an empty
   * `data` object, its data being only the text in {@link responseCacheData}. Absent for
   * `executeOperation` and the streaming transports, which read the result's objects.
   */
  httpResponse?: boolean;
  /**
   * Over HTTP, when the request pipeline ran the operation's `operation` steps before Apollo
   * (set by the HTTP handler, see `RequestPipeline.prepareAdmitted`): the operation they
   * passed and the variables they kept. Apollo's plugin then runs none of them again.
   */
  passedSteps?: {
    readonly operation: OperationDefinitionNode;
    readonly variables: Record<string, unknown> | undefined;
  };
  /** How many option slots `Factory.options` reads (`OPTION_SLOTS`). */
  optionSlots: number;
  /** Site-document settings: largest value (`SITE_DOCUMENT_MAX_BYTES`), encoding (`SITE_DOCUMENT_ENCODING`), and how long a write may take before it answers and goes on in the background, ms (the operation's patience). */
  siteDocuments: { maxBytes: number; encoding: SiteDocumentEncoding; patienceMs: number };
  /** The domains' process-wide parts (absent in contexts built without them: those features answer that they are off). */
  domains?: DomainServices;
  /** Warnings for `extensions.warnings` (e.g. `WINDOW_OVERRUN` of a payment request's account), by a key that keeps each once. */
  warnings?: Map<string, Record<string, unknown>>;
}

/**
 * The context of a subscription field: {@link GatewayContext} plus the scope the
 * subscription transports set (absent when the operation came over plain HTTP).
 */
export type SubscriptionContext = GatewayContext & { subscription?: SubscriptionScope };

/**
 * True when the operation runs with a key the gateway holds (the site's, an access token's
 * vault key): a write then uses only the secret stored with it ({@link GatewayContext.apiSecret}),
 * never a secret given in its input.
 */
export function keyHeldByGateway(context: Pick<GatewayContext, 'keySource'>): boolean {
  return context.keySource === 'site' || context.keySource === 'token';
}
