/**
 * The request checks of every transport, in the order they run: THE list. HTTP (GET and
 * POST), graphql-ws and graphql-sse all run these steps, in this order, through
 * {@link RequestPipeline} (src/pipeline/pipeline.ts); nothing else checks a request.
 *
 * A step has a phase, and the phases run in this order:
 *
 * - `request`: before the document is parsed (the body's size, the per-connection cap,
 *   the key, batches, sizes, trusted documents, tokens, the subscription limits; over HTTP,
 *   CSRF, the body's shape and `Accept`, with Apollo Server's statuses and messages);
 * - `parse`: the document is parsed, at most `MAX_DOCUMENT_TOKENS` tokens;
 * - `validate`: graphql-js validation rules, run with graphql-js's own (`specifiedRules`);
 *   a check that walks the document is a rule here, so Apollo's document store skips it
 *   for a document it already validated;
 * - `operation`: once the operation and its variables are known (bounds and cost depend
 *   on the variables, so they cannot be validation rules, which see the document only);
 * - `result`: on each result before it is sent (on HTTP, graphql-ws and graphql-sse, each
 *   subscription event, and each live query's result): the one entry `result` stands for
 *   the result phase, whose steps are the ordered list `RESULT_STEPS` of result-steps.ts
 *   (list-item errors, extensions.upstream, extensions.warnings, error formatting,
 *   redaction, response size, the operation's report).
 *
 * The pipeline runs every phase itself on every transport; over HTTP, Apollo Server
 * executes a document the pipeline accepted (only `executeOperation`, in tests, takes
 * Apollo's own path, with `parseOptions`, `validationRules` and one plugin built from
 * this list). A new check is one entry here, in its place.
 */
import { isLiveQueryOperationDefinitionNode } from '@n1ru4l/graphql-live-query';
import { getVariableValues, GraphQLError, OperationTypeNode, validate } from 'graphql';
import type { DocumentNode } from 'graphql';
import { GatewayError } from '../errors/gateway-error';
import { checkOperationBounds } from '../field-rules/bounds';
import { depthLimitRule } from '../graph/validation/depth.rule';
import { checkRequestShape } from '../graph/validation/document-limits';
import { grantsRule } from '../graph/validation/grants.rule';
import { introspectionCostRule, noIntrospectionRule } from '../graph/validation/introspection.rule';
import { declaredVariables } from '../graph/validation/operation-memo';
import { costError, costMemoHash, estimatorsFor, measureCost } from '../field-rules/cost';
import {
  batchRefusal,
  bodyTooLarge,
  MALFORMED_KEY,
  operationCapRefusal,
  refusalError,
  TOKEN_REFUSED,
} from './refusals';
import { acceptRefusal, csrfRefusal, getQueryOnlyError, shapeRefusal } from './http-checks';
import type { OperationState, RequestState, Step } from './step-types';
import { callerKey, siteKey, tokenKey } from './key-in-use';

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

/** What the `subscription-limit` step found in the last text it tested: a burst of subscribes repeats one text. */
let lastStreamText: { text: string; streams: boolean; live: boolean } = { text: '', streams: false, live: false };

/** Whether `text` may hold a subscription or a live query ({@link SUBSCRIPTION_KEYWORD}), and whether only a live query. */
function streamsIn(text: string): { streams: boolean; live: boolean } {
  if (text !== lastStreamText.text) {
    const streams = SUBSCRIPTION_KEYWORD.test(text);
    lastStreamText = { text, streams, live: streams && !SUBSCRIPTION_WORD.test(text) };
  }
  return lastStreamText;
}

/**
 * The request checks, in order. The order is this array's: the pipeline refuses to
 * start when a step's phase comes before the previous step's (see {@link PHASES}).
 */
export const STEPS = [
  {
    // MAX_BODY_BYTES: a body (a graphql-ws subscribe message) over it is refused with 413
    // before anything else; its reader stopped reading at the limit.
    name: 'body-size',
    phase: 'request',
    run: ({ bodyBytes }, env) =>
      bodyBytes !== undefined && bodyBytes > env.settings.maxBodyBytes ? bodyTooLarge(env.settings.maxBodyBytes) : null,
  },
  {
    // graphql-ws: a query or mutation over OPERATIONS_MAX_PER_CONNECTION in flight on its
    // connection is refused before anything reads it further (RATE_LIMITED). A text that
    // may hold a subscription or a live query is left to `subscription-limit`, and to
    // `operation-cap-parsed` once parsed.
    name: 'operation-cap',
    phase: 'request',
    run: (state) => {
      if (!state.operations?.full()) return null;
      const text = queryText(state);
      return text !== null && SUBSCRIPTION_KEYWORD.test(text) ? null : operationCapRefusal(state.operations.max);
    },
  },
  {
    // The key, read once (see credential.ts): a value that is set but is not `Bearer <token>`
    // is refused, never run as "no key"; a caller's own key runs the operation (key-in-use.ts).
    name: 'key',
    phase: 'request',
    run: (state, env) => {
      state.key = callerKey(state.credential, env.settings.keyHashSecret);
      return state.credential.kind === 'malformed'
        ? MALFORMED_KEY[state.transport === 'http' ? 'http' : 'streaming']
        : null;
    },
  },
  {
    // One operation per request: a JSON array (a batch) is refused (BAD_REQUEST), once per
    // operation it holds (see batchRefusal).
    name: 'batch',
    phase: 'request',
    run: ({ batch }) => (batch === undefined ? null : batchRefusal(batch)),
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
      const decision = env.publicSite.decide(
        state.input,
        state.credential.kind === 'key' || state.credential.kind === 'token',
      );
      if (decision.kind === 'refuse') return { code: decision.code, message: decision.message, status: 400 };
      state.parameters = decision.parameters;
      if (decision.siteKey) state.key = siteKey(decision.siteKey, env.settings.keyHashSecret);
      return null;
    },
  },
  {
    // An access token (`Bearer svg_…`): looked up in the vault (an in-memory map, kept
    // current within 1 s of a change); expired, revoked, unknown or malformed is refused
    // (UNAUTHENTICATED, extensions.reason saying which). A usable one runs with its vault keys.
    name: 'token',
    phase: 'request',
    run: (state, env) => {
      if (state.credential.kind !== 'token') return null;
      const check = env.tokens.check(state.credential);
      if (check.kind === 'refused') return TOKEN_REFUSED[check.reason];
      // A token bound to a browser origin (tokens create --origin) is refused from anywhere else.
      if (check.token.origin !== null && check.token.origin !== state.credential.origin)
        return TOKEN_REFUSED['wrong-origin'];
      state.key = tokenKey(check.token, env.settings.keyHashSecret);
      return state.key ? null : TOKEN_REFUSED['key-removed'];
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
      if (text === null) return null;
      const { streams, live } = streamsIn(text);
      return streams ? state.admitSubscription(state.key?.key.keyId ?? null, live) : null;
    },
  },
  {
    // HTTP: a request a browser may send cross-site without a CORS preflight (no content
    // type, or a CORS-safelisted one) and without one of CSRF_SAFE_HEADERS (BAD_REQUEST).
    name: 'csrf',
    phase: 'request',
    run: ({ http }) => (http ? csrfRefusal(http) : null),
  },
  {
    // HTTP: the POST body's or the GET query string's shape (BAD_REQUEST; a GET with a
    // content type other than JSON, 415), with Apollo Server's messages.
    name: 'http-shape',
    phase: 'request',
    run: ({ http, parameters }) => (http ? shapeRefusal(parameters.body, parameters.search, http) : null),
  },
  {
    // HTTP: an `Accept` header that accepts no GraphQL result type (406).
    name: 'accept',
    phase: 'request',
    run: ({ http }) => (http ? acceptRefusal(http) : null),
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
    rules: (env) => [env.settings.introspection ? introspectionCostRule(env.schema) : noIntrospectionRule],
  },
  {
    // HTTP GET: a mutation or subscription is refused (405 with `Allow: POST`).
    name: 'get-query-only',
    phase: 'operation',
    run: ({ http, operation }) => getQueryOnlyError(http, operation),
  },
  {
    // Only the variables the operation declares are kept (no later step serializes the
    // others); a subscription or a live query (`@live`) over plain HTTP is refused (BAD_REQUEST).
    name: 'operation-shape',
    phase: 'operation',
    run: (state) => {
      if (state.transport === 'http' && state.operation.operation === OperationTypeNode.SUBSCRIPTION) {
        return new GatewayError(
          'BAD_REQUEST',
          'Subscription operations are not served over POST or GET /graphql: subscribe over WebSocket (graphql-transport-ws) at /graphql or over Server-Sent Events at /graphql/stream.',
          {},
          400,
        );
      }
      if (state.transport === 'http' && isLiveQueryOperationDefinitionNode(state.operation, state.variables)) {
        return new GatewayError(
          'BAD_REQUEST',
          'Live queries (@live) are not served over POST or GET /graphql: send them over WebSocket (graphql-transport-ws) at /graphql or over Server-Sent Events at /graphql/stream, as a subscription is sent.',
          {},
          400,
        );
      }
      if (state.variables) state.variables = declaredVariables(state.operation, state.variables);
      return null;
    },
  },
  {
    // Variables that do not coerce to their declared types: BAD_USER_INPUT (HTTP 400), with
    // graphql-js's message, on every transport. The coerced values go on to `bounds` and
    // `cost`; the executor (graphql-js or graphql-jit) takes the raw values and coerces them
    // again (neither accepts coerced ones).
    name: 'variables',
    phase: 'operation',
    run: (state, env) => {
      const definitions = state.operation.variableDefinitions ?? [];
      if (definitions.length === 0) return null;
      const coerced = getVariableValues(env.schema, definitions, state.variables ?? {});
      const [error] = coerced.errors ?? [];
      if (!error) state.coerced = coerced.coerced;
      return error
        ? new GraphQLError(error.message, {
            nodes: error.nodes,
            extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } },
          })
        : null;
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
      const readsAll =
        token.grants.some((grant) => grant.kind === 'read') && !token.grants.some((grant) => grant.kind === 'factory');
      if (
        readsAll &&
        state.operation.operation === OperationTypeNode.QUERY &&
        !isLiveQueryOperationDefinitionNode(state.operation, state.variables)
      )
        return null;
      const check = (): GraphQLError | null =>
        validate(env.schema, state.document, [
          grantsRule({ grants: token.grants, operation: state.operation, variables: state.variables }),
        ])[0] ?? null;
      // Keyed by a hash of (document, token, operation, variables), bounded in bytes; only
      // "allowed" is remembered (a refusal, which quotes the request, is built afresh).
      return env.grantsMemo.get(
        {
          queryHash: `${documentIdentity(state)}\u0000${token.id}`,
          operation: state.operation,
          variables: state.variables,
        },
        check,
        (result) => result === null,
      );
    },
  },
  {
    // Argument bounds (@ArgumentBounds, @ValueBounds): BAD_USER_INPUT before any upstream request.
    name: 'bounds',
    phase: 'operation',
    run: (state, env) => {
      const check = (): GraphQLError | null =>
        checkOperationBounds(env.schema, state.document, state.operation, state.variables, state.coerced);
      if (state.queryHash === undefined) return check();
      // Only "within bounds" is remembered: a violation is built afresh for every request.
      return env.boundsMemo.get(
        { queryHash: state.queryHash, operation: state.operation, variables: state.variables },
        check,
        (result) => result === null,
      );
    },
  },
  {
    // The worst-case upstream cost (MAX_UPSTREAM_REQUESTS): QUERY_TOO_EXPENSIVE. For a
    // subscription, the cost of executing its selection once, for each event.
    name: 'cost',
    phase: 'operation',
    run: (state, env) => {
      const characters = state.token?.characters.length ?? 1; // a token over several: merged lists cost once per character
      const measure = (): number | null =>
        measureCost(
          env.schema,
          state.document,
          state.operation,
          state.variables,
          estimatorsFor(characters, env.costEstimators, env.settings),
          state.coerced,
        );
      const cost =
        state.queryHash === undefined
          ? measure()
          : env.costMemo.get(
              {
                queryHash: costMemoHash(state.queryHash, characters),
                operation: state.operation,
                variables: state.variables,
              },
              measure,
            );
      return costError(cost, env.settings);
    },
  },
  {
    // graphql-ws: a query or mutation whose text mentioned `subscription` or `@live`, found
    // not to be one, over OPERATIONS_MAX_PER_CONNECTION (see `operation-cap`).
    name: 'operation-cap-parsed',
    phase: 'operation',
    run: ({ operations, operation, variables }) => {
      if (
        !operations?.full() ||
        operation.operation === OperationTypeNode.SUBSCRIPTION ||
        isLiveQueryOperationDefinitionNode(operation, variables)
      )
        return null;
      return refusalError(operationCapRefusal(operations.max));
    },
  },
  // The result phase, on every result: the ordered list RESULT_STEPS of result-steps.ts.
  { name: 'result', phase: 'result' },
] as const satisfies readonly Step[];

/** The name of a step. */
export type StepName = (typeof STEPS)[number]['name'];
