/**
 * The economy tests' own stack: the built-in simulator over real HTTP on 127.0.0.1, and
 * the gateway built with `createGatewayRuntime` (or `startGateway` for HTTP tests) with
 *
 * - a clock that reads the global `Date` on every call, so `jest.setSystemTime` moves
 *   the gateway (cache ages, cooldowns, budget) and the simulator (rate-limit windows)
 *   together;
 * - optionally an undici `MockAgent` overlay as the upstream dispatcher: requests that
 *   match an interceptor a test registered get its scripted answer (503, 429 with a
 *   `Retry-After` date, a connection error), everything else passes through to the
 *   simulator (net connect is allowed for the simulator's host only);
 * - every upstream request the client sends recorded as `attempts` (route and status),
 *   which counts what the gateway sent, also when a MockAgent interceptor answered it.
 */
import { Writable } from 'node:stream';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { MockAgent } from 'undici';
import type { Interceptable } from 'undici';
import { loadConfig } from '../../src/config';
import type { GatewayConfig } from '../../src/config';
import { createContext } from '../../src/context';
import { createGatewayRuntime, startGateway } from '../../src/server';
import type { Gateway, GatewayRuntime } from '../../src/server';
import { DEMO_KEYS, startSimulator } from '../../src/simulator';
import type { Simulator, SimulatorOptions } from '../../src/simulator';
import type { UpstreamObservation } from '../../src/upstream/client';
import type { Result } from '../support/stack';

/** The bearer key (`null` for none; default the premium demo key) and extra headers of one operation. */
export interface CallOptions {
  key?: string | null;
  headers?: Record<string, string>;
}

/** Options of {@link startEconomyStack}. */
export interface EconomyStackOptions {
  simulator?: SimulatorOptions;
  /** Overrides on top of the defaults (plus upstreamBaseUrl, a 5 s timeout, no retry delay and silent logs). */
  config?: Partial<GatewayConfig>;
  /** Put a MockAgent in front of the simulator (see the module comment). */
  mock?: boolean;
  /** Listen on 127.0.0.1:0 (`startGateway`) instead of building Apollo only. */
  http?: boolean;
  /** Where the gateway logs (set `config.logLevel` too). */
  logDestination?: Writable;
  /** Randomness for the retry jitter. */
  random?: () => number;
}

/** An HTTP answer of the gateway, unparsed and parsed. */
export interface HttpAnswer {
  status: number;
  text: string;
  body: Result<Record<string, unknown>>;
}

/** A running economy stack. */
export interface EconomyStack {
  simulator: Simulator;
  runtime: GatewayRuntime;
  config: GatewayConfig;
  /** The MockAgent overlay, or null without `mock`. */
  mockAgent: MockAgent | null;
  /** Every upstream request the gateway sent (finished), in order. */
  attempts: UpstreamObservation[];
  /** `http://127.0.0.1:PORT` with `http`, else null. */
  origin: string | null;
  /** Interceptors for requests to the simulator's origin (needs `mock`). */
  upstream(): Interceptable;
  /** Attempts of one route pattern, e.g. `GET /factory/counter/{id}`. */
  attemptsOf(route: string): UpstreamObservation[];
  /** Runs one operation through Apollo as a request with the given key and headers would. */
  execute<TData, TVariables extends Record<string, unknown>>(
    document: TypedDocumentNode<TData, TVariables>,
    variables?: TVariables,
    options?: CallOptions,
  ): Promise<Result<TData>>;
  /** Runs a query given as text (for documents codegen cannot type, e.g. deliberately too deep ones). */
  executeText(query: string, variables?: Record<string, unknown>, options?: CallOptions): Promise<Result<Record<string, unknown>>>;
  /** POSTs a GraphQL body to `/graphql` over HTTP (needs `http`). */
  post(body: unknown, options?: CallOptions): Promise<HttpAnswer>;
  /** GETs a path of the gateway over HTTP, e.g. `/metrics` (needs `http`). */
  get(path: string): Promise<{ status: number; text: string }>;
  close(): Promise<void>;
}

function headerMap(options: CallOptions): Map<string, string> {
  const headers = new Map<string, string>();
  const key = options.key === undefined ? DEMO_KEYS.premium.key : options.key;
  if (key !== null) headers.set('authorization', `Bearer ${key}`);
  for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name.toLowerCase(), value);
  return headers;
}

/** Starts the simulator and the gateway in front of it. Close it in `afterEach`/`afterAll`. */
export async function startEconomyStack(options: EconomyStackOptions = {}): Promise<EconomyStack> {
  const simulator = await startSimulator(options.simulator);
  const simulatorHost = new URL(simulator.origin).host;
  let mockAgent: MockAgent | null = null;
  if (options.mock) {
    mockAgent = new MockAgent();
    mockAgent.disableNetConnect();
    mockAgent.enableNetConnect(simulatorHost);
  }
  const config = loadConfig(
    {},
    {
      port: 0,
      host: '127.0.0.1',
      upstreamBaseUrl: simulator.baseUrl,
      upstreamTimeoutMs: 5000,
      upstreamRetryDelayMs: 0,
      logLevel: 'silent',
      // The whole-response cache (on by default) sits above the layer these tests prove.
      responseCacheEnabled: false,
      // No cache file: tests run in parallel and must not share (or leave) one.
      cacheFile: null,
      ...options.config,
    },
  );
  const gatewayOptions = {
    dispatcher: mockAgent ?? undefined,
    logDestination: options.logDestination,
    now: () => Date.now(),
    random: options.random,
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
  const attempts: UpstreamObservation[] = [];
  runtime.upstream.observe((observation) => attempts.push(observation));
  const origin = gateway?.url ?? null;

  const run = async <TData>(query: string | TypedDocumentNode<TData, Record<string, unknown>>, variables: Record<string, unknown> | undefined, call: CallOptions): Promise<Result<TData>> => {
    const response = await runtime.apollo.executeOperation(
      { query, variables },
      { contextValue: createContext(runtime.services, headerMap(call)) },
    );
    if (response.body.kind !== 'single') throw new Error('expected a single result');
    return response.body.singleResult as Result<TData>;
  };

  return {
    simulator,
    runtime,
    config,
    mockAgent,
    attempts,
    origin,
    upstream() {
      if (!mockAgent) throw new Error('start the stack with mock: true');
      return mockAgent.get(simulator.origin);
    },
    attemptsOf(route) {
      return attempts.filter((attempt) => attempt.route === route);
    },
    execute(document, variables, call = {}) {
      return run(document as TypedDocumentNode<never, Record<string, unknown>>, variables, call);
    },
    executeText(query, variables, call = {}) {
      return run<Record<string, unknown>>(query, variables, call);
    },
    async post(body, call = {}) {
      if (!origin) throw new Error('start the stack with http: true');
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      for (const [name, value] of headerMap(call)) headers[name] = value;
      const response = await fetch(`${origin}/graphql`, { method: 'POST', headers, body: JSON.stringify(body) });
      const text = await response.text();
      return { status: response.status, text, body: JSON.parse(text) as Result<Record<string, unknown>> };
    },
    async get(path) {
      if (!origin) throw new Error('start the stack with http: true');
      const response = await fetch(`${origin}${path}`);
      return { status: response.status, text: await response.text() };
    },
    async close() {
      try {
        if (gateway) {
          await gateway.stop();
        } else {
          await runtime.apollo.stop();
          await runtime.upstream.close();
        }
      } finally {
        await mockAgent?.close();
        await simulator.close();
      }
    },
  };
}

/**
 * Fakes only `Date` (every timer stays real, so sockets, undici and the simulator work
 * as usual) and sets it to `start`. Move it with {@link setClock}/{@link advanceClock};
 * end with `jest.useRealTimers()`.
 */
export function useFakeDate(start: number): void {
  jest.useFakeTimers({
    doNotFake: [
      'hrtime',
      'nextTick',
      'performance',
      'queueMicrotask',
      'requestAnimationFrame',
      'cancelAnimationFrame',
      'requestIdleCallback',
      'cancelIdleCallback',
      'setImmediate',
      'clearImmediate',
      'setInterval',
      'clearInterval',
      'setTimeout',
      'clearTimeout',
    ],
    now: start,
  });
}

/** Sets the faked `Date` to an absolute time. */
export function setClock(ms: number): void {
  jest.setSystemTime(ms);
}

/** Moves the faked `Date` forward. */
export function advanceClock(ms: number): void {
  jest.setSystemTime(Date.now() + ms);
}

/** A whole second, so that HTTP dates (second precision) are exact. */
export const T0 = Date.UTC(2025, 5, 1, 12, 0, 0);

/** One turn of the event loop (not a delay: it resolves as soon as pending I/O callbacks ran). */
export function turn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

/** Turns the event loop until `condition` holds; fails after `maxTurns` turns. */
export async function until(condition: () => boolean, what: string, maxTurns = 10_000): Promise<void> {
  for (let i = 0; i < maxTurns; i += 1) {
    if (condition()) return;
    await turn();
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** A stream for pino that keeps every line. */
export class LineCollector extends Writable {
  readonly lines: string[] = [];

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    for (const line of String(chunk).split('\n')) if (line.trim() !== '') this.lines.push(line);
    callback();
  }

  /** Every line parsed as JSON. */
  records(): Array<Record<string, unknown>> {
    return this.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  }
}

/** The `extensions.upstream` of a result (fails when missing). */
export function upstreamOf(result: Result<unknown>): { requests: number; cacheHits: number; coalesced: number; stale: number } {
  const upstream = result.extensions?.upstream;
  if (!upstream || typeof upstream !== 'object') throw new Error(`no extensions.upstream in ${JSON.stringify(result)}`);
  return upstream as { requests: number; cacheHits: number; coalesced: number; stale: number };
}

/** One `extensions.stale` entry. */
export interface StaleEntry {
  path: Array<string | number>;
  endpoint: string;
  ageSeconds: number;
  reason: string;
}

/** The `extensions.stale` of a result, or `[]`. */
export function staleOf(result: Result<unknown>): StaleEntry[] {
  return (result.extensions?.stale as StaleEntry[] | undefined) ?? [];
}

/** The error at a response path, e.g. `['factory', 'counter']`. */
export function errorAt(result: Result<unknown>, path: ReadonlyArray<string | number>): { code: unknown; extensions: Record<string, unknown> } | undefined {
  const error = (result.errors ?? []).find((e) => JSON.stringify(e.path) === JSON.stringify(path));
  return error ? { code: error.extensions?.code, extensions: error.extensions ?? {} } : undefined;
}

/** Paths of every `null` anywhere in a value. */
export function nullPaths(value: unknown, path = '$'): string[] {
  if (value === null) return [path];
  if (Array.isArray(value)) return value.flatMap((element, index) => nullPaths(element, `${path}[${index}]`));
  if (typeof value === 'object' && value !== undefined) {
    return Object.entries(value as Record<string, unknown>).flatMap(([key, element]) => nullPaths(element, `${path}.${key}`));
  }
  return [];
}

/** The upstream's JSON error body with JSON headers, as a MockAgent reply callback (`.reply(upstreamError(…))`). */
export function upstreamError(
  statusCode: number,
  message: string,
  error: string,
  headers: Record<string, string> = {},
): () => { statusCode: number; data: string; responseOptions: { headers: Record<string, string> } } {
  return () => ({
    statusCode,
    data: JSON.stringify({ statusCode, message, error }),
    responseOptions: { headers: { 'content-type': 'application/json; charset=utf-8', ...headers } },
  });
}
