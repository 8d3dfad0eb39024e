/**
 * The shapes of what the request pipeline (pipeline.ts) answers and is given: an HTTP
 * request's admission, a streaming operation's preparation, a refusal as every transport
 * writes it, and Apollo's options. The pipeline decides; these only name its answers.
 */
import type { ApolloServerPlugin, BaseContext } from '@apollo/server';
import type { KeyValueCache } from '@apollo/utils.keyvaluecache';
import type {
  DocumentNode,
  GraphQLError,
  GraphQLFormattedError,
  OperationDefinitionNode,
  ParseOptions,
  ValidationRule,
} from 'graphql';
import type { Credential } from './credential';
import type { KeyInUse } from './key-in-use';
import type { RequestParameters } from './public-site';
import type { Refusal } from './refusals';
import type { DeliveryContext, ExecutionContext, OutgoingResult, ResultReport } from './result-steps';
import type { StepName } from './steps';
import type { RequestState, Transport } from './step-types';

/** What the `request` phase decided for an HTTP request. */
export type Admission =
  | {
      /** Go on: the later phases (`prepareAdmitted`), then execution. */
      readonly kind: 'run';
      /** What Apollo is given (a trusted document's text in place of its hash). */
      readonly parameters: RequestParameters;
      /** The key it runs with (the caller's, the site's, an access token's), resolved and hashed once, or null for none. */
      readonly key: KeyInUse | null;
    }
  | {
      /** Answer the refusal, run nothing. */
      readonly kind: 'refused';
      /** The step that refused. */
      readonly step: StepName;
      /** The refusal, with its HTTP status. */
      readonly refusal: Refusal;
    };

/** What the whole pipeline decided for an operation of a streaming transport. */
export type Prepared =
  | {
      /** Execute it. */
      readonly kind: 'run';
      /** The parsed, validated document. */
      readonly document: DocumentNode;
      /** The operation to run, when the request named one. */
      readonly operationName: string | undefined;
      /** The operation the document runs (its type: query, mutation or subscription). */
      readonly operation: OperationDefinitionNode;
      /** The variables the operation declares. */
      readonly variables: Record<string, unknown> | undefined;
      /** The key it runs with (the caller's, the site's, an access token's), resolved and hashed once, or null for none. */
      readonly key: KeyInUse | null;
      /** Over HTTP: sha256 of the query text in hex (Apollo's `queryHash`). */
      readonly queryHash?: string;
    }
  | {
      /** Refused before execution. */
      readonly kind: 'refused';
      /** The step that refused (for graphql-js validation errors, which all rules report together: the first `validate` step). */
      readonly step: StepName;
      /** The errors for the client (codes set, no `http` extension); `RequestPipeline.refuse` writes them. */
      readonly errors: GraphQLError[];
      /** The `request` step's refusal (its HTTP status and headers), when a `request` step refused. */
      readonly refusal?: Refusal;
      /** The HTTP status of a later phase's refusal (as Apollo Server answered it over HTTP). */
      readonly status?: number;
      /** Its HTTP headers (e.g. `Allow`). */
      readonly headers?: Readonly<Record<string, string>>;
      /** The operation's name (null when anonymous), when an `operation` step refused it (the report's). */
      readonly operationName?: string | null;
      /** Its type (query, mutation or subscription), when an `operation` step refused it (the trace's span name). */
      readonly operationType?: OperationDefinitionNode['operation'];
    };

/** The errors of a refusal after the `request` phase, with their HTTP status and headers when known (400, none: see {@link Prepared}). */
export type LaterRefusal =
  | readonly GraphQLError[]
  | {
      readonly errors: readonly GraphQLError[];
      readonly status?: number;
      readonly headers?: Readonly<Record<string, string>>;
    };

/** What a transport knows of a request beside its parameters and key, for the `request` steps (see {@link RequestState}). */
export type RequestFacts = Pick<RequestState, 'bodyBytes' | 'batch' | 'operations' | 'admitSubscription' | 'http'>;

/** A refusal's payload: its errors as the client receives them. */
export interface RefusalResult {
  /** The errors, after the result phase's `delivery` steps. */
  readonly errors: readonly GraphQLFormattedError[];
}

/** A refusal as every transport writes it (see `RequestPipeline.refuse`); the framing is the transport's. */
export interface RefusalAnswer {
  /** HTTP status (over HTTP, and over graphql-sse before its stream starts); 400 for errors of a later phase. */
  readonly status: number;
  /** HTTP headers beside the content type (e.g. `WWW-Authenticate`). */
  readonly headers: Readonly<Record<string, string>>;
  /** The payload `{errors}`: the same on every transport, byte for byte. */
  readonly result: RefusalResult;
  /** Its JSON text (over HTTP, a refused batch's is an array of copies). */
  readonly text: string;
}

/** Whose refusal it is: its key (for the redaction) or the operation's context, and the operation's report. */
export interface RefusalOwner {
  /** The operation's context, when it was built (HTTP after the `request` phase): the result steps add its upstream accounting (zeros). */
  readonly execution?: ExecutionContext | null;
  /** The key as the transport read it. */
  readonly credential?: Credential;
  /** The operation's context, when it has one (its key and secret are redacted). */
  readonly delivery?: DeliveryContext | null;
  /** The operation's report (metrics, log line, span). */
  readonly report?: (report: ResultReport<OutgoingResult>) => void;
}

/** Called with each step the pipeline runs itself (tests count the work a request caused). */
export type StepListener = (step: StepName, transport: Transport) => void;

/** What Apollo Server is given to run the `parse`, `validate` and `operation` phases over HTTP. */
export interface ApolloPipelineOptions<TContext extends BaseContext> {
  /** Apollo's `parseOptions`: the `parse` step's token limit. */
  readonly parseOptions: ParseOptions;
  /** Apollo's `validationRules`: every `validate` step's rules, in order (Apollo adds `specifiedRules`). */
  readonly validationRules: ValidationRule[];
  /** Apollo's `documentStore`: the documents the pipeline prepared, and Apollo's own (see `ApolloDocumentStore`). */
  readonly documentStore: KeyValueCache<DocumentNode>;
  /** Apollo's `persistedQueries`: the APQ cache the pipeline also reads (see `PersistedQueries`). */
  readonly persistedQueries: { readonly cache: KeyValueCache<string> };
  /** One plugin running every `operation` step, in order, once the operation is known (unless they passed in `prepareAdmitted`). */
  readonly plugin: ApolloServerPlugin<TContext>;
}
