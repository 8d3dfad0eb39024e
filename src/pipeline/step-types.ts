/**
 * The shapes of the request pipeline's steps (steps.ts holds THE list of them): what a
 * step of each phase is given (the request's or operation's state, the environment built
 * once per gateway) and what it answers, and the order of the phases.
 */
import type { DocumentNode, GraphQLError, GraphQLSchema, OperationDefinitionNode, ValidationRule } from 'graphql';
import type { ComplexityEstimator } from 'graphql-query-complexity';
import type { GatewayConfig } from '../config';
import type { OperationMemo } from '../graph/validation/operation-memo';
import type { ActiveToken, TokenResolver } from '../vault';
import type { Credential } from './credential';
import type { HttpRequestFacts } from './http-checks';
import type { KeyInUse } from './key-in-use';
import type { GraphQLRequestInput, PublicSite, RequestParameters } from './public-site';
import type { Refusal } from './refusals';

/** The transports that run the pipeline. */
export type Transport = 'http' | 'graphql-ws' | 'graphql-sse';

/** The settings the steps read. */
export type PipelineSettings = Pick<
  GatewayConfig,
  | 'maxDepth'
  | 'maxUpstreamRequests'
  | 'costAssumptions'
  | 'optionSlots'
  | 'introspection'
  | 'maxBodyBytes'
  | 'maxVariablesBytes'
  | 'maxResponseBytes'
  | 'keyHashSecret'
  | 'documentCacheMaxBytes'
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

/** One request during the `request` phase. Steps may replace `parameters` and set `key`. */
export interface RequestState {
  /** The transport that brought it. */
  readonly transport: Transport;
  /** The request: a POST body or subscribe payload, or a GET query string; null for an HTTP body that is not an object (`http-shape` refuses it). */
  readonly input: GraphQLRequestInput | null;
  /** The caller's key as sent (see `readCredential`). */
  readonly credential: Credential;
  /** What runs: the body and query string, with a trusted document's text in place of its hash once `public-site` ran. */
  parameters: RequestParameters;
  /** The key it runs with, resolved from `credential` by the `key`, `public-site` and `token` steps (hashed once), or null for none. */
  key: KeyInUse | null;
  /**
   * Streaming transports only: refuses a subscription over the caller's subscription
   * limits (per connection, per key) before anything parses it, or returns null.
   * `keyId` names the key it would run with (null: none); `live` is true for a document that
   * marks a query `@live` and never says `subscription` (a subscriber of a live query
   * already running takes no place of the key, so only the transport knows its limits).
   */
  readonly admitSubscription?: (keyId: string | null, live: boolean) => Refusal | null;
  /** The body's bytes as far as read (a reader stops past `MAX_BODY_BYTES`; graphql-ws: the subscribe message's), when measured. */
  readonly bodyBytes?: number;
  /** A body that is a JSON array (a batch): how many operations it holds. */
  readonly batch?: number;
  /** graphql-ws only: the queries and mutations in flight on the connection (`OPERATIONS_MAX_PER_CONNECTION`). */
  readonly operations?: OperationsInFlight;
  /** HTTP only: the request's method and headers (the CSRF, shape and `Accept` steps). */
  readonly http?: HttpRequestFacts;
}

/** The queries and mutations in flight on one connection, as the `operation-cap` steps see them. */
export interface OperationsInFlight {
  /** The cap. */
  readonly max: number;
  /** True when one more may not start now. */
  full(): boolean;
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
  /** The variables coerced to their declared types (set by the `variables` step when the operation declares any). */
  coerced?: Record<string, unknown>;
  /** sha256 of the document text (Apollo's `queryHash`), when known: the bounds and cost results are remembered by it. */
  readonly queryHash?: string;
  /** The access token it runs with (after the `token` step accepted it), else absent: the `grants` step checks its grants. */
  readonly token?: ActiveToken;
  /** graphql-ws only: the queries and mutations in flight on the connection. */
  readonly operations?: OperationsInFlight;
  /** HTTP only (but for Apollo's own path): the request's method and headers. */
  readonly http?: HttpRequestFacts;
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
export type Step<N extends string = string> =
  RequestStep<N> | ParseStep<N> | ValidateStep<N> | OperationStep<N> | ResultStep<N>;

/** The phases, in the order they run. */
export const PHASES = ['request', 'parse', 'validate', 'operation', 'result'] as const;
