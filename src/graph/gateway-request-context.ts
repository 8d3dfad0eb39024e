import { dirname, join } from 'node:path';
import type { ApolloServerOptionsWithGateway, BaseContext, HeaderMap, HTTPGraphQLHead } from '@apollo/server';

/** Apollo Server's hook for an executor of its own (`@apollo/server-gateway-interface`, as `@apollo/server` exports it). */
export type GatewayInterface = ApolloServerOptionsWithGateway<BaseContext>['gateway'];
type GatewayExecutor = NonNullable<Awaited<ReturnType<GatewayInterface['load']>>['executor']>;
/** What Apollo hands a gateway's executor: one request, parsed, validated, with its context. */
export type GatewayGraphQLRequestContext = Parameters<GatewayExecutor>[0];
/** What a gateway's executor answers: one execution result. */
export type GatewayExecutionResult = Awaited<ReturnType<GatewayExecutor>>;
/** The Fetch-style headers object of a gateway request context (`request.http.headers`, `response.http.headers`). */
type FetcherHeaders = NonNullable<NonNullable<GatewayGraphQLRequestContext['response']>['http']>['headers'];

/** The parts of Apollo's request context (as its request pipeline holds it at execution) a gateway request context is built from. */
interface ApolloRequestContext {
  request: { query?: string; operationName?: string; variables?: Record<string, unknown>; extensions?: Record<string, unknown>; http?: { method: string; headers: HeaderMap; search: string } };
  response: { http: HTTPGraphQLHead };
  schema: unknown;
  contextValue: unknown;
  queryHash: unknown;
  document: unknown;
  source: unknown;
  operationName: unknown;
  operation: unknown;
  errors: unknown;
  metrics: unknown;
  overallCachePolicy: unknown;
  requestIsBatched: unknown;
}

/** Apollo's `makeGatewayGraphQLRequestContext(requestContext, server, internals)`. */
type MakeGatewayGraphQLRequestContext = (
  requestContext: ApolloRequestContext,
  server: { logger: unknown; cache: unknown },
  internals: { includeStacktraceInErrorResponses?: boolean },
) => GatewayGraphQLRequestContext;

/** Apollo Server's module that builds the gateway request context, relative to its CommonJS entry point. */
const APOLLO_MODULE = 'utils/makeGatewayGraphQLRequestContext.js';

/**
 * An Apollo `HeaderMap` seen through the Fetch `Headers` methods a gateway request
 * context promises, as Apollo's own (unexported) `FetcherHeadersForHeaderMap`: names are
 * lower case in the map, `append` joins with `", "`, `get` answers null when absent.
 */
class HeaderMapHeaders {
  /** @param map - the request's or response's header map, read and written through */
  constructor(private readonly map: HeaderMap) {}
  /** Adds `value` to `name`'s value, joined with `", "`. */
  append(name: string, value: string): void {
    const known = this.map.get(name);
    this.map.set(name, known === undefined ? value : `${known}, ${value}`);
  }
  /** Removes `name`. */
  delete(name: string): void {
    this.map.delete(name);
  }
  /** `name`'s value, null when absent. */
  get(name: string): string | null {
    return this.map.get(name) ?? null;
  }
  /** Whether `name` is set. */
  has(name: string): boolean {
    return this.map.has(name);
  }
  /** Sets `name` to `value`. */
  set(name: string, value: string): void {
    this.map.set(name, value);
  }
  /** The `[name, value]` pairs. */
  entries(): IterableIterator<[string, string]> {
    return this.map.entries();
  }
  /** The names. */
  keys(): IterableIterator<string> {
    return this.map.keys();
  }
  /** The values. */
  values(): IterableIterator<string> {
    return this.map.values();
  }
  /** The `[name, value]` pairs. */
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.map.entries();
  }
}

/**
 * The response head of a gateway request context: `status` reads and writes the
 * operation's own response head. The accessor is on the class, not on each object. Why:
 * an object literal with a getter (Apollo's `{ get status() {…} }`) makes V8 allocate the
 * getter's pair in the old generation on every request, and that pair keeps the
 * getter's closure, Apollo's whole request context, the operation's loaders and its
 * result alive through every young-generation collection until the next full one: a
 * fifth of executing a dashboard was collecting them.
 */
class GatewayResponseHttp {
  /** The response's headers, written through to the operation's response head. */
  readonly headers: FetcherHeaders;

  /** @param head - the operation's response head (status and headers) */
  constructor(private readonly head: HTTPGraphQLHead) {
    this.headers = new HeaderMapHeaders(head.headers) as unknown as FetcherHeaders;
  }

  /** The operation's HTTP status, undefined until something sets one. */
  get status(): number | undefined {
    return this.head.status;
  }

  set status(status: number | undefined) {
    this.head.status = status;
  }
}

/**
 * The request context Apollo hands a gateway's executor, built as Apollo Server 5's
 * `makeGatewayGraphQLRequestContext` builds it (the same fields from the same places),
 * except that `response.http` is a {@link GatewayResponseHttp}.
 */
function leanGatewayRequestContext(
  requestContext: ApolloRequestContext,
  server: { logger: unknown; cache: unknown },
  internals: { includeStacktraceInErrorResponses?: boolean },
): GatewayGraphQLRequestContext {
  const source = requestContext.request;
  const request: Record<string, unknown> = {};
  if ('query' in source) request.query = source.query;
  if ('operationName' in source) request.operationName = source.operationName;
  if ('variables' in source) request.variables = source.variables;
  if ('extensions' in source) request.extensions = source.extensions;
  if (source.http) {
    const http = source.http;
    const needQuestion = http.search !== '' && !http.search.startsWith('?');
    request.http = { method: http.method, url: `https://unknown-url.invalid/${needQuestion ? '?' : ''}${http.search}`, headers: new HeaderMapHeaders(http.headers) };
  }
  return {
    request,
    response: { http: new GatewayResponseHttp(requestContext.response.http) },
    logger: server.logger,
    schema: requestContext.schema,
    schemaHash: 'schemaHash no longer exists since Apollo Server 4',
    context: requestContext.contextValue,
    cache: server.cache,
    queryHash: requestContext.queryHash,
    document: requestContext.document,
    source: requestContext.source,
    operationName: requestContext.operationName,
    operation: requestContext.operation,
    errors: requestContext.errors,
    metrics: requestContext.metrics,
    debug: internals.includeStacktraceInErrorResponses,
    overallCachePolicy: requestContext.overallCachePolicy,
    requestIsBatched: requestContext.requestIsBatched,
  } as unknown as GatewayGraphQLRequestContext;
}

/** Apollo Server's module exports holding `makeGatewayGraphQLRequestContext`, or null when this Apollo Server has no such module. */
function apolloGatewayModule(): { makeGatewayGraphQLRequestContext?: unknown } | null {
  try {
    const directory = dirname(require.resolve('@apollo/server'));
    // `require` by path: the module is not in Apollo's exports map, and the loader that
    // loaded Apollo's request pipeline (Node's, or Jest's registry) must hand out the same
    // module object that pipeline reads its export from.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const version: unknown = (require(join(directory, '..', '..', 'package.json')) as { version?: unknown }).version;
    if (typeof version !== 'string' || !version.startsWith('5.')) return null;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(join(directory, APOLLO_MODULE)) as { makeGatewayGraphQLRequestContext?: unknown };
  } catch {
    return null;
  }
}

/** Apollo's own builder, kept for comparison in tests; null until {@link installLeanGatewayRequestContext} replaced it. */
let apolloOriginal: MakeGatewayGraphQLRequestContext | null = null;

/**
 * Makes Apollo Server 5 build the request context it hands a gateway's executor (the
 * `gateway` option, which `jitGateway` uses to run graphql-jit) without a getter per
 * request (see {@link GatewayResponseHttp}): replaces the export its request pipeline
 * calls, `makeGatewayGraphQLRequestContext`, with one that builds the same object.
 *
 * When to use: once, before the first operation runs through a gateway executor
 * (`jitGateway` calls it). Idempotent. Why a replacement and not a fork: Apollo's request
 * pipeline reads the export at each call, and the object is Apollo's to define; the
 * replacement is made only for a 5.x Apollo Server whose module has the function with its
 * three parameters, so another version keeps its own (slower, equally correct).
 *
 * @returns true when Apollo's builder is (now) the lean one, false when this Apollo Server does not have it
 */
export function installLeanGatewayRequestContext(): boolean {
  const module = apolloGatewayModule();
  if (module === null) return false;
  const current = module.makeGatewayGraphQLRequestContext;
  if (current === leanGatewayRequestContext) return true;
  if (typeof current !== 'function' || current.length !== 3) return false;
  apolloOriginal = current as MakeGatewayGraphQLRequestContext;
  module.makeGatewayGraphQLRequestContext = leanGatewayRequestContext;
  return true;
}

/** For tests: Apollo's own builder (null before {@link installLeanGatewayRequestContext}) and the lean one. */
export const gatewayRequestContextBuilders = {
  /** Apollo Server's own `makeGatewayGraphQLRequestContext`, once replaced. */
  apollo: (): MakeGatewayGraphQLRequestContext | null => apolloOriginal,
  /** The replacement. */
  lean: leanGatewayRequestContext as MakeGatewayGraphQLRequestContext,
};
