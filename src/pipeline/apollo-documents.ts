/**
 * How a document the request pipeline parsed and validated over HTTP reaches Apollo Server
 * without Apollo parsing or validating it again: Apollo's public `documentStore` option.
 */
import { createHash } from 'node:crypto';
import type { BaseContext } from '@apollo/server';
import { InMemoryLRUCache } from '@apollo/utils.keyvaluecache';
import type { KeyValueCache } from '@apollo/utils.keyvaluecache';
import type { DocumentNode, GraphQLError, OperationDefinitionNode, ParseOptions, ValidationRule } from 'graphql';
import { documentHeapBytes } from '../graph/validation/document-heap';
import type { ActiveToken } from '../vault';
import type { ApolloPipelineOptions } from './pipeline-types';
import type { OperationState } from './step-types';

/** Characters of a sha256 in hex: the end of Apollo's document store key. */
const SHA256_HEX_LENGTH = 64;

/** sha256 of each prepared document's query text, in hex (Apollo's `queryHash`), computed once per document. */
const queryHashes = new WeakMap<DocumentNode, string>();

/** sha256 of `query` in hex, as Apollo computes its `queryHash`; remembered for `document`, parsed from `query`. */
export function queryHashOf(document: DocumentNode, query: string): string {
  let hash = queryHashes.get(document);
  if (hash === undefined) queryHashes.set(document, (hash = createHash('sha256').update(query).digest('hex')));
  return hash;
}

/**
 * Apollo Server's `documentStore`: the documents the pipeline prepared for the HTTP
 * requests in flight (held by {@link hold} until the request is answered), and Apollo's own
 * parsed and validated documents for the requests it parses itself (`executeOperation`,
 * in tests: see `RequestPipeline`), bounded by `maxBytes`.
 *
 * Apollo Server 5 looks a document up under `documentStoreKeyPrefix + queryHash`, where
 * `queryHash` is the sha256 hex of the query text, and skips BOTH its parse and its
 * validation when it finds one. This store relies on that key shape: {@link get} matches a
 * held document on the key's last 64 characters. Should Apollo change it, a held document
 * is not found and Apollo parses and validates again (the same answer, more work), which
 * test/pipeline/apollo-documents.test.ts catches.
 */
export class ApolloDocumentStore implements KeyValueCache<DocumentNode> {
  /** The prepared documents of the requests in flight, by query hash, with how many requests hold each. */
  private readonly held = new Map<string, { document: DocumentNode; holders: number }>();
  /** Apollo's own documents (see the class comment), by Apollo's key. */
  private readonly own: InMemoryLRUCache<DocumentNode>;

  /** @param maxBytes - most bytes of Apollo's own documents (their estimated heap, `documentHeapBytes`) */
  constructor(maxBytes: number) {
    this.own = new InMemoryLRUCache<DocumentNode>({ maxSize: maxBytes, sizeCalculation: documentHeapBytes });
  }

  /** Holds `document` (prepared from a text of sha256 `queryHash`) for Apollo until the returned function is called. */
  hold(queryHash: string, document: DocumentNode): () => void {
    const entry = this.held.get(queryHash);
    if (entry === undefined) this.held.set(queryHash, { document, holders: 1 });
    else entry.holders += 1;
    return () => {
      const current = this.held.get(queryHash);
      if (current === undefined) return;
      current.holders -= 1;
      if (current.holders === 0) this.held.delete(queryHash);
    };
  }

  /** Apollo's lookup: a held document by the key's trailing query hash, else one of Apollo's own. */
  get(key: string): Promise<DocumentNode | undefined> {
    const held = this.held.get(key.slice(-SHA256_HEX_LENGTH));
    return held !== undefined ? Promise.resolve(held.document) : this.own.get(key);
  }

  /** Apollo stores a document it parsed and validated itself. */
  set(key: string, document: DocumentNode): Promise<void> {
    return this.own.set(key, document);
  }

  /** Forgets one of Apollo's own documents. */
  delete(key: string): Promise<boolean> {
    return this.own.delete(key);
  }
}

/** What the Apollo plugin reads of a request's context: its access token, and the `operation` steps that passed before Apollo. */
export interface ApolloContext {
  /** The access token the request came with, if any. */
  readonly token?: ActiveToken;
  /** Set by the HTTP handler when every `operation` step passed in `prepareAdmitted`: the operation and the variables they kept. */
  readonly passedSteps?: {
    readonly operation: OperationDefinitionNode;
    readonly variables: Record<string, unknown> | undefined;
  };
}

/**
 * Apollo Server's options for the `parse`, `validate` and `operation` phases (see
 * `RequestPipeline.apolloOptions`): the parse options and rules for the requests Apollo
 * parses itself, the document store, and one plugin that runs the `operation` steps in
 * `didResolveOperation`, except for a request whose steps passed in `prepareAdmitted`
 * (its context's `passedSteps`): it only gets the variables they kept.
 *
 * @param runOperationPhase - the pipeline's `operation` phase: the first error, or null
 */
export function apolloPhases<TContext extends BaseContext & ApolloContext>(
  parseOptions: ParseOptions,
  validationRules: ValidationRule[],
  documentStore: ApolloDocumentStore,
  runOperationPhase: (state: OperationState) => { error: GraphQLError } | null,
): Omit<ApolloPipelineOptions<TContext>, 'persistedQueries'> {
  return {
    parseOptions,
    validationRules,
    documentStore,
    plugin: {
      requestDidStart: async () => ({
        didResolveOperation: async ({ document, operation, request, queryHash, contextValue }) => {
          if (!operation) return;
          const prepared = contextValue.passedSteps;
          if (prepared?.operation === operation) {
            // `operation-shape` kept only the declared variables: so does the executor.
            if (request.variables) request.variables = prepared.variables;
            return;
          }
          const token = contextValue.token;
          const state: OperationState = {
            transport: 'http',
            document,
            operation,
            variables: request.variables,
            queryHash,
            ...(token ? { token } : {}),
          };
          const failed = runOperationPhase(state);
          if (failed) throw failed.error;
          if (request.variables) request.variables = state.variables;
        },
      }),
    },
  };
}
