import type { DocumentNode, ExecutionArgs, ExecutionResult, GraphQLSchema } from 'graphql';
import { execute, GraphQLError, printSchema } from 'graphql';
import type { CompiledQuery } from 'graphql-jit';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { LRUCache } from 'lru-cache';

import { installLeanGatewayRequestContext } from './gateway-request-context';
import { afterLargeLists } from './large-lists';
import type { GatewayExecutionResult, GatewayGraphQLRequestContext, GatewayInterface } from './gateway-request-context';

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
  private readonly compiled = new LRUCache<DocumentNode, Map<string, CompiledQuery | null>>({ max: COMPILED_DOCUMENTS });

  /** @param schema - the executable schema, resolvers included */
  constructor(private readonly schema: GraphQLSchema) {}

  /** Executes one operation of Apollo's request pipeline (its gateway executor). */
  async execute(request: GatewayGraphQLRequestContext): Promise<GatewayExecutionResult> {
    return afterLargeLists(request.context, await this.run(request.document, request.operationName, request.context, request.request.variables));
  }

  /** Executes one operation: compiled when it has run before and compiles, else with graphql-js. */
  async run(document: DocumentNode, operationName: string | null | undefined, context: unknown, variables: Record<string, unknown> | null | undefined): Promise<ExecutionResult> {
    const compiled = this.compiledFor(document, operationName ?? null);
    if (compiled) {
      const result = await compiled.query(undefined, context, variables ?? {});
      if (result.data !== undefined || !result.errors?.length) return result.errors ? { ...result, errors: result.errors.map(asGraphQLError) } : result;
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
  const rebuilt = new GraphQLError(error.message, { path: error.path, originalError: original, extensions: error.extensions });
  // graphql-jit computed the locations from the document; graphql-js would from the nodes.
  Object.defineProperty(rebuilt, 'locations', { value: error.locations, enumerable: true, writable: true, configurable: true });
  return rebuilt;
}

/**
 * Apollo Server's hook for an executor of its own (the `gateway` option): serves the
 * schema as it is and executes every operation with {@link JitExecutor}. Apollo's request
 * pipeline (document store, validation, plugins, formatting) stays as it is, except that
 * the request context it hands the executor is built without a getter per request
 * ({@link installLeanGatewayRequestContext}).
 *
 * @param schema - the executable schema
 * @returns what `new ApolloServer({ gateway })` takes instead of `schema`
 */
export function jitGateway(schema: GraphQLSchema): GatewayInterface {
  installLeanGatewayRequestContext();
  const executor = new JitExecutor(schema);
  return {
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: printSchema(schema) });
      return () => undefined;
    },
    load: async () => ({ executor: (request) => executor.execute(request) }),
    stop: async () => undefined,
  };
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
  return (args) => executor.run(args.document, args.operationName, args.contextValue, args.variableValues as Record<string, unknown> | null | undefined);
}
