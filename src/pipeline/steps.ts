/**
 * The request checks of every transport, in the order they run: THE list. HTTP (GET and
 * POST), graphql-ws and graphql-sse all run these steps, in this order, through
 * {@link RequestPipeline} (src/pipeline/pipeline.ts); nothing else checks a request.
 *
 * A step has a phase, and the phases run in this order:
 *
 * - `request`: before the document is parsed (the key, sizes, trusted documents);
 * - `parse`: the document is parsed, at most `MAX_DOCUMENT_TOKENS` tokens;
 * - `validate`: graphql-js validation rules, run with graphql-js's own (`specifiedRules`);
 *   a check that walks the document is a rule here, so Apollo's document store skips it
 *   for a document it already validated;
 * - `operation`: once the operation and its variables are known (bounds and cost depend
 *   on the variables, so they cannot be validation rules, which see the document only);
 * - `result`: on each result before it is sent (on HTTP, graphql-ws and graphql-sse, each
 *   subscription event, and each live query's result): the one entry `result` stands for
 *   the result phase, whose steps are the ordered list `RESULT_STEPS` of result-steps.ts
 *   (list-item errors, extensions.upstream, error formatting, redaction, response size,
 *   the operation's report).
 *
 * Over HTTP, Apollo Server runs the `parse`, `validate` and `operation` phases (its
 * `parseOptions`, `validationRules` and one plugin, all built from this list); over
 * graphql-ws and graphql-sse the pipeline runs them itself. A new check is one entry
 * here, in its place.
 */
import { isLiveQueryOperationDefinitionNode } from '@n1ru4l/graphql-live-query';
import { getVariableValues, GraphQLError, OperationTypeNode, validate } from 'graphql';
import type { DocumentNode, GraphQLSchema, OperationDefinitionNode, ValidationRule } from 'graphql';
import type { ComplexityEstimator } from 'graphql-query-complexity';
import type { GatewayConfig } from '../config';
import { GatewayError } from '../errors/gateway-error';
import { checkOperationBounds } from '../field-rules/bounds';
import { depthLimitRule } from '../graph/validation/depth.rule';
import { checkRequestShape } from '../graph/validation/document-limits';
import { introspectionCostRule, noIntrospectionRule } from '../graph/validation/introspection.rule';
import { declaredVariables } from '../graph/validation/operation-memo';
import type { OperationMemo } from '../graph/validation/operation-memo';
import { costError, costMemoHash, estimatorsFor, measureCost } from '../field-rules/cost';
import { TOKEN_REFUSALS } from '../vault';
import type { ActiveToken, TokenRefusal, TokenResolver } from '../vault';
import { grantsRule } from '../graph/validation/grants.rule';
import type { Credential, KeyHolder } from './credential';
import type { GraphQLRequestInput, PublicSite, RequestParameters, ServerCredentials } from './public-site';

/** The transports that run the pipeline. */
export type Transport = 'http' | 'graphql-ws' | 'graphql-sse';

/** The settings the steps read. */
export type PipelineSettings = Pick<
  GatewayConfig,
  'maxDepth' | 'maxUpstreamRequests' | 'costAssumptions' | 'optionSlots' | 'introspection' | 'maxVariablesBytes' | 'maxResponseBytes'
>;

/** What the steps share, built once per gateway by {@link RequestPipeline}. */
export interface StepEnvironment {
  /** The gateway's schema. */
  readonly schema: GraphQLSchema;
  /** The public-site policy (trusted documents, the server's key), built once. */
  readonly publicSite: PublicSite;
  /** The settings. */
  readonly settings: PipelineSettings;
  /** Remembered bounds results ("within bounds" only), per distinct request. */
  readonly boundsMemo: OperationMemo<GraphQLError | null>;
  /** Remembered costs, per distinct request. */
  readonly costMemo: OperationMemo<number | null>;
  /** The upstream-cost estimator of the schema's `@UpstreamCost` declarations. */
  readonly costEstimators: ComplexityEstimator[];
  /** Looks access tokens up in the vault (`NO_VAULT` without `VAULT_MASTER_KEY`). */
  readonly tokens: TokenResolver;
  /** Remembered grants results ("allowed" only), per token and distinct request: hashed keys, bounded in bytes. */
  readonly grantsMemo: OperationMemo<GraphQLError | null>;
}

/** A request the pipeline refuses before execution: one error, and the HTTP status it is answered with over HTTP. */
export interface Refusal {
  /** The `extensions.code`. */
  readonly code: string;
  /** A sentence the client developer can act on. */
  readonly message: string;
  /** HTTP status over HTTP (400, 401, 413 or 429). */
  readonly status: number;
  /** Extra HTTP headers over HTTP (e.g. `WWW-Authenticate`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Further extensions (e.g. `limit`, `setting`). */
  readonly extensions?: Readonly<Record<string, unknown>>;
}

/** One request during the `request` phase. Steps may replace `parameters` and `serverCredentials`. */
export interface RequestState {
  /** The transport that brought it. */
  readonly transport: Transport;
  /** The request: a POST body or subscribe payload, or a GET query string; null for an HTTP body that is not an object (Apollo explains). */
  readonly input: GraphQLRequestInput | null;
  /** The caller's key as sent (see `readCredential`). */
  readonly credential: Credential;
  /** What runs: the body and query string, with a trusted document's text in place of its hash once `public-site` ran. */
  parameters: RequestParameters;
  /** The server's key and secret when a keyless request runs a trusted document (public-site mode), else null. */
  serverCredentials: ServerCredentials | null;
  /**
   * Streaming transports only: refuses a subscription over the caller's subscription
   * limits (per connection, per key) before anything parses it, or returns null.
   * `key` holds the key it would run with (null: none; hashed with `hashKey`); `live` is true for a document that
   * marks a query `@live` and never says `subscription` (a subscriber of a live query
   * already running takes no place of the key, so only the transport knows its limits).
   */
  readonly admitSubscription?: (key: KeyHolder | null, live: boolean) => Refusal | null;
}

/** One operation during the `operation` phase. Steps may replace `variables`. */
export interface OperationState {
  /** The transport that brought it. */
  readonly transport: Transport;
  /** The parsed, validated document. */
  readonly document: DocumentNode;
  /** The operation that runs. */
  readonly operation: OperationDefinitionNode;
  /** The request's variables (after `operation-shape`: only those the operation declares). */
  variables: Record<string, unknown> | undefined;
  /** sha256 of the document text (Apollo's `queryHash`), when known: the bounds and cost results are remembered by it. */
  readonly queryHash?: string;
  /** The access token it runs with (after the `token` step accepted it), else absent: the `grants` step checks its grants. */
  readonly token?: ActiveToken;
}

/** A step of the `request` phase: a refusal, or null to go on. */
interface RequestStep<N extends string> {
  /** The step's name (metrics, tests, docs). */
  readonly name: N;
  /** Always `request`. */
  readonly phase: 'request';
  /** Checks (and may update) the request: a refusal, or null to go on. Never throws for bad input. */
  run(state: RequestState, env: StepEnvironment): Refusal | null;
}

/** The `parse` step (its limit is `MAX_DOCUMENT_TOKENS`). */
interface ParseStep<N extends string> {
  /** The step's name. */
  readonly name: N;
  /** Always `parse`. */
  readonly phase: 'parse';
}

/** A step of the `validate` phase: graphql-js validation rules. */
interface ValidateStep<N extends string> {
  /** The step's name. */
  readonly name: N;
  /** Always `validate`. */
  readonly phase: 'validate';
  /** The step's graphql-js validation rules, built once per pipeline. */
  rules(env: StepEnvironment): ValidationRule[];
}

/** A step of the `operation` phase: an error (a `GatewayError` with its HTTP status), or null to go on. */
interface OperationStep<N extends string> {
  /** The step's name. */
  readonly name: N;
  /** Always `operation`. */
  readonly phase: 'operation';
  /** Checks (and may update) the operation: the error that refuses it (with `extensions.http` for HTTP), or null to go on. */
  run(state: OperationState, env: StepEnvironment): GraphQLError | null;
}

/** The `result` phase: its steps are `RESULT_STEPS` (result-steps.ts), run on each result. */
interface ResultStep<N extends string> {
  /** The step's name. */
  readonly name: N;
  /** Always `result`. */
  readonly phase: 'result';
}

/** Any step. */
export type Step<N extends string = string> = RequestStep<N> | ParseStep<N> | ValidateStep<N> | OperationStep<N> | ResultStep<N>;

/** The phases, in the order they run. */
export const PHASES = ['request', 'parse', 'validate', 'operation', 'result'] as const;

/** The refusal of a key that is not `Bearer <token>`, by transport (HTTP 401 with `WWW-Authenticate: Bearer`). */
const MALFORMED_KEY: Readonly<Record<'http' | 'streaming', Refusal>> = {
  http: {
    code: 'UNAUTHENTICATED',
    message:
      'The Authorization header is not "Bearer <token>": send the word Bearer, one space and your StateV API key (no spaces or < > in it), e.g. "Authorization: Bearer abc123". Leave the header out to send no key.',
    status: 401,
    headers: { 'www-authenticate': 'Bearer' },
  },
  streaming: {
    code: 'UNAUTHENTICATED',
    message: 'The authorization value is not "Bearer <API key>": send connectionParams {"authorization": "Bearer <key>"} (WebSocket) or the Authorization header (SSE).',
    status: 401,
  },
};

/** A name for each parsed document without a query hash (the streaming transports'), for the grants memo; forgotten with the document. */
const documentNames = new WeakMap<DocumentNode, string>();
let documentsNamed = 0;

/** The document's identity in a memo key: its query hash, else a name of its own (a parsed document object is reused for one text by Apollo's document store). */
function documentIdentity(state: OperationState): string {
  if (state.queryHash !== undefined) return state.queryHash;
  let name = documentNames.get(state.document);
  if (name === undefined) documentNames.set(state.document, (name = `document:${(documentsNamed += 1)}`));
  return name;
}

/** The refusal of each refused token, by reason (HTTP 401 with `WWW-Authenticate: Bearer error="invalid_token"`), built once. */
const TOKEN_REFUSED = Object.fromEntries(
  (Object.keys(TOKEN_REFUSALS) as TokenRefusal[]).map((reason): [TokenRefusal, Refusal] => [
    reason,
    { code: 'UNAUTHENTICATED', message: TOKEN_REFUSALS[reason], status: 401, headers: { 'www-authenticate': 'Bearer error="invalid_token"' }, extensions: { reason } },
  ]),
) as Readonly<Record<TokenRefusal, Refusal>>;

/** The query text of a request's parameters, or null. */
function queryText(state: RequestState): string | null {
  const { body, search } = state.parameters;
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const query = (body as Record<string, unknown>).query;
    return typeof query === 'string' ? query : null;
  }
  return search === '' ? null : new URLSearchParams(search).get('query');
}

/**
 * A document that may hold a subscription or a live query: its text has the keyword or
 * the `@live` directive (cheap; the parser decides later).
 */
export const SUBSCRIPTION_KEYWORD = /\bsubscription\b|@live\b/;

/** A document that says `subscription` (else, matching {@link SUBSCRIPTION_KEYWORD}, it is a live query). */
const SUBSCRIPTION_WORD = /\bsubscription\b/;

/**
 * The request checks, in order. The order is this array's: the pipeline refuses to
 * start when a step's phase comes before the previous step's (see {@link PHASES}).
 */
export const STEPS = [
  {
    // The key, read once (see credential.ts): a value that is set but is not
    // `Bearer <token>` is refused, never run as "no key".
    name: 'key',
    phase: 'request',
    run: (state) => (state.credential.kind !== 'malformed' ? null : MALFORMED_KEY[state.transport === 'http' ? 'http' : 'streaming']),
  },
  {
    // Sizes before anything parses or walks the request: variables over
    // MAX_VARIABLES_BYTES (413) or nested too deep, a document nested too deep (400).
    name: 'document-size',
    phase: 'request',
    run: ({ input }, env) => {
      if (!input) return null;
      const query = input.kind === 'post' ? input.body.query : input.params.get('query');
      const variables = input.kind === 'post' ? input.body.variables : (input.params.get('variables') ?? undefined);
      return checkRequestShape(query, variables, { maxVariablesBytes: env.settings.maxVariablesBytes });
    },
  },
  {
    // Persisted (trusted) documents and public-site mode: a hash is replaced by its
    // document's text; a keyless request runs a trusted document with the server's key,
    // introspection only, or nothing (FORBIDDEN_DOCUMENT, PERSISTED_QUERY_NOT_FOUND).
    // Its introspection-only test walks a keyless document, but it is not a validation
    // rule: it decides whose key the request runs with, and Apollo builds the context
    // (with that key) before it parses.
    name: 'public-site',
    phase: 'request',
    run: (state, env) => {
      if (!state.input) return null;
      const decision = env.publicSite.decide(state.input, state.credential.kind === 'key' || state.credential.kind === 'token');
      if (decision.kind === 'refuse') return { code: decision.code, message: decision.message, status: 400 };
      state.parameters = decision.parameters;
      state.serverCredentials = decision.credentials;
      return null;
    },
  },
  {
    // An access token (`Bearer svg_…`): looked up in the vault (an in-memory map, kept
    // current within 1 s of a change); expired, revoked, unknown or malformed is refused
    // (UNAUTHENTICATED, extensions.reason saying which). A usable one runs with its
    // character's key and secret from the vault, as public-site mode runs with the server's.
    name: 'token',
    phase: 'request',
    run: (state, env) => {
      if (state.credential.kind !== 'token') return null;
      const check = env.tokens.check(state.credential.token);
      if (check.kind === 'refused') return TOKEN_REFUSED[check.reason];
      // A token bound to a browser origin (tokens create --origin) is refused from anywhere else.
      if (check.token.origin !== null && check.token.origin !== state.credential.origin) return TOKEN_REFUSED['wrong-origin'];
      const [character] = check.token.characters;
      if (!character) return TOKEN_REFUSED['key-removed'];
      state.serverCredentials = { apiKey: character.apiKey, apiSecret: character.apiSecret, token: check.token };
      return null;
    },
  },
  {
    // Streaming transports: a subscription (or live query) over the connection's or the
    // key's limit is refused here, before it is parsed, validated or given a context (a burst of them
    // costs next to nothing). A document that only mentions the keyword is treated the same.
    name: 'subscription-limit',
    phase: 'request',
    run: (state) => {
      if (!state.admitSubscription) return null;
      const text = queryText(state);
      if (text === null || !SUBSCRIPTION_KEYWORD.test(text)) return null;
      // The object holding the key it runs with, the one its context hashes too (see hashKey).
      const key = state.serverCredentials?.token?.characters[0] ?? state.serverCredentials ?? (state.credential.kind === 'key' ? state.credential : null);
      return state.admitSubscription(key, !SUBSCRIPTION_WORD.test(text));
    },
  },
  // The document is parsed, at most MAX_DOCUMENT_TOKENS tokens (GRAPHQL_PARSE_FAILED).
  { name: 'parse', phase: 'parse' },
  {
    // MAX_DEPTH, introspection fields left out (QUERY_TOO_EXPENSIVE).
    name: 'depth',
    phase: 'validate',
    rules: (env) => [depthLimitRule({ maxDepth: env.settings.maxDepth, maxCost: env.settings.maxUpstreamRequests })],
  },
  {
    // INTROSPECTION=false refuses introspection (GRAPHQL_VALIDATION_FAILED); otherwise it
    // needs no key but may ask for the schema about once (QUERY_TOO_EXPENSIVE).
    name: 'introspection',
    phase: 'validate',
    rules: (env) => [env.settings.introspection ? introspectionCostRule() : noIntrospectionRule],
  },
  {
    // Only the variables the operation declares are kept (no later step serializes the
    // others); a subscription or a live query (`@live`) over plain HTTP is refused (BAD_REQUEST).
    name: 'operation-shape',
    phase: 'operation',
    run: (state) => {
      if (state.transport === 'http' && state.operation.operation === OperationTypeNode.SUBSCRIPTION) {
        return new GatewayError('BAD_REQUEST', 'Subscription operations are not served over POST or GET /graphql: subscribe over WebSocket (graphql-transport-ws) at /graphql or over Server-Sent Events at /graphql/stream.', {}, 400);
      }
      if (state.transport === 'http' && isLiveQueryOperationDefinitionNode(state.operation, state.variables)) {
        return new GatewayError('BAD_REQUEST', 'Live queries (@live) are not served over POST or GET /graphql: send them over WebSocket (graphql-transport-ws) at /graphql or over Server-Sent Events at /graphql/stream, as a subscription is sent.', {}, 400);
      }
      if (state.variables) state.variables = declaredVariables(state.operation, state.variables);
      return null;
    },
  },
  {
    // Variables that do not coerce to their declared types: BAD_USER_INPUT, with
    // graphql-js's message. Over HTTP, Apollo Server coerces them itself right after this
    // phase and answers the same code and message, so the step leaves HTTP to it.
    name: 'variables',
    phase: 'operation',
    run: (state, env) => {
      if (state.transport === 'http') return null;
      const coerced = getVariableValues(env.schema, state.operation.variableDefinitions ?? [], state.variables ?? {});
      const [error] = coerced.errors ?? [];
      return error ? new GraphQLError(error.message, { nodes: error.nodes, extensions: { code: 'BAD_USER_INPUT' } }) : null;
    },
  },
  {
    // An access token's grants (src/graph/validation/grants.rule.ts, a graphql-js validation rule
    // built for the token and the variables): a field, company or write outside them is
    // FORBIDDEN with extensions.requiredGrant, before any upstream request. A key caller
    // skips it (no work).
    name: 'grants',
    phase: 'operation',
    run: (state, env) => {
      const { token } = state;
      if (!token) return null;
      // `read` over whole characters allows every query: nothing to walk.
      const readsAll = token.grants.some((grant) => grant.kind === 'read') && !token.grants.some((grant) => grant.kind === 'factory');
      if (readsAll && state.operation.operation === OperationTypeNode.QUERY && !isLiveQueryOperationDefinitionNode(state.operation, state.variables)) return null;
      const check = (): GraphQLError | null => validate(env.schema, state.document, [grantsRule({ grants: token.grants, operation: state.operation, variables: state.variables })])[0] ?? null;
      // Keyed by a hash of (document, token, operation, variables), bounded in bytes; only
      // "allowed" is remembered (a refusal, which quotes the request, is built afresh).
      return env.grantsMemo.get({ queryHash: `${documentIdentity(state)}\u0000${token.id}`, operation: state.operation, variables: state.variables }, check, (result) => result === null);
    },
  },
  {
    // Argument bounds (@ArgumentBounds, @ValueBounds): BAD_USER_INPUT before any upstream request.
    name: 'bounds',
    phase: 'operation',
    run: (state, env) => {
      const check = (): GraphQLError | null => checkOperationBounds(env.schema, state.document, state.operation, state.variables);
      if (state.queryHash === undefined) return check();
      // Only "within bounds" is remembered: a violation is built afresh for every request.
      return env.boundsMemo.get({ queryHash: state.queryHash, operation: state.operation, variables: state.variables }, check, (result) => result === null);
    },
  },
  {
    // The worst-case upstream cost (MAX_UPSTREAM_REQUESTS): QUERY_TOO_EXPENSIVE. For a
    // subscription, the cost of executing its selection once, for each event.
    name: 'cost',
    phase: 'operation',
    run: (state, env) => {
      const characters = state.token?.characters.length ?? 1; // a token over several: merged lists cost once per character
      const measure = (): number | null => measureCost(env.schema, state.document, state.operation, state.variables, estimatorsFor(characters, env.costEstimators, env.settings));
      const cost = state.queryHash === undefined ? measure() : env.costMemo.get({ queryHash: costMemoHash(state.queryHash, characters), operation: state.operation, variables: state.variables }, measure);
      return costError(cost, env.settings);
    },
  },
  // The result phase, on every result: the ordered list RESULT_STEPS of result-steps.ts.
  { name: 'result', phase: 'result' },
] as const satisfies readonly Step[];

/** The name of a step. */
export type StepName = (typeof STEPS)[number]['name'];
