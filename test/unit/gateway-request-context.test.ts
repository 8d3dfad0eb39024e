/**
 * The request context Apollo hands a gateway's executor (src/graph/gateway-request-context.ts):
 * once `jitGateway` is made, Apollo's request pipeline builds it without a getter per
 * request (the accessor is on a class), with the same fields, headers and status as
 * Apollo Server's own builder, and a status the executor sets reaches the HTTP response.
 */
import { ApolloServer, HeaderMap } from '@apollo/server';
import type { ApolloServerOptionsWithGateway, BaseContext } from '@apollo/server';
import { buildSchema, parse } from 'graphql';
import { gatewayRequestContextBuilders, installLeanGatewayRequestContext } from '../../src/graph/gateway-request-context';
import type { GatewayGraphQLRequestContext } from '../../src/graph/gateway-request-context';
import { jitGateway } from '../../src/graph/jit-executor';

const schema = buildSchema('type Query { hello: String }');

/** One request context as Apollo's pipeline holds it at execution, with its own header maps and status. */
function apolloRequestContext(): Parameters<typeof gatewayRequestContextBuilders.lean>[0] {
  const requestHeaders = new HeaderMap([
    ['content-type', 'application/json'],
    ['x-trace', 'a'],
  ]);
  return {
    request: { query: '{ hello }', operationName: 'Hello', variables: { a: 1 }, http: { method: 'POST', headers: requestHeaders, search: 'x=1' } },
    response: { http: { status: undefined, headers: new HeaderMap([['cache-control', 'no-store']]) } },
    schema,
    contextValue: { who: 'context' },
    queryHash: 'hash',
    document: parse('{ hello }'),
    source: '{ hello }',
    operationName: 'Hello',
    operation: { kind: 'OperationDefinition' },
    errors: undefined,
    metrics: { captureTraces: false },
    overallCachePolicy: { maxAge: 0 },
    requestIsBatched: false,
  };
}

/** What a gateway request context shows its executor: every field, the headers as pairs, the status. */
function seen(context: GatewayGraphQLRequestContext): unknown {
  const { request, response, ...rest } = context;
  return {
    ...rest,
    request: { ...request, http: request.http ? { method: request.http.method, url: request.http.url, headers: [...request.http.headers] } : undefined },
    response: { status: response?.http?.status, headers: [...(response?.http?.headers ?? [])] },
  };
}

describe('the gateway request context', () => {
  beforeAll(() => {
    jitGateway(schema);
  });

  it('replaces Apollo Server 5’s builder once, and stays replaced', () => {
    expect(gatewayRequestContextBuilders.apollo()).toEqual(expect.any(Function));
    expect(installLeanGatewayRequestContext()).toBe(true);
    expect(installLeanGatewayRequestContext()).toBe(true);
  });

  it('has the fields, headers and status Apollo’s own builder gives', () => {
    const apollo = gatewayRequestContextBuilders.apollo();
    if (!apollo) throw new Error('Apollo’s builder was not replaced');
    const server = { logger: console, cache: { name: 'cache' } };
    for (const includeStacktraceInErrorResponses of [true, false]) {
      const theirs = apollo(apolloRequestContext(), server, { includeStacktraceInErrorResponses });
      const ours = gatewayRequestContextBuilders.lean(apolloRequestContext(), server, { includeStacktraceInErrorResponses });
      expect(seen(ours)).toEqual(seen(theirs));
    }
    // A request without variables, extensions or HTTP: the same fields are absent.
    const bare = { ...apolloRequestContext(), request: { query: '{ hello }' } };
    expect(Object.keys(gatewayRequestContextBuilders.lean(bare, server, {}).request)).toEqual(Object.keys(apollo(bare, server, {}).request));
  });

  it('writes status and headers through to the operation’s response head, with no getter of its own', () => {
    const source = apolloRequestContext();
    const context = gatewayRequestContextBuilders.lean(source, { logger: console, cache: {} }, {});
    const http = context.response?.http;
    if (!http) throw new Error('no response head');
    expect(Object.getOwnPropertyDescriptor(http, 'status')).toBeUndefined();
    http.status = 207;
    expect(source.response.http.status).toBe(207);
    source.response.http.status = 208;
    expect(http.status).toBe(208);
    http.headers.append('cache-control', 'private');
    http.headers.set('x-one', '1');
    http.headers.delete('x-gone');
    expect(source.response.http.headers.get('cache-control')).toBe('no-store, private');
    expect(http.headers.get('x-one')).toBe('1');
    expect(http.headers.get('x-none')).toBeNull();
    expect(http.headers.has('x-one')).toBe(true);
    expect([...(http.headers.keys() as IterableIterator<string>)]).toEqual(['cache-control', 'x-one']);
    expect([...(http.headers.values() as IterableIterator<string>)]).toEqual(['no-store, private', '1']);
    const requestHeaders = context.request.http?.headers;
    expect(requestHeaders?.get('x-trace')).toBe('a');
  });

  it('is what Apollo’s request pipeline hands a gateway’s executor', async () => {
    const received: GatewayGraphQLRequestContext[] = [];
    const gateway: ApolloServerOptionsWithGateway<BaseContext>['gateway'] = {
      onSchemaLoadOrUpdate(callback) {
        callback({ apiSchema: schema, coreSupergraphSdl: 'type Query { hello: String }' });
        return () => undefined;
      },
      load: async () => ({
        executor: async (request) => {
          received.push(request);
          if (request.response?.http) request.response.http.status = 203;
          return { data: { hello: 'world' } };
        },
      }),
      stop: async () => undefined,
    };
    const server = new ApolloServer({ gateway });
    await server.start();
    try {
      const response = await server.executeOperation({ query: '{ hello }' });
      expect(response.body.kind === 'single' ? response.body.singleResult.data : null).toEqual({ hello: 'world' });
      expect(response.http.status).toBe(203);
      expect(received).toHaveLength(1);
      const http = received[0]?.response?.http;
      expect(http && Object.getOwnPropertyDescriptor(http, 'status')).toBeUndefined();
    } finally {
      await server.stop();
    }
  });
});
