/** The one request pipeline: runs {@link STEPS} for every transport; built once per gateway. */
import type { BaseContext } from '@apollo/server';
import { getOperationAST } from 'graphql';
import type { DocumentNode, GraphQLError, GraphQLSchema, ValidationRule } from 'graphql';
import { upstreamCostEstimator } from '../field-rules/cost';
import { OperationMemo } from '../graph/validation/operation-memo';
import type { Credential } from './credential';
import { PublicSite } from './public-site';
import type { GraphQLRequestInput, RequestParameters } from './public-site';
import { apolloPhases, ApolloDocumentStore, queryHashOf } from './apollo-documents';
import type { ApolloContext } from './apollo-documents';
import { httpResultPhase } from './http-result-phase';
import { operationRequest } from './operation-request';
import type { OperationRequest } from './operation-request';
import type { ApolloResultPhase, HttpResultReport } from './http-result-phase';
import type {
  Admission,
  ApolloPipelineOptions,
  LaterRefusal,
  Prepared,
  RefusalAnswer,
  RefusalOwner,
  RefusalResult,
  RequestFacts,
  StepListener,
} from './pipeline-types';
import { runResultSteps } from './result-steps';
import type { OutgoingResult, ResultEnvironment, ResultPhase, ResultState } from './result-steps';
import { NO_VAULT } from '../vault';
import type { TokenResolver } from '../vault';
import { NO_HTTP_QUERY } from './http-checks';
import { PersistedQueries, persistedQueryRefusal } from './persisted-queries';
import { httpRefusalOf, NO_QUERY, operationResolutionError, refusalError } from './refusals';
import type { Refusal } from './refusals';
import { STEPS } from './steps';
import { documentCacheShares, PARSE_OPTIONS, ValidatedDocuments } from './validated-documents';
import type { StepName } from './steps';
import { PHASES } from './step-types';
import type { OperationState, PipelineSettings, RequestState, Step, StepEnvironment, Transport } from './step-types';

/** The pipeline's answers, named for its callers (their shapes live in pipeline-types.ts). */
export type { Prepared, RefusalAnswer, RefusalResult, RequestFacts } from './pipeline-types';

/** The errors of a later phase (with their HTTP status, when known), or null for a `request` step's refusal. */
function laterOf(refused: Refusal | LaterRefusal): Exclude<LaterRefusal, readonly GraphQLError[]> | null {
  if (Array.isArray(refused)) return { errors: refused as readonly GraphQLError[] };
  return 'errors' in refused ? refused : null;
}

/** The `request` steps of {@link STEPS}, in order (picked once, not on every request); then the `operation` steps. */
const REQUEST_STEPS = (STEPS as readonly Step<StepName>[]).filter((step) => step.phase === 'request');
const OPERATION_STEPS = (STEPS as readonly Step<StepName>[]).filter((step) => step.phase === 'operation');

/**
 * The one driver of {@link STEPS} and `RESULT_STEPS`: every transport calls the same function
 * for each phase, and writes every refusal with {@link refuse}.
 *
 * - The `request` phase: {@link admit}, for every transport (HTTP before the response
 *   cache and Apollo, its own pre-parse checks included: CSRF, the body's shape, `Accept`).
 * - The `parse`, `validate` and `operation` phases: {@link prepareAdmitted}, for every
 *   transport ({@link prepare} for graphql-ws and graphql-sse; HTTP after the response
 *   cache). Over HTTP a refusal is written by {@link refuse} and never reaches Apollo; an
 *   accepted document reaches it through its `documentStore` ({@link holdDocument},
 *   `ApolloDocumentStore`), so Apollo neither parses nor validates it, and its plugin runs
 *   no `operation` step again (the context's `passedSteps`). An APQ hash sent without its
 *   text gets it from the APQ cache Apollo registers texts in ({@link withPersistedText}).
 *   Only `executeOperation` (tests) takes Apollo's full path, with the same parse options,
 *   rules and `operation` steps ({@link apolloOptions}).
 * - The result phase: {@link finishResult}, for every transport (over HTTP from Apollo's
 *   `willSendResponse`, see {@link resultPhase}, and for a response cache hit answered
 *   before Apollo; on the streams in `onNext`).
 * - A transport measures (a body's size, a batch, its operations in flight) and frames;
 *   it never checks or answers a request itself.
 *
 * When to use: one per gateway (`createGatewayRuntime` builds it); never per request.
 */
export class RequestPipeline {
  private readonly env: StepEnvironment;
  private readonly resultEnv: ResultEnvironment;
  private readonly rules: ValidationRule[];
  private readonly listeners = new Set<StepListener>();
  /** The APQ texts by hash, which Apollo registers ({@link apolloOptions}) and {@link withPersistedText} reads. */
  private readonly persisted = new PersistedQueries();
  /** Apollo's document store, once {@link apolloOptions} built it. */
  private documents: ApolloDocumentStore | null = null;
  /** The documents that parsed and passed validation, by query text, bounded by its share of `DOCUMENT_CACHE_MAX_BYTES`. */
  private readonly validated: ValidatedDocuments;

  /**
   * @param schema - the gateway's schema
   * @param settings - the limits the steps read
   * @param publicSite - the public-site policy (see {@link RequestPipeline.fromConfig})
   * @param tokens - the vault's token lookups (default: none, every access token is refused)
   * @throws Error when {@link STEPS} lists a step before one of an earlier phase (a programming error).
   */
  constructor(
    schema: GraphQLSchema,
    settings: PipelineSettings,
    publicSite: PublicSite,
    tokens: TokenResolver = NO_VAULT,
  ) {
    let phase = 0;
    for (const step of STEPS as readonly Step[]) {
      const index = PHASES.indexOf(step.phase);
      if (index < phase)
        throw new Error(`The request step ${step.name} (${step.phase}) comes after a step of a later phase.`);
      phase = index;
    }
    // One bound for the three checks' memos.
    const memo = new OperationMemo<never>();
    this.env = {
      schema,
      publicSite,
      settings,
      boundsMemo: memo.scoped('bounds'),
      costMemo: memo.scoped('cost'),
      costEstimators: [upstreamCostEstimator(settings.costAssumptions, settings.optionSlots)],
      tokens,
      grantsMemo: memo.scoped('grants'),
    };
    this.resultEnv = { maxResponseBytes: settings.maxResponseBytes };
    this.rules = (STEPS as readonly Step[]).flatMap((step) => (step.phase === 'validate' ? step.rules(this.env) : []));
    this.validated = new ValidatedDocuments(
      documentCacheShares(settings.documentCacheMaxBytes).pipeline,
      schema,
      this.rules,
    );
  }

  /**
   * Builds the pipeline and the public-site policy from the settings, once.
   *
   * @param tokens - the vault's token lookups (default: none)
   * @throws Error when public-site mode is configured and the trusted-documents manifest cannot be loaded.
   */
  static fromConfig(
    schema: GraphQLSchema,
    config: PipelineSettings & {
      serverApiKey: string | null;
      serverApiSecret: string | null;
      trustedDocumentsPath: string | null;
    },
    tokens: TokenResolver = NO_VAULT,
  ): RequestPipeline {
    return new RequestPipeline(schema, config, PublicSite.fromConfig(config), tokens);
  }

  /** Compiles the large-text path of the parse and validate phases before the first request (`ValidatedDocuments.warmUp`); called once at startup. */
  warmUp(): void {
    this.validated.warmUp();
  }

  /**
   * For an access token this gateway does not know yet: a promise that settles once the
   * vault was read again (see `TokenResolver.whenKnown`), so a token printed by `tokens
   * create` a moment ago works at once; null for any other credential (nothing to wait
   * for). Transports await it before they run the `request` phase.
   */
  tokenReady(credential: Credential): Promise<void> | null {
    return credential.kind === 'token' ? (this.env.tokens.whenKnown?.(credential) ?? null) : null;
  }

  /** The names of the steps, in the order they run. */
  get steps(): StepName[] {
    return STEPS.map((step) => step.name);
  }

  /** Calls `listener` with every step the pipeline runs itself; returns the function that stops it. */
  observe(listener: StepListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private ran(step: StepName, transport: Transport): void {
    if (this.listeners.size === 0) return;
    for (const listener of this.listeners) listener(step, transport);
  }

  /** Runs the `request` phase on `state`, its steps in order: the first refusal, or null. */
  private runRequestPhase(state: RequestState): { step: StepName; refusal: Refusal } | null {
    for (const step of REQUEST_STEPS) {
      this.ran(step.name, state.transport);
      const refusal = step.phase === 'request' ? step.run(state, this.env) : null;
      if (refusal) return { step: step.name, refusal };
    }
    return null;
  }

  /** Runs the `operation` phase on `state`, its steps in order: the first error, or null. */
  private runOperationPhase(state: OperationState): { step: StepName; error: GraphQLError } | null {
    for (const step of OPERATION_STEPS) {
      this.ran(step.name, state.transport);
      const error = step.phase === 'operation' ? step.run(state, this.env) : null;
      if (error) return { step: step.name, error };
    }
    return null;
  }

  /**
   * THE `request` phase, for every transport: runs the `request` steps (body size, the
   * WebSocket cap, key, batch, sizes, public site, token, subscription limits) in order on
   * what the transport read, and answers the key to run with (resolved and hashed once) and
   * the parameters to go on with, or the first refusal (written by {@link refuse}). HTTP
   * calls it before the response cache and Apollo; {@link prepare} calls it first for
   * graphql-ws and graphql-sse.
   *
   * @param transport - the transport
   * @param input - the POST body object (a subscribe payload) or GET query string; null for a body that is not an object (`http-shape` refuses it)
   * @param credential - the key, read once (the `Authorization` header, the connection parameters)
   * @param parameters - what the later phases are given when no step replaces it
   * @param facts - what only the transport can measure (a body's size as read, a batch, the operations in flight, the subscription limits)
   */
  admit(
    transport: Transport,
    input: GraphQLRequestInput | null,
    credential: Credential,
    parameters: RequestParameters,
    facts: RequestFacts = {},
  ): Admission {
    // Object.assign, not a spread: V8 (Node 20) copies with it faster, on every request.
    const state: RequestState = Object.assign({ transport, input, credential, parameters, key: null }, facts);
    const refused = this.runRequestPhase(state);
    if (refused) return { kind: 'refused', ...refused };
    return { kind: 'run', parameters: state.parameters, key: state.key };
  }

  /**
   * Runs every phase for one operation of a streaming transport (graphql-ws,
   * graphql-sse): {@link admit}, then {@link prepareAdmitted}.
   *
   * @param transport - the transport
   * @param payload - the subscribe payload (`query`, `operationName`, `variables`, `extensions`, `documentId`)
   * @param credential - the key, read from the connection parameters or the header
   * @param facts - the transport's subscription limits, its cap on operations in flight, the body's size as read (see {@link RequestState})
   */
  prepare(
    transport: Exclude<Transport, 'http'>,
    payload: Readonly<Record<string, unknown>>,
    credential: Credential,
    facts: RequestFacts = {},
  ): Prepared {
    const admission = this.admit(
      transport,
      { kind: 'post', body: payload },
      credential,
      { body: payload, search: '' },
      facts,
    );
    if (admission.kind === 'refused')
      return {
        kind: 'refused',
        step: admission.step,
        errors: [refusalError(admission.refusal)],
        refusal: admission.refusal,
      };
    return this.prepareAdmitted(transport, admission, operationRequest(admission.parameters), facts);
  }

  /**
   * The `parse`, `validate` and `operation` phases of an admitted request, for every
   * transport (see {@link RequestPipeline}): the document parsed and validated once per
   * query text, then the `operation` steps. Answers what to execute, or the errors that
   * refuse it before anything is executed or polled.
   *
   * @param request - the query text, operation name and variables of `admission` (see {@link operationRequest})
   */
  prepareAdmitted(
    transport: Transport,
    admission: Extract<Admission, { kind: 'run' }>,
    request: OperationRequest,
    facts: RequestFacts = {},
  ): Prepared {
    this.ran('parse', transport);
    const { query, operationName, variables } = request;
    const http = transport === 'http';
    const persisted = http ? persistedQueryRefusal(request.extensions, query) : null;
    if (persisted) return { kind: 'refused', step: 'parse', ...persisted };
    if (query === undefined || query === '')
      return { kind: 'refused', step: 'parse', errors: [refusalError(http ? NO_HTTP_QUERY : NO_QUERY)], status: 400 };
    const prepared = this.validated.prepare(query, () => {
      for (const step of STEPS) if (step.phase === 'validate') this.ran(step.name, transport);
    });
    if (!('document' in prepared)) return { kind: 'refused', ...prepared, status: 400 };
    const { document } = prepared;

    // Over HTTP: Apollo's document store finds the document by it, the bounds and cost memos are keyed by it.
    const queryHash = http ? queryHashOf(document, query) : undefined;
    const operation = getOperationAST(document, operationName);
    if (!operation) {
      const errors = [operationResolutionError(document, operationName)];
      return { kind: 'refused', step: 'operation-shape', errors, status: 400 };
    }
    const token = admission.key?.source === 'token' ? admission.key.token : undefined;
    const operationState: OperationState = {
      transport,
      document,
      operation,
      variables,
      ...(queryHash !== undefined ? { queryHash } : {}),
      ...(token ? { token } : {}),
      ...(facts.operations ? { operations: facts.operations } : {}),
      ...(facts.http ? { http: facts.http } : {}),
    };
    const failed = this.runOperationPhase(operationState);
    if (failed) return { kind: 'refused', step: failed.step, ...httpRefusalOf(failed.error, operation) };
    const { variables: kept } = operationState;
    const run = { kind: 'run', document, operationName, operation, variables: kept, key: admission.key } as const;
    return queryHash === undefined ? run : { ...run, queryHash };
  }

  /**
   * Apollo Server's options for the `parse`, `validate` and `operation` phases (HTTP, and
   * `executeOperation` in tests), built from {@link STEPS}: see {@link apolloPhases}. Apollo's
   * own documents get their share of `DOCUMENT_CACHE_MAX_BYTES` ({@link documentCacheShares}).
   */
  apolloOptions<TContext extends BaseContext & ApolloContext>(): ApolloPipelineOptions<TContext> {
    this.documents = new ApolloDocumentStore(documentCacheShares(this.env.settings.documentCacheMaxBytes).apollo);
    const phases = apolloPhases<TContext>(PARSE_OPTIONS, this.rules, this.documents, (state) =>
      this.runOperationPhase(state),
    );
    return { ...phases, persistedQueries: { cache: this.persisted.apolloCache } };
  }

  /** HTTP: `request` with the text of an APQ hash sent without it, from the APQ cache Apollo registers texts in (see {@link PersistedQueries}). */
  withPersistedText(request: OperationRequest): Promise<OperationRequest> {
    return this.persisted.textOf(request);
  }

  /** HTTP: holds a document {@link prepareAdmitted} prepared in Apollo's document store (see {@link RequestPipeline}) until the returned function is called. */
  holdDocument(queryHash: string, document: DocumentNode): () => void {
    return this.documents?.hold(queryHash, document) ?? (() => undefined);
  }

  /**
   * Writes a refusal before execution, for every transport: `{errors}` through the result
   * phase's `delivery` steps (formatting, redaction of the caller's key, the report), and
   * its text; with the operation's context (`owner.execution`, HTTP after the `request`
   * phase) through every result step, so it carries the zero upstream accounting. The transport frames it: HTTP (and graphql-sse before its stream starts) as
   * the body with `status` and `headers`; graphql-sse as a `next` event; graphql-ws as an
   * `error` message (its payload is `result.errors`) or, over a limit, as a `next` message.
   *
   * @param refused - a `request` step's refusal, or the errors of a later phase (with their HTTP status: {@link Prepared})
   */
  refuse(transport: Transport, refused: Refusal | LaterRefusal, owner: RefusalOwner = {}): RefusalAnswer {
    const later = laterOf(refused);
    const refusal = later ? null : (refused as Refusal);
    const errors = later ? later.errors : [refusalError(refused as Refusal)];
    const { credential, execution = null } = owner;
    const delivery =
      owner.delivery ?? (credential?.kind === 'key' ? { apiKey: credential.apiKey, apiSecret: null } : null);
    const result = this.finishResult<OutgoingResult>(
      { transport, result: { errors }, execution, delivery, report: owner.report },
      execution ? undefined : ['delivery'],
    ) as RefusalResult;
    const copies = refusal?.copies;
    const text = JSON.stringify(copies === undefined ? result : Array.from({ length: copies }, () => result));
    // Over HTTP, the answers Apollo Server wrote before the pipeline did end with a newline: kept byte for byte.
    const lineEnd = transport === 'http' && (later !== null || refusal?.lineEnd === true) ? '\n' : '';
    const status = refusal?.status ?? later?.status ?? 400;
    const headers = { ...(refusal ?? later)?.headers };
    return { status, headers, result, text: `${text}${lineEnd}` };
  }

  /**
   * THE result phase, for every transport: runs `RESULT_STEPS` (result-steps.ts) in order on
   * one result, or only the steps of `phases` (a live query runs the `execution` phase at
   * the end of each run, the `delivery` phase when the transport sends it; {@link refuse}
   * the `delivery` phase of a refusal). Called on each HTTP result (from Apollo's
   * `willSendResponse`, {@link resultPhase}) and response cache hit answered before Apollo,
   * and on each graphql-ws and graphql-sse result, event and live query result (`onNext`).
   * Returns the result to send.
   */
  finishResult<R extends OutgoingResult>(state: ResultState<R>, phases?: readonly ResultPhase[]): R {
    return runResultSteps(state, this.resultEnv, phases);
  }

  /**
   * The result phase over HTTP (and `executeOperation` in tests): Apollo's plugin and
   * `stringifyResult`, which hand each result to {@link finishResult} (see {@link httpResultPhase}).
   *
   * @param report - the operation's report (metrics, log line), called by the `report` step
   */
  resultPhase(report: (report: HttpResultReport) => void): ApolloResultPhase {
    return httpResultPhase((state) => this.finishResult(state), report);
  }
}
