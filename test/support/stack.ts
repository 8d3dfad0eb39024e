/**
 * The one test stack: the built-in simulator over real HTTP on 127.0.0.1 as the
 * upstream, and the gateway in front of it, either as an Apollo server for
 * `executeOperation` (resolver tests) or listening on port 0 (`http: true`, end-to-end
 * tests). Options:
 *
 * - `mock: true`: an undici `MockAgent` overlay as the upstream dispatcher. Requests
 *   that match an interceptor a test registered (`stack.upstream().intercept(…)`) get its
 *   scripted answer (503, 429 with a `Retry-After` date, a connection error); everything
 *   else passes through to the simulator (net connect is allowed for its host only). Its
 *   call history (`stack.upstreamCalls()`) holds every request the gateway sent, with
 *   method, path, headers and body.
 * - `fakeDate: T`: only `Date` is faked, starting at T (see clock.ts); the gateway's clock
 *   reads the global `Date` on every call, so `setClock`/`advanceClock` move the gateway
 *   (cache ages, cooldowns, budget) and the simulator (rate-limit windows) together.
 *   Without it the clock is real.
 * - `redis: TestRedis` (see redis.ts): the gateway shares that Redis, under a prefix of
 *   its own unless `config.redisPrefix` sets one; the stack starts once Redis answers.
 * - `simulator`: options for a new simulator, or a running one to share (not closed by the stack).
 *   A new one has the per-key rate limit off unless the options set `rateLimit` (see
 *   `upstream-limit.ts`).
 * - `gateway`: further gateway options, e.g. a `ManualClock` (poll-clock.ts) for the
 *   subscription pollers and cache ages.
 *
 * Every upstream request the client sends is recorded in `attempts` (route and status),
 * also when a MockAgent interceptor answered it. No network beyond 127.0.0.1.
 */
import { join } from 'node:path';
import type { ApolloServer } from '@apollo/server';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { DestinationStream } from 'pino';
import { MockAgent } from 'undici';
import type { Interceptable, MockCallHistoryLog } from 'undici';
import { loadConfig } from '../../src/config';
import type { GatewayConfig } from '../../src/config';
import { createContext } from '../../src/context';
import { readCredential } from '../../src/pipeline/credential';
import { callerKey } from '../../src/pipeline/key-in-use';
import type { GatewayContext } from '../../src/context';
import { createGatewayRuntime } from '../../src/runtime';
import type { GatewayRuntime } from '../../src/runtime';
import type { GatewayStartOptions } from '../../src/server';
import { startGateway } from '../../src/server';
import type { Gateway } from '../../src/server';
import { DEMO_KEYS, startSimulator } from '../../src/simulator';
import type { Simulator, SimulatorOptions } from '../../src/simulator';
import { testSimulatorOptions } from './upstream-limit';
import type { UpstreamObservation } from '../../src/upstream/client';
import { useFakeDate } from './clock';
import { TEST_REDIS_TIMEOUT_MS } from './redis';
import type { TestRedis } from './redis';
import type { Result } from './results';

export type { Result } from './results';
export { codes } from './results';

/** The bearer key of one operation (`null` for none; default the premium demo key) and extra headers. */
export interface CallOptions {
  key?: string | null;
  headers?: Record<string, string>;
}

/** Options of {@link startStack}. */
export interface StackOptions {
  /** Options for a new simulator, or a running simulator to use (the stack does not close it). */
  simulator?: SimulatorOptions | Simulator;
  /** Overrides on top of the test defaults (see {@link testConfig}). */
  config?: Partial<GatewayConfig>;
  /** Listen on 127.0.0.1:0 (`startGateway`) instead of building the runtime only. */
  http?: boolean;
  /** Put a MockAgent (with call history) in front of the simulator (see the module comment). */
  mock?: boolean;
  /** Fake `Date` from this time on (see the module comment); `close()` restores real timers. */
  fakeDate?: number;
  /** A Redis the gateway shares (see the module comment). */
  redis?: TestRedis;
  /** Where the gateway logs (set `config.logLevel` too, e.g. `'info'`). */
  logDestination?: DestinationStream;
  /** Randomness for the retry jitter. */
  random?: () => number;
  /** Further gateway options, applied last (e.g. `{ now: clock.now, pollClock: clock }` with a `ManualClock`). */
  gateway?: GatewayStartOptions;
}

/** An HTTP answer of the gateway: status, headers, text and the text parsed as a GraphQL result. */
export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
  body: Result<Record<string, unknown>>;
}

/** A running stack. */
export interface Stack {
  simulator: Simulator;
  config: GatewayConfig;
  /** Apollo, upstream client, economy, metrics, logger and the services contexts are built from. */
  runtime: GatewayRuntime;
  /** `runtime.apollo`. */
  apollo: ApolloServer<GatewayContext>;
  /** The listening gateway with `http`, else null. */
  gateway: Gateway | null;
  /** `http://127.0.0.1:PORT` with `http`, else null. */
  origin: string | null;
  /** `http://127.0.0.1:PORT/graphql` with `http`, else null. */
  endpoint: string | null;
  /** The MockAgent overlay with `mock`, else null. */
  mockAgent: MockAgent | null;
  /** Every upstream request the gateway sent (finished), in order. */
  attempts: UpstreamObservation[];
  /** Attempts of one route pattern, e.g. `GET /factory/counter/{id}`. */
  attemptsOf(route: string): UpstreamObservation[];
  /** Interceptors for requests to the simulator's origin (needs `mock`). */
  upstream(): Interceptable;
  /** Every request the gateway sent through the MockAgent, with headers and body (needs `mock`). */
  upstreamCalls(): MockCallHistoryLog[];
  /** Runs one operation through Apollo's `executeOperation` as a request with the given key and headers would. */
  execute<TData, TVariables extends Record<string, unknown>>(
    document: TypedDocumentNode<TData, TVariables>,
    variables?: TVariables,
    options?: CallOptions,
  ): Promise<Result<TData>>;
  /** Runs a query given as text (for documents codegen cannot type, e.g. deliberately too deep ones). */
  executeText(
    query: string,
    variables?: Record<string, unknown>,
    options?: CallOptions,
  ): Promise<Result<Record<string, unknown>>>;
  /** POSTs a GraphQL body as JSON to `/graphql` over HTTP (needs `http`). */
  post(body: unknown, options?: CallOptions): Promise<HttpAnswer>;
  /** GETs a path of the gateway over HTTP, e.g. `/metrics` (needs `http`). */
  get(path: string, headers?: Record<string, string>): Promise<{ status: number; headers: Headers; text: string }>;
  /** Stops the gateway, the MockAgent and the simulator it started; restores real timers after `fakeDate`. */
  close(): Promise<void>;
}

/** A stack started with `http: true`. */
export interface HttpStack extends Stack {
  gateway: Gateway;
  origin: string;
  endpoint: string;
}

/**
 * Settings of public-site mode as the demo runs it: the premium demo key as the server's
 * key and the example company site's trusted-documents manifest.
 */
export function examplePublicSiteConfig(): Partial<GatewayConfig> {
  return {
    serverApiKey: DEMO_KEYS.premium.key,
    trustedDocumentsPath: join(
      __dirname,
      '..',
      '..',
      'examples',
      'company-site',
      'generated',
      'persisted-documents.json',
    ),
  };
}

/** Request headers of one operation: the bearer key and the extras, lower-cased names. */
export function headerMap(options: CallOptions = {}): Map<string, string> {
  const headers = new Map<string, string>();
  const key = options.key === undefined ? DEMO_KEYS.premium.key : options.key;
  if (key !== null) headers.set('authorization', `Bearer ${key}`);
  for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name.toLowerCase(), value);
  return headers;
}

/**
 * The tests' gateway settings: the defaults, with port 0 on 127.0.0.1, the given
 * upstream, no retry delay, a 30 s wait for a per-key slot, a 10 s Redis command timeout
 * (see `TEST_REDIS_TIMEOUT_MS`), silent logs, no cache file, no refresh-ahead, and the whole-response
 * cache off (it sits above the upstream cache and coalescing most tests prove; its own
 * tests turn it on), then `overrides`.
 */
export function testConfig(upstreamBaseUrl: string, overrides: Partial<GatewayConfig> = {}): GatewayConfig {
  return loadConfig(
    {},
    {
      port: 0,
      host: '127.0.0.1',
      upstreamBaseUrl,
      upstreamRetryDelayMs: 0,
      // Long enough that a loaded machine never turns a wait for a per-key slot into RATE_LIMITED
      // (tests of that wait set their own).
      upstreamPatienceMs: 30_000,
      logLevel: 'silent',
      responseCacheEnabled: false,
      // No cache file: tests run in parallel and must not share (or leave) one.
      cacheFile: null,
      // Payment requests in memory, for the same reason (restart tests name a file of their own).
      paymentsFile: null,
      // No refresh-ahead: it would add background requests to what tests count (refresh-ahead*.test.ts turn it on).
      refreshAheadShare: 0,
      // No per-key budget, as the simulator has no limit (see upstream-limit.ts); tests of the budget set their own.
      upstreamRateLimit: null,
      redisTimeoutMs: TEST_REDIS_TIMEOUT_MS,
      ...overrides,
    },
  );
}

let redisPrefixes = 0;

function isSimulator(value: SimulatorOptions | Simulator | undefined): value is Simulator {
  return value !== undefined && 'baseUrl' in value;
}

/** Starts a stack (see the module comment). Close it in `afterEach`/`afterAll`. */
export async function startStack(options: StackOptions & { http: true }): Promise<HttpStack>;
export async function startStack(options?: StackOptions): Promise<Stack>;
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  if (options.fakeDate !== undefined) useFakeDate(options.fakeDate);
  const ownSimulator = !isSimulator(options.simulator);
  const simulator = isSimulator(options.simulator)
    ? options.simulator
    : await startSimulator(testSimulatorOptions(options.simulator));
  let mockAgent: MockAgent | null = null;
  if (options.mock) {
    mockAgent = new MockAgent({ enableCallHistory: true });
    mockAgent.disableNetConnect();
    mockAgent.enableNetConnect(new URL(simulator.origin).host);
  }
  redisPrefixes += 1;
  const config = testConfig(simulator.baseUrl, {
    ...(options.redis
      ? { redisUrl: options.redis.url, redisPrefix: `statev-test-${process.pid}-${redisPrefixes}:` }
      : {}),
    ...options.config,
  });
  const gatewayOptions = {
    dispatcher: mockAgent ?? undefined,
    logDestination: options.logDestination,
    now: () => Date.now(),
    random: options.random,
    ...options.gateway,
  };
  let gateway: Gateway | null = null;
  let runtime: GatewayRuntime;
  if (options.http) {
    gateway = await startGateway(config, gatewayOptions);
    runtime = gateway;
  } else {
    runtime = await createGatewayRuntime(config, gatewayOptions);
    await runtime.apollo.start();
  }
  if (options.redis) await runtime.shared?.whenUp();
  const attempts: UpstreamObservation[] = [];
  runtime.upstream.observe((observation) => attempts.push(observation));
  const origin = gateway?.url ?? null;
  const needHttp = (): string => {
    if (origin === null) throw new Error('start the stack with http: true');
    return origin;
  };
  const needMock = (): MockAgent => {
    if (mockAgent === null) throw new Error('start the stack with mock: true');
    return mockAgent;
  };

  const run = async <TData>(
    query: string | TypedDocumentNode<TData, Record<string, unknown>>,
    variables: Record<string, unknown> | undefined,
    call: CallOptions,
  ): Promise<Result<TData>> => {
    const response = await runtime.apollo.executeOperation(
      { query, variables },
      {
        contextValue: createContext(
          runtime.services,
          headerMap(call),
          callerKey(readCredential(headerMap(call).get('authorization')), runtime.services.config.keyHashSecret),
        ),
      },
    );
    if (response.body.kind !== 'single') throw new Error('expected a single result');
    return response.body.singleResult as Result<TData>;
  };

  return {
    simulator,
    config,
    runtime,
    apollo: runtime.apollo,
    gateway,
    origin,
    endpoint: origin === null ? null : `${origin}/graphql`,
    mockAgent,
    attempts,
    attemptsOf: (route) => attempts.filter((attempt) => attempt.route === route),
    upstream: () => needMock().get(simulator.origin),
    upstreamCalls: () => needMock().getCallHistory()?.calls() ?? [],
    execute: (document, variables, call = {}) =>
      run(document as TypedDocumentNode<never, Record<string, unknown>>, variables, call),
    executeText: (query, variables, call = {}) => run<Record<string, unknown>>(query, variables, call),
    async post(body, call = {}) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      for (const [name, value] of headerMap(call)) headers[name] = value;
      const response = await fetch(`${needHttp()}/graphql`, { method: 'POST', headers, body: JSON.stringify(body) });
      const text = await response.text();
      let parsed: Result<Record<string, unknown>>;
      try {
        parsed = JSON.parse(text) as Result<Record<string, unknown>>;
      } catch {
        throw new Error(`expected a JSON body, got HTTP ${response.status}: ${text}`);
      }
      return { status: response.status, headers: response.headers, text, body: parsed };
    },
    async get(path, headers = {}) {
      const response = await fetch(`${needHttp()}${path}`, { headers });
      return { status: response.status, headers: response.headers, text: await response.text() };
    },
    async close() {
      try {
        if (gateway) {
          await gateway.stop();
        } else {
          await runtime.apollo.stop();
          await runtime.upstream.close();
          await runtime.shared?.close();
          await runtime.vault?.close();
          await runtime.payments.close();
        }
      } finally {
        await mockAgent?.close();
        if (ownSimulator) await simulator.close();
        if (options.fakeDate !== undefined) jest.useRealTimers();
      }
    },
  };
}
