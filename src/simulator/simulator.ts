/**
 * HTTP server of the StateV REST API simulator (`node:http` only).
 *
 * - `/req/...`: the simulated API (see `routes.ts`), with optional latency and a per-key rate
 *   limit (10 per rolling 60 s unless told otherwise, see `rate-limit.ts`);
 *   every request is logged (never with its key).
 * - `GET /__sim/requests`: the request log as `{count, requests}` (optional `?route=` / `?keyLabel=` filters).
 * - `POST /__sim/reset`: clears the request log.
 * - `POST /__sim/fail-write`: fails the N-th option write from now (a JSON `WriteFailure`,
 *   e.g. `{"nth": 3, "status": 503}`; `null` disarms); 400 for a bad one.
 * - `POST /__sim/change`: applies one data change (a JSON `SimulatorChange`, see `live.ts`); 400 when it breaks the data's rules.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FIXTURE_KEYS, GENERATED_KEY_PATTERN, createFixtureState, generatedKey } from './fixtures';
import type { FixtureState, SimulatedApiKey } from './fixtures';
import { applyChange, ChangeError, startLive } from './live';
import type { LiveOptions, SimulatorChange } from './live';
import { DEFAULT_RATE_LIMIT, RateLimitWindows, validRateLimit } from './rate-limit';
import type { RateLimit } from './rate-limit';
import { errorBody, THROTTLER_MESSAGE } from './api-errors';
import { dispatchApiRequest } from './routes';

export type { RateLimit } from './rate-limit';

/** Options of {@link startSimulator}. */
export interface SimulatorOptions {
  /** TCP port; default 0 (an ephemeral port). */
  port?: number;
  /** Interface to bind; default `'127.0.0.1'`. */
  host?: string;
  /** Latency in ms added to every `/req` request before it is answered; default 0. */
  latencyMs?: number;
  /**
   * Per-key limit; over it the answer is 429 `ThrottlerException: Too Many Requests` with
   * `Retry-After` (whole seconds ≥ 1). Default: 10 requests per rolling 60 s, as the real
   * API is believed to allow; `'off'` turns it off.
   */
  rateLimit?: RateLimit | 'off';
  /** Send `Retry-After` with a 429. Default true; false leaves it out, as real clients must not rely on it. */
  retryAfterHeader?: boolean;
  /** Accept keys matching `/^sim-key-\d+$/` as premium keys with every scope for character 1 (label `'generated'`, secret `<key>-secret`). Default true. */
  allowGeneratedKeys?: boolean;
  /**
   * Extension for tests: additional keys (e.g. premium without an optional scope). Their `label`
   * appears in the request log. A key string equal to a built-in key replaces it.
   */
  extraKeys?: readonly SimulatedApiKey[];
  /** Live mode (`--live`): a random data change on a schedule, for subscriptions to report. Default off. */
  live?: LiveOptions | boolean;
  /** Fail the N-th option write from the start (`--fail-write N[:STATUS]`); see {@link Simulator.failWrite}. */
  failWrite?: WriteFailure;
}

/**
 * An injected failure of an option write (`POST /factory/options`): the `nth` write from
 * now (1 = the next) is not applied and answers `status` instead (429 with the throttler's
 * message, 500/502/503 with a server error), or with `'drop'` the connection is closed
 * without an answer (as if the process died mid-request). `count` writes fail from there
 * (default 1); the writes before and after are applied as usual.
 */
export interface WriteFailure {
  /** Which write fails, counted from when the failure is armed (1 = the next). */
  nth: number;
  /** The answer instead: a status, or `drop` to close the connection without one. */
  status: 429 | 500 | 502 | 503 | 'drop';
  /** How many writes fail from the `nth` on (default 1). */
  count?: number;
}

/** One entry of the request log. */
export interface SimulatedRequest {
  /** HTTP method, e.g. `'GET'`. */
  method: string;
  /** Path after `/req` including path parameters, without query, e.g. `'/factory/inventory/64f1…'`. */
  path: string;
  /** Route pattern, e.g. `'GET /factory/inventory/{id}'`, or `'UNKNOWN'` when no route matched. */
  route: string;
  /** `'premium' | 'basic' | 'other' | 'site' | 'merchant' | 'generated' | 'invalid' | 'none'` (or an extra key's label); never the key itself. */
  keyLabel: string;
  /** Status code of the answer. */
  status: number;
  /** Arrival time, `Date.now()` in ms. */
  at: number;
  /** Latency in ms applied to this request (extension of the spec, lets tests assert the latency without timing). */
  latencyMs: number;
}

/** A running simulator. */
export interface Simulator {
  /** `'http://HOST:PORT'`. */
  readonly origin: string;
  /** `origin + '/req'`: the base URL of the simulated API. */
  readonly baseUrl: string;
  /** Copy of the log of every `/req` request, in arrival order. */
  readonly requests: readonly SimulatedRequest[];
  /** Clears the request log. */
  resetRequests(): void;
  /** Number of logged requests matching all given filter fields (all when no filter). */
  countRequests(filter?: { route?: string; keyLabel?: string }): number;
  /** Sets the latency in ms for subsequent requests (≥ 0). */
  setLatency(ms: number): void;
  /** Sets or (with `'off'` or undefined) removes the per-key rate limit; clears the current windows. */
  setRateLimit(limit: RateLimit | 'off' | undefined): void;
  /** The per-key rate limit now, or undefined when off. */
  readonly rateLimit: RateLimit | undefined;
  /** Restores the fixtures (undoes option writes) and clears the log and the rate-limit windows. */
  reset(): void;
  /** Arms an injected write failure (what `POST /__sim/fail-write` does); `null` disarms it. */
  failWrite(failure: WriteFailure | null): void;
  /**
   * Applies one data change now (what `POST /__sim/change` does), e.g. a sale from the
   * store, so tests can change one thing at a time.
   *
   * @throws ChangeError when the change names nothing known or breaks the data's rules.
   */
  change(change: SimulatorChange): void;
  /** Stops the server, closing open (keep-alive) connections. */
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;

function validLatency(ms: number): number {
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`latency must be a finite number ≥ 0, got ${ms}`);
  return ms;
}

/** A write failure as given, checked (a bad one from the admin endpoint answers 400). */
function validWriteFailure(failure: WriteFailure): WriteFailure {
  const { nth, status, count = 1 } = failure ?? ({} as WriteFailure);
  if (!Number.isInteger(nth) || nth < 1) throw new RangeError('nth must be a whole number ≥ 1');
  if (!Number.isInteger(count) || count < 1) throw new RangeError('count must be a whole number ≥ 1');
  if (![429, 500, 502, 503, 'drop'].includes(status))
    throw new RangeError('status must be 429, 500, 502, 503 or "drop"');
  return { nth, status, count };
}

function readBody(req: IncomingMessage): Promise<{ text: string; tooLarge: boolean }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve({ text: Buffer.concat(chunks).toString('utf8'), tooLarge }));
    req.on('error', () => resolve({ text: '', tooLarge }));
  });
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  if (res.writableEnded || res.destroyed) return;
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(payload)),
    ...headers,
  });
  res.end(payload);
}

/**
 * Starts the simulator and resolves once it listens.
 *
 * @param options See {@link SimulatorOptions}.
 * @returns The running {@link Simulator}.
 */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const host = options.host ?? '127.0.0.1';
  const allowGenerated = options.allowGeneratedKeys ?? true;
  const keys = new Map<string, SimulatedApiKey>();
  for (const key of [...FIXTURE_KEYS, ...(options.extraKeys ?? [])]) keys.set(key.key, key);

  let state: FixtureState = createFixtureState();
  let latencyMs = validLatency(options.latencyMs ?? 0);
  let rateLimit = validRateLimit(options.rateLimit ?? DEFAULT_RATE_LIMIT);
  const retryAfterHeader = options.retryAfterHeader ?? true;
  let log: SimulatedRequest[] = [];
  let windows = rateLimit && new RateLimitWindows(rateLimit);
  const pending = new Set<NodeJS.Timeout>();
  let writeFailure: (WriteFailure & { seen: number }) | null = options.failWrite
    ? { ...validWriteFailure(options.failWrite), seen: 0 }
    : null;

  /** The injected answer for this request, if it is an option write that must fail. */
  const injected = (method: string, path: string): WriteFailure['status'] | null => {
    if (!writeFailure || method !== 'POST' || path.replace(/\/$/, '') !== '/factory/options') return null;
    writeFailure.seen += 1;
    const { nth, count = 1, status } = writeFailure;
    if (writeFailure.seen < nth) return null;
    if (writeFailure.seen >= nth + count - 1) writeFailure = null;
    return status;
  };

  const resolveKey = (token: string): SimulatedApiKey | undefined => {
    const known = keys.get(token);
    if (known !== undefined) return known;
    return allowGenerated && GENERATED_KEY_PATTERN.test(token) ? generatedKey(token) : undefined;
  };

  const checkRateLimit = (key: SimulatedApiKey, now: number): Readonly<Record<string, string>> | undefined => {
    const retryAfter = windows?.take(key.key, now);
    if (retryAfter === undefined) return undefined;
    return retryAfterHeader ? { 'Retry-After': String(retryAfter) } : {};
  };

  const handleApi = (req: IncomingMessage, res: ServerResponse, path: string, body: string, at: number): void => {
    const method = (req.method ?? 'GET').toUpperCase();
    const failure = injected(method, path);
    if (failure === 'drop') {
      log.push({ method, path, route: 'POST /factory/options', keyLabel: 'injected', status: 0, at, latencyMs: 0 });
      res.socket?.destroy();
      return;
    }
    if (failure !== null) {
      log.push({
        method,
        path,
        route: 'POST /factory/options',
        keyLabel: 'injected',
        status: failure,
        at,
        latencyMs: 0,
      });
      send(res, failure, errorBody(failure, failure === 429 ? THROTTLER_MESSAGE : 'injected failure (simulator)'));
      return;
    }
    const result = dispatchApiRequest(
      { method, path, authorization: req.headers.authorization, body, now: at },
      { state, resolveKey, rateLimit: checkRateLimit },
    );
    const delay = latencyMs;
    log.push({
      method,
      path,
      route: result.route,
      keyLabel: result.keyLabel,
      status: result.status,
      at,
      latencyMs: delay,
    });
    if (delay <= 0) {
      send(res, result.status, result.body, result.headers);
      return;
    }
    const timer = setTimeout(() => {
      pending.delete(timer);
      send(res, result.status, result.body, result.headers);
    }, delay);
    pending.add(timer);
  };

  const handleAdmin = (req: IncomingMessage, res: ServerResponse, url: URL, body: string): void => {
    const method = (req.method ?? 'GET').toUpperCase();
    if (method === 'POST' && url.pathname === '/__sim/change') {
      try {
        applyChange(state, JSON.parse(body) as SimulatorChange, Date.now());
        send(res, 200, { ok: true });
      } catch (error) {
        send(
          res,
          400,
          errorBody(
            400,
            error instanceof ChangeError || error instanceof SyntaxError ? error.message : 'invalid change',
          ),
        );
      }
      return;
    }
    if (method === 'GET' && url.pathname === '/__sim/requests') {
      const route = url.searchParams.get('route');
      const keyLabel = url.searchParams.get('keyLabel');
      const requests = log.filter(
        (r) => (route === null || r.route === route) && (keyLabel === null || r.keyLabel === keyLabel),
      );
      send(res, 200, { count: requests.length, requests });
      return;
    }
    if (method === 'POST' && url.pathname === '/__sim/fail-write') {
      try {
        const parsed = JSON.parse(body || 'null') as WriteFailure | null;
        writeFailure = parsed === null ? null : { ...validWriteFailure(parsed), seen: 0 };
        send(res, 200, { ok: true });
      } catch (error) {
        send(res, 400, errorBody(400, error instanceof Error ? error.message : 'invalid failure'));
      }
      return;
    }
    if (method === 'POST' && url.pathname === '/__sim/reset') {
      const cleared = log.length;
      log = [];
      send(res, 200, { ok: true, cleared });
      return;
    }
    send(res, 404, errorBody(404, `Cannot ${method} ${url.pathname}`));
  };

  const server: Server = createServer((req, res) => {
    const at = Date.now();
    void readBody(req).then(({ text, tooLarge }) => {
      const url = new URL(req.url ?? '/', 'http://simulator.invalid');
      const pathname = url.pathname;
      if (pathname === '/req' || pathname.startsWith('/req/')) {
        if (tooLarge) {
          send(res, 413, errorBody(413, 'request entity too large'));
          return;
        }
        handleApi(req, res, pathname.slice('/req'.length) || '/', text, at);
      } else if (pathname.startsWith('/__sim/')) {
        handleAdmin(req, res, url, text);
      } else {
        send(res, 404, errorBody(404, `Cannot ${(req.method ?? 'GET').toUpperCase()} ${pathname}`));
      }
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  let closed: Promise<void> | undefined;
  const stopLive = options.live ? startLive(() => state, options.live === true ? {} : options.live) : () => undefined;

  return {
    origin,
    baseUrl: `${origin}/req`,
    get requests(): readonly SimulatedRequest[] {
      return log.slice();
    },
    resetRequests(): void {
      log = [];
    },
    countRequests(filter: { route?: string; keyLabel?: string } = {}): number {
      return log.filter(
        (r) =>
          (filter.route === undefined || r.route === filter.route) &&
          (filter.keyLabel === undefined || r.keyLabel === filter.keyLabel),
      ).length;
    },
    setLatency(ms: number): void {
      latencyMs = validLatency(ms);
    },
    setRateLimit(limit: RateLimit | 'off' | undefined): void {
      rateLimit = validRateLimit(limit);
      windows = rateLimit && new RateLimitWindows(rateLimit);
    },
    get rateLimit(): RateLimit | undefined {
      return rateLimit;
    },
    change(change: SimulatorChange): void {
      applyChange(state, change, Date.now());
    },
    failWrite(failure: WriteFailure | null): void {
      writeFailure = failure === null ? null : { ...validWriteFailure(failure), seen: 0 };
    },
    reset(): void {
      writeFailure = null;
      state = createFixtureState();
      log = [];
      windows = rateLimit && new RateLimitWindows(rateLimit);
    },
    close(): Promise<void> {
      stopLive();
      closed ??= new Promise<void>((resolve) => {
        for (const timer of pending) clearTimeout(timer);
        pending.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
