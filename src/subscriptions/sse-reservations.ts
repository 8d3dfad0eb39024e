/**
 * Bounds on graphql-sse's reservations (single-connection mode).
 *
 * `PUT /graphql/stream` reserves an event stream: graphql-sse answers 201 with a token and
 * keeps an entry for it in a map inside its handler (a stream with its queue, iterator and
 * closures, about 2 KB), until a stream connects with that token and closes. A client that
 * reserves and never connects would keep that entry forever. Here a keyless PUT is answered
 * without graphql-sse: the reservation is a small record (its addresses and expiry) in one
 * Map, and graphql-sse's entry is made only when a request first names the token (its event
 * stream, or an operation posted to it). A PUT naming a token of its own goes to graphql-sse
 * as before. Every reservation not yet connected is recorded, in the order it was made (one
 * lifetime for all, so that is also the order they expire in, and one timer, for the oldest, is
 * enough): it expires after `SSE_RESERVATION_TTL_MS`, and there are at most
 * `SSE_RESERVATIONS_MAX_PER_ADDRESS` per client address, `SSE_RESERVATIONS_MAX_PER_PEER` per
 * socket peer (a proxy's address: a rotating `X-Forwarded-For` through it fills no more)
 * and `SSE_RESERVATIONS_MAX` in all (over a cap: HTTP 429, `RATE_LIMITED`). An expired reservation is freed in graphql-sse too
 * when it was made there: its stream is connected and closed at once internally, which is how graphql-sse itself
 * deletes a token, so a later request with that token fails as for any unknown token (404
 * `Stream not found`, or a stream of its own).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';

/** The header graphql-sse reads a reservation token from (or the `token` query parameter). */
const TOKEN_HEADER = 'x-graphql-event-stream-token';

/** The caps and lifetime of reservations (`SSE_RESERVATION_TTL_MS`, `SSE_RESERVATIONS_MAX_PER_ADDRESS`, `SSE_RESERVATIONS_MAX_PER_PEER`, `SSE_RESERVATIONS_MAX`). */
export interface SseReservationLimits {
  /** How long a reservation waits for its stream, ms. */
  ttlMs: number;
  /** Unconnected reservations per client address. */
  maxPerAddress: number;
  /** Unconnected reservations in all. */
  max: number;
  /**
   * Unconnected reservations per socket peer (`SSE_RESERVATIONS_MAX_PER_PEER`): behind a
   * trusted proxy every client comes from the proxy's address, and a forwarded address can
   * be made up, so one peer may not take the whole of {@link max} by rotating
   * `X-Forwarded-For`. Default {@link max}.
   */
  maxPerPeer?: number;
  /**
   * The client address of a request (the socket's, or the one a trusted proxy names:
   * `TRUSTED_PROXIES`); default the socket's.
   */
  addressOf?: (request: IncomingMessage) => string;
}

/** The part of graphql-sse's request that {@link SseReservations.authenticate} reads. */
interface TokenRequest {
  /** The request line's target. */
  url: string;
  /** Header lookup. */
  headers: { get(name: string): string | null | undefined };
  /** Node's request. */
  raw: IncomingMessage;
}

/** The token a graphql-sse request names, from its header or its `token` query parameter. */
function tokenOf(url: string | undefined, header: string | null | undefined): string | null {
  if (header) return header;
  return new URL(url ?? '/', 'http://gateway.invalid').searchParams.get('token');
}

/**
 * Frees graphql-sse's entry of `token` the way graphql-sse frees it itself: an event stream
 * connects with the token (a request of no socket) and closes before its first write. The
 * handler sees a response that is no longer writable, leaves its loop and returns the
 * stream's iterator, which deletes the token and ends the stream's operations.
 */
async function releaseSseToken(handler: GraphqlSseHandler, token: string): Promise<void> {
  await internalRequest(handler, 'GET', { accept: 'text/event-stream', [TOKEN_HEADER]: token });
}

/** graphql-sse's handler on `node:http` (the transport's, or graphql-sse's own `use/http`). */
type GraphqlSseHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * Makes graphql-sse's entry of `token` the way a client makes it: a PUT naming the token (a
 * request of no socket); the status graphql-sse answered (201, or 409 when it has one).
 */
async function reserveSseToken(handler: GraphqlSseHandler, token: string): Promise<number> {
  return internalRequest(handler, 'PUT', { accept: '*/*', [TOKEN_HEADER]: token });
}

/**
 * Sends `handler` a request of no socket and answers nothing: the response is not writable
 * (an event stream ends before its first write); the status it was given, or 0.
 */
async function internalRequest(
  handler: GraphqlSseHandler,
  method: string,
  headers: Record<string, string>,
): Promise<number> {
  // No socket: the client address reads as unknown (graphql-sse reads only the other members).
  const request = { method, url: '/graphql/stream', headers, socket: {} };
  let status = 0;
  const response = {
    writable: false,
    headersSent: true,
    writableEnded: true,
    writeHead: (code: number) => {
      status = code;
      return response;
    },
    once: () => response,
    off: () => response,
    end: (...args: unknown[]) => {
      const callback = args.find((arg): arg is () => void => typeof arg === 'function');
      callback?.();
    },
  };
  await handler(request as unknown as IncomingMessage, response as unknown as ServerResponse);
  return status;
}

/** One reservation not yet connected. */
interface Reservation {
  /** The client address that made it. */
  address: string;
  /** The socket peer it came from (the client, or the proxy that forwarded it). */
  peer: string;
  /** When it expires (`Date.now()` time), ms. */
  expiresAt: number;
  /** graphql-sse's entry of it: null until a request names the token, then its making. */
  made: Promise<unknown> | null;
}

/**
 * Expired reservations freed in one go; the rest follow after the event loop has served
 * I/O, so that thousands made in a burst, expiring together, never hold the loop long.
 */
const RELEASES_PER_TURN = 500;

/**
 * The record of graphql-sse reservations not yet connected, with their caps and expiry.
 * Give {@link authenticate} to graphql-sse's `createHandler` and route each
 * `/graphql/stream` request through {@link handle}.
 */
export class SseReservations {
  readonly #limits: SseReservationLimits;
  readonly #graphqlSse: GraphqlSseHandler;
  /** By token, oldest first (a Map keeps the order of insertion). */
  readonly #pending = new Map<string, Reservation>();
  /** The timer of the oldest reservation's expiry, or of the next releases. */
  #timer: NodeJS.Timeout | null = null;
  /** Reservations (recorded or being made) per address. */
  readonly #perAddress = new Map<string, number>();
  /** Reservations (recorded or being made) per socket peer. */
  readonly #perPeer = new Map<string, number>();
  /** PUTs between their admission and graphql-sse's answer. */
  #inFlight = 0;
  /** The token {@link authenticate} gave each PUT. */
  readonly #minted = new WeakMap<IncomingMessage, string>();

  /**
   * @param limits - lifetime and caps
   * @param graphqlSse - graphql-sse's handler, which makes a reservation's entry when its
   *   token is first named and frees that of an expired one ({@link releaseSseToken})
   */
  constructor(limits: SseReservationLimits, graphqlSse: GraphqlSseHandler) {
    this.#limits = limits;
    this.#graphqlSse = graphqlSse;
  }

  /** Reservations not yet connected. */
  get size(): number {
    return this.#pending.size;
  }

  /** Reservations not yet connected of one client address. */
  sizeOf(address: string): number {
    return this.#perAddress.get(address) ?? 0;
  }

  /**
   * graphql-sse's `authenticate` hook: the token of the request (header or `token` query
   * parameter), or a new random one (as graphql-sse's own hook makes), remembered for {@link handle}.
   */
  readonly authenticate = (req: TokenRequest): string => {
    const token = tokenOf(req.url, req.headers.get(TOKEN_HEADER)) ?? randomUUID();
    if (req.raw.method === 'PUT') this.#minted.set(req.raw, token);
    return token;
  };

  /**
   * Handles one `/graphql/stream` request around graphql-sse (`next`): refuses a PUT over a
   * cap with 429, records the reservation graphql-sse made (201), and takes a reservation off
   * the record when its event stream connects.
   */
  async handle(req: IncomingMessage, res: ServerResponse, next: () => Promise<void>): Promise<void> {
    if (req.method === 'PUT') {
      await this.#reserve(req, res, next);
      return;
    }
    const header = req.headers[TOKEN_HEADER];
    const token = tokenOf(req.url, Array.isArray(header) ? header.join('') : header);
    const reservation = token === null ? undefined : this.#pending.get(token);
    if (token !== null && reservation) {
      // Named for the first time: graphql-sse's entry is made now.
      reservation.made ??= reserveSseToken(this.#graphqlSse, token);
      await reservation.made;
      // Connected: graphql-sse deletes the token when this stream closes.
      if (req.headers.accept === 'text/event-stream') this.#take(token);
    }
    await next();
  }

  /** Forgets every reservation and stops the timer (graphql-sse's handler goes with the server). */
  close(): void {
    this.#pending.clear();
    this.#perAddress.clear();
    this.#perPeer.clear();
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  /** Records a reservation, `made` in graphql-sse already or not (a token given again starts anew, at the end). */
  #record(token: string, address: string, peer: string, made: Promise<unknown> | null): void {
    this.#take(token);
    this.#count(address, peer);
    this.#pending.set(token, { address, peer, expiresAt: Date.now() + this.#limits.ttlMs, made });
    this.#schedule();
  }

  /** Takes a reservation off the record without freeing it in graphql-sse (its stream connected). */
  #take(token: string): void {
    const reservation = this.#pending.get(token);
    if (!reservation) return;
    this.#pending.delete(token);
    this.#forget(reservation.address, reservation.peer);
  }

  /** Sets the timer for the oldest reservation, unless one is set or none is left. */
  #schedule(): void {
    if (this.#timer !== null) return;
    const oldest = this.#pending.values().next();
    if (oldest.done) return;
    const timer = setTimeout(() => this.#expire(), Math.max(0, oldest.value.expiresAt - Date.now()));
    timer.unref();
    this.#timer = timer;
  }

  /** Frees the expired reservations, up to {@link RELEASES_PER_TURN} now and the rest in the next turns; then waits for the next one. */
  #expire(): void {
    this.#timer = null;
    const now = Date.now();
    let released = 0;
    for (const [token, reservation] of this.#pending) {
      // A timer may fire a little early: the oldest is then waited for again.
      if (reservation.expiresAt > now) break;
      if (released === RELEASES_PER_TURN) {
        // The next timers phase: I/O is served in between.
        const timer = setTimeout(() => this.#expire(), 0);
        timer.unref();
        this.#timer = timer;
        return;
      }
      this.#take(token);
      released += 1;
      // Never named: graphql-sse has no entry of it.
      if (reservation.made)
        void reservation.made.then(() => releaseSseToken(this.#graphqlSse, token)).catch(() => undefined);
    }
    this.#schedule();
  }

  async #reserve(req: IncomingMessage, res: ServerResponse, next: () => Promise<void>): Promise<void> {
    const peer = req.socket.remoteAddress ?? 'unknown';
    const address = this.#limits.addressOf ? this.#limits.addressOf(req) : peer;
    const refusal = this.#refusal(address, peer);
    if (refusal) {
      const retryAfterSeconds = Math.max(1, Math.ceil(this.#limits.ttlMs / 1000));
      const text = JSON.stringify({
        errors: [
          {
            message: refusal.message,
            extensions: { code: 'RATE_LIMITED', limit: refusal.limit, max: refusal.max, retryAfterSeconds },
          },
        ],
      });
      res.writeHead(429, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(text),
        'retry-after': String(retryAfterSeconds),
      });
      res.end(text);
      return;
    }
    const header = req.headers[TOKEN_HEADER];
    const named = tokenOf(req.url, Array.isArray(header) ? header.join('') : header);
    const accept = req.headers.accept || '*/*';
    if (named === null && (accept === '*/*' || accept === 'text/plain')) {
      // graphql-sse's answer to a keyless PUT, without its entry (made when the token is first named).
      const token = randomUUID();
      this.#record(token, address, peer, null);
      res.writeHead(201, 'Created', { 'content-type': 'text/plain; charset=utf-8' });
      res.end(token);
      return;
    }
    if (named !== null && this.#pending.has(named)) {
      // As graphql-sse answers a token it holds.
      const text = JSON.stringify({ errors: [{ message: 'Stream already registered' }] });
      res.writeHead(409, 'Conflict', { 'content-type': 'application/json; charset=utf-8' });
      res.end(text);
      return;
    }
    // The slot is taken now (PUTs may interleave while graphql-sse answers), then given back
    // to the record's entry, or to nobody.
    this.#count(address, peer);
    this.#inFlight += 1;
    try {
      await next();
    } finally {
      this.#inFlight -= 1;
      this.#forget(address, peer);
    }
    const token = this.#minted.get(req);
    if (res.statusCode === 201 && token !== undefined) this.#record(token, address, peer, Promise.resolve());
  }

  /** Which cap a new reservation of `address` would break, if any. */
  #refusal(address: string, peer: string): { limit: string; max: number; message: string } | null {
    const { maxPerAddress, max, ttlMs } = this.#limits;
    const maxPerPeer = this.#limits.maxPerPeer ?? max;
    const wait = `Connect the reserved streams, or wait until they expire (SSE_RESERVATION_TTL_MS=${ttlMs}).`;
    if (this.sizeOf(address) >= maxPerAddress) {
      return {
        limit: 'SSE_RESERVATIONS_MAX_PER_ADDRESS',
        max: maxPerAddress,
        message: `Too many graphql-sse reservations (PUT /graphql/stream) from this address: ${maxPerAddress} are not connected yet (SSE_RESERVATIONS_MAX_PER_ADDRESS). ${wait}`,
      };
    }
    if (peer !== address && (this.#perPeer.get(peer) ?? 0) >= maxPerPeer) {
      return {
        limit: 'SSE_RESERVATIONS_MAX_PER_PEER',
        max: maxPerPeer,
        message: `Too many graphql-sse reservations (PUT /graphql/stream) through this proxy: ${maxPerPeer} are not connected yet (SSE_RESERVATIONS_MAX_PER_PEER). ${wait}`,
      };
    }
    if (this.#pending.size + this.#inFlight >= max) {
      return {
        limit: 'SSE_RESERVATIONS_MAX',
        max,
        message: `Too many graphql-sse reservations (PUT /graphql/stream) on this gateway: ${max} are not connected yet (SSE_RESERVATIONS_MAX). ${wait}`,
      };
    }
    return null;
  }

  /** Counts one reservation of `address` through `peer`. */
  #count(address: string, peer: string): void {
    this.#perAddress.set(address, this.sizeOf(address) + 1);
    this.#perPeer.set(peer, (this.#perPeer.get(peer) ?? 0) + 1);
  }

  #forget(address: string, peer: string): void {
    const count = this.sizeOf(address) - 1;
    if (count > 0) this.#perAddress.set(address, count);
    else this.#perAddress.delete(address);
    const ofPeer = (this.#perPeer.get(peer) ?? 0) - 1;
    if (ofPeer > 0) this.#perPeer.set(peer, ofPeer);
    else this.#perPeer.delete(peer);
  }
}
