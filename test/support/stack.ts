/**
 * Test stacks: the built-in simulator over real HTTP as the upstream, and the gateway
 * either as an Apollo server for `executeOperation` (resolver tests) or listening on
 * port 0 (end-to-end tests). No network beyond 127.0.0.1.
 */
import type { ApolloServer } from '@apollo/server';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { GraphQLFormattedError } from 'graphql';
import { loadConfig } from '../../src/config';
import type { GatewayConfig } from '../../src/config';
import { createContext } from '../../src/context';
import type { GatewayContext } from '../../src/context';
import { createGatewayRuntime, startGateway } from '../../src/server';
import type { Gateway, GatewayOptions, GatewayRuntime } from '../../src/server';
import { join } from 'node:path';
import type { DestinationStream } from 'pino';
import { DEMO_KEYS, startSimulator } from '../../src/simulator';
import type { Simulator, SimulatorOptions } from '../../src/simulator';
import type { UpstreamClient } from '../../src/upstream/client';

/**
 * Settings of public-site mode as the demo runs it: the premium demo key as the server's
 * key and the example company site's trusted-documents manifest.
 */
export function examplePublicSiteConfig(): Partial<GatewayConfig> {
  return {
    serverApiKey: DEMO_KEYS.premium.key,
    trustedDocumentsPath: join(__dirname, '..', '..', 'examples', 'company-site', 'generated', 'persisted-documents.json'),
  };
}

/** A GraphQL result with typed data. */
export interface Result<TData> {
  data?: TData | null;
  errors?: readonly GraphQLFormattedError[];
  extensions?: Record<string, unknown>;
}

/** Request options: the bearer key (`null` for none; default the premium demo key) and extra headers. */
export interface ExecuteOptions {
  key?: string | null;
  headers?: Record<string, string>;
}

/** Simulator + Apollo server, for resolver tests with `executeOperation`. */
export interface ResolverStack {
  simulator: Simulator;
  /** Apollo, client, economy, metrics, logger and the services contexts are built from. */
  runtime: GatewayRuntime;
  apollo: ApolloServer<GatewayContext>;
  upstream: UpstreamClient;
  /** Runs one operation as a request with the given key and headers would. */
  execute<TData, TVariables extends Record<string, unknown>>(
    document: TypedDocumentNode<TData, TVariables>,
    variables?: TVariables,
    options?: ExecuteOptions,
  ): Promise<Result<TData>>;
  close(): Promise<void>;
}

function headerMap(options: ExecuteOptions): Map<string, string> {
  const headers = new Map<string, string>();
  const key = options.key === undefined ? DEMO_KEYS.premium.key : options.key;
  if (key !== null) headers.set('authorization', `Bearer ${key}`);
  for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name.toLowerCase(), value);
  return headers;
}

/**
 * Starts a simulator and an (unstarted-HTTP) Apollo server pointed at it. The
 * whole-response cache is off unless `config.responseCacheEnabled` turns it on, so tests
 * see the upstream cache and coalescing underneath it; its own tests turn it on.
 */
export async function startResolverStack(
  options: { simulator?: SimulatorOptions; config?: Partial<GatewayConfig>; logDestination?: DestinationStream } = {},
): Promise<ResolverStack> {
  const simulator = await startSimulator(options.simulator);
  const config = loadConfig({}, { upstreamBaseUrl: simulator.baseUrl, upstreamTimeoutMs: 5000, logLevel: 'silent', responseCacheEnabled: false, cacheFile: null, ...options.config });
  const runtime = await createGatewayRuntime(config, { logDestination: options.logDestination });
  const { apollo, upstream } = runtime;
  await apollo.start();
  return {
    simulator,
    runtime,
    apollo,
    upstream,
    async execute(document, variables, execOptions = {}) {
      const response = await apollo.executeOperation(
        { query: document, variables },
        { contextValue: createContext(runtime.services, headerMap(execOptions)) },
      );
      if (response.body.kind !== 'single') throw new Error('expected a single result');
      return response.body.singleResult as Result<never>;
    },
    async close() {
      await apollo.stop();
      await upstream.close();
      await runtime.shared?.close();
      await simulator.close();
    },
  };
}

/** Simulator + gateway listening on 127.0.0.1 port 0, for end-to-end tests. */
export interface HttpStack {
  simulator: Simulator;
  gateway: Gateway;
  /** `http://127.0.0.1:PORT/graphql`. */
  endpoint: string;
  /** POSTs a GraphQL request as JSON; returns status, headers and parsed body. */
  post(body: unknown, options?: ExecuteOptions): Promise<{ status: number; headers: Headers; body: Result<Record<string, unknown>> }>;
  close(): Promise<void>;
}

/** Starts a simulator and the whole gateway over HTTP (response cache off unless `config` turns it on). */
export async function startHttpStack(
  options: { simulator?: SimulatorOptions; config?: Partial<GatewayConfig>; logDestination?: DestinationStream; gateway?: GatewayOptions } = {},
): Promise<HttpStack> {
  const simulator = await startSimulator(options.simulator);
  const config = loadConfig({}, { port: 0, host: '127.0.0.1', upstreamBaseUrl: simulator.baseUrl, upstreamTimeoutMs: 5000, logLevel: 'silent', responseCacheEnabled: false, cacheFile: null, ...options.config });
  const gateway = await startGateway(config, { logDestination: options.logDestination, ...options.gateway });
  const endpoint = `${gateway.url}/graphql`;
  return {
    simulator,
    gateway,
    endpoint,
    async post(body, postOptions = {}) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      for (const [name, value] of headerMap(postOptions)) headers[name] = value;
      const response = await fetch(endpoint, { method: 'POST', headers, body: JSON.stringify(body) });
      return { status: response.status, headers: response.headers, body: (await response.json()) as Result<Record<string, unknown>> };
    },
    async close() {
      await gateway.stop();
      await simulator.close();
    },
  };
}

/** The `extensions.code` of each error, in order. */
export function codes(result: Result<unknown>): string[] {
  return (result.errors ?? []).map((error) => String(error.extensions?.code));
}
