import type {
  DocumentNode,
  ExecutionArgs,
  ExecutionResult,
  GraphQLError,
  GraphQLFormattedError,
  GraphQLSchema,
} from 'graphql';
import { execute, printSchema } from 'graphql';
import type { CompiledQuery } from 'graphql-jit';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { LRUCache } from 'lru-cache';
import { HeaderMap } from '@apollo/server';
import type {
  ApolloServerOptionsWithGateway,
  ApolloServerPlugin,
  BaseContext,
  GraphQLRequestContext,
  GraphQLResponse,
} from '@apollo/server';

import { errorOver } from '../../errors/gateway-error';
import { afterLargeLists } from './large-lists';

/** Apollo Server's public hook for an executor of its own (the `gateway` option, as `@apollo/server` exports its type). */
type GatewayInterface = ApolloServerOptionsWithGateway<BaseContext>['gateway'];

/** Documents whose compiled operations are kept, the least recently run dropped first. */
const COMPILED_DOCUMENTS = 500;

/**
 * Operations executed with `graphql-jit` (as `@envelop/graphql-jit` does): a document's
 * operation that runs again is compiled once into a function that executes it without
 * graphql-js's per-field interpretation, and later runs call that function. Apollo's
 * document store hands out the same parsed `DocumentNode` for the same query text, so
 * the compiled operations are kept by document: at most {@link COMPILED_DOCUMENTS}
 * documents (an LRU). A document run once (most one-off or hostile documents) is only
 * noted in a `WeakMap` (it goes with the document) and never compiled.
 *
 * Falls back to graphql-js's `execute`: for an operation graphql-jit cannot compile, and
 * for a run graphql-jit refused before executing anything (variables that do not coerce:
 * no data and errors), so that such answers are graphql-js's, word for word.
 */
class JitExecutor {
  /** Documents run once, with the operation names they ran. */
  private readonly ranOnce = new WeakMap<DocumentNode, Set<string>>();
  /** Compiled operations by document and operation name (null: does not compile). */
  private readonly compiled = new LRUCache<DocumentNode, Map<string, CompiledQuery | null>>({
    max: COMPILED_DOCUMENTS,
  });

  /** @param schema - the executable schema, resolvers included */
  constructor(private readonly schema: GraphQLSchema) {}

  /** Executes one operation: compiled when it has run before and compiles, else with graphql-js. */
  async run(
    document: DocumentNode,
    operationName: string | null | undefined,
    context: unknown,
    variables: Record<string, unknown> | null | undefined,
  ): Promise<ExecutionResult> {
    const compiled = this.compiledFor(document, operationName ?? null);
    if (compiled) {
      const result = await compiled.query(undefined, context, variables ?? {});
      if (result.data !== undefined || !result.errors?.length)
        return result.errors ? { ...result, errors: result.errors.map(asGraphQLError) } : result;
    }
    return execute({ schema: this.schema, document, contextValue: context, variableValues: variables, operationName });
  }

  private compiledFor(document: DocumentNode, operationName: string | null): CompiledQuery | null {
    const name = operationName ?? '';
    let byName = this.compiled.get(document);
    const known = byName?.get(name);
    if (known !== undefined) return known;
    let names = this.ranOnce.get(document);
    if (!names?.has(name)) {
      names ??= new Set();
      names.add(name);
      this.ranOnce.set(document, names);
      return null;
    }
    let compiled: CompiledQuery | ExecutionResult | null;
    try {
      compiled = compileQuery(this.schema, document, operationName ?? undefined);
    } catch {
      compiled = null;
    }
    if (!byName) {
      byName = new Map();
      this.compiled.set(document, byName);
    }
    const usable = compiled !== null && isCompiledQuery(compiled) ? compiled : null;
    byName.set(name, usable);
    return usable;
  }
}

/**
 * graphql-jit's error as graphql-js builds it: graphql-jit's own errors have no
 * `extensions` object when the error they wrap has none (Apollo reads its `code`), and a
 * null in a non-null field is an error of its own where graphql-js wraps a plain `Error`
 * (which the gateway's `formatError` masks). One difference stays: graphql-jit lists the
 * null-in-non-null errors after the others, graphql-js where they happened.
 */
function asGraphQLError(error: GraphQLError): GraphQLError {
  const original = error.originalError ?? new Error(error.message);
  // Its stack is the original's: no frames of its own are captured (see errorOver).
  const rebuilt = errorOver(error.message, {
    path: error.path,
    originalError: original,
    extensions: error.extensions,
  });
  // graphql-jit computed the locations from the document; graphql-js would from the nodes.
  Object.defineProperty(rebuilt, 'locations', {
    value: error.locations,
    enumerable: true,
    writable: true,
    configurable: true,
  });
  return rebuilt;
}

/** What {@link jitExecution} needs of Apollo Server's settings and of the gateway's other plugins. */
export interface JitExecutionOptions<TContext extends BaseContext> {
  /** Apollo's `formatError` (the gateway's `formatError`), applied to each error of an execution, as Apollo applies it. */
  readonly formatError: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;
  /** Apollo's `includeStacktraceInErrorResponses`: each error's stack in `extensions.stacktrace`. */
  readonly includeStacktraceInErrorResponses: boolean;
  /**
   * Called after each execution this plugin ran, before its response is sent: what the
   * other plugins do in `executionDidEnd` (Apollo calls no execution hook for an
   * operation a plugin answered), e.g. the cache policy from the upstream answers used.
   */
  readonly executed?: (requestContext: GraphQLRequestContext<TContext>) => void;
}

/** Apollo's error normalization (`enrichError`) before `formatError`: a GraphQL error's JSON with a `code`; `extensions.http` taken out into `http`. */
function enrichedError(
  error: GraphQLError,
  http: { status?: number; headers: HeaderMap },
  stacktrace: boolean,
): GraphQLFormattedError {
  const extensions: Record<string, unknown> = {
    ...error.extensions,
    code: error.extensions.code ?? 'INTERNAL_SERVER_ERROR',
  };
  const head = extensions.http as { status?: unknown; headers?: unknown } | undefined;
  if (
    head &&
    typeof head === 'object' &&
    (head.status === undefined || typeof head.status === 'number') &&
    (head.headers === undefined || head.headers instanceof Map)
  ) {
    if (typeof head.status === 'number') http.status = head.status;
    if (head.headers instanceof Map)
      for (const [name, value] of head.headers as Map<string, string>) http.headers.set(name, value);
    delete extensions.http;
  }
  if (stacktrace) extensions.stacktrace = error.stack?.split('\n');
  return { ...error.toJSON(), extensions };
}

/**
 * Executes Apollo Server's operations with {@link JitExecutor}, through Apollo's public
 * plugin hook `responseForOperation` (as Apollo's own response-cache plugin answers a
 * cached operation): Apollo's request pipeline (document store, validation, the other
 * plugins, formatting) stays as it is, nothing of Apollo is replaced or imported by path.
 * Place it after the response-cache plugin: a cache hit answers first.
 *
 * The answer is the one Apollo's own execution would give: each error formatted as Apollo
 * formats it (`extensions.code`, `INTERNAL_SERVER_ERROR` by default; `extensions.http`
 * into the response's status and headers; `formatError`). A run that executed nothing
 * (variables that do not coerce, no operation: no `data`) is left to Apollo (answers
 * null), whose graphql-js execution then gives its own answer, word for word.
 *
 * Why a plugin rather than only Apollo's `gateway` executor: Apollo builds the request
 * context it hands a gateway executor as an object literal with a getter over its whole
 * request context, which V8 allocates in the old generation on every request and which
 * then keeps every request (loaders, session, result) alive through young-generation
 * collections (see docs/performance.md, fifth round). The `gateway` interface is still
 * given to Apollo (its public `gateway` option, nothing patched): it executes what the
 * plugin leaves to Apollo, and a server in gateway mode answers response-cache hits with
 * a quarter of the promoted bytes of one given `schema` (measured, 3,000 warm hits:
 * 3.9 MB against 15 MB; the cause inside Apollo is not known).
 *
 * @param schema - the executable schema
 * @returns `gateway` (Apollo's option, in place of `schema`) and `plugin` (after the response-cache plugin)
 */
export function jitExecution<TContext extends BaseContext>(
  schema: GraphQLSchema,
  options: JitExecutionOptions<TContext>,
): { readonly gateway: GatewayInterface; readonly plugin: ApolloServerPlugin<TContext> } {
  const executor = new JitExecutor(schema);
  const listener = {
    responseForOperation: async (requestContext: GraphQLRequestContext<TContext>): Promise<GraphQLResponse | null> => {
      const { document, operationName, contextValue, request } = requestContext;
      if (!document || !requestContext.operation) return null;
      const result = await afterLargeLists(
        contextValue,
        await executor.run(document, operationName, contextValue, request.variables),
      );
      if (result.data === undefined) return null;
      const http = { status: undefined as number | undefined, headers: new HeaderMap() };
      const errors = result.errors?.map((error) => {
        try {
          return options.formatError(enrichedError(error, http, options.includeStacktraceInErrorResponses), error);
        } catch {
          return { message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } };
        }
      });
      options.executed?.(requestContext);
      // As Apollo's own execution: `errors` always set, undefined without errors.
      return { body: { kind: 'single', singleResult: { ...result, errors } }, http };
    },
  };
  const gateway: GatewayInterface = {
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: printSchema(schema) });
      return () => undefined;
    },
    // Only for what the plugin leaves to Apollo (a run that executed nothing): graphql-js's answer.
    load: async () => ({
      executor: async (request) =>
        executor.run(request.document, request.operationName, request.context, request.request.variables),
    }),
    stop: async () => undefined,
  };
  return { gateway, plugin: { requestDidStart: async () => listener } };
}

/**
 * An `execute` over `schema` with {@link JitExecutor} (for operations run outside Apollo's
 * pipeline, e.g. each run of a live query): an operation run again is compiled once by
 * graphql-jit, graphql-js runs the rest. Its own compiled operations, apart from Apollo's.
 *
 * @param schema - the executable schema
 * @returns runs an operation of `schema`'s; the `schema` of the arguments is not read
 */
export function jitExecute(schema: GraphQLSchema): (args: ExecutionArgs) => Promise<ExecutionResult> {
  const executor = new JitExecutor(schema);
  return (args) =>
    executor.run(
      args.document,
      args.operationName,
      args.contextValue,
      args.variableValues as Record<string, unknown> | null | undefined,
    );
}
