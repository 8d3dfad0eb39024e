import type { Endpoint, PathParams } from '../upstream/endpoints';
import type { CacheEntry } from './cache/cache-entry';
import type { EconomyCaller, EconomyEvents } from './economy-types';
import { awaitJoined } from './queue/joined-wait';
import type { UpstreamPriority } from './queue/priority';
import type { QueueTicket } from './queue/queue-ticket';

/** What one flight learned on its way (for `EconomyEvents.upstreamRequest`). */
export interface FlightTrace {
  /** Where the answer came from: the upstream, the replicas' shared cache, or another replica's flight. */
  source: 'upstream' | 'shared' | 'replica';
  /** Time spent waiting for the key's budget and a slot, ms (all attempts). */
  budgetWaitMs: number;
  /** Retries sent after the first attempt. */
  retries: number;
}

/** What a GET of a written resource answers after the write, when the writer knows it. */
export interface WrittenResource {
  /** The GET that reads the written resource back. */
  endpoint: Endpoint;
  /** Its path parameters. */
  params: PathParams;
  /** Its answer body after the write. */
  body: unknown;
}

/** One GET on its way to the upstream: who started it, where to, and its queue ticket. */
export interface Flight {
  /** The caller that started it (its accounting pays for the requests). */
  caller: EconomyCaller;
  /** The endpoint and the path with its parameters. */
  endpoint: Endpoint;
  /** The path with its parameters. */
  path: string;
  /** The cache key (hashed key and path). */
  key: string;
  /** The flight's place in the key's queue (callers joining it may raise its priority). */
  ticket: QueueTicket;
  /** Filled in on the way. */
  trace: FlightTrace;
}

/** A new flight of `caller`, its trace empty. */
export function flightOf(
  caller: EconomyCaller,
  endpoint: Endpoint,
  path: string,
  key: string,
  ticket: QueueTicket,
): Flight {
  return { caller, endpoint, path, key, ticket, trace: { source: 'upstream', budgetWaitMs: 0, retries: 0 } };
}

/** The economy's settings and hooks a caller's wait for a flight uses (see {@link awaitFlight}). */
export interface FlightWaitParts {
  /** The economy's hooks (`rateLimited` when patience ran out). */
  events: EconomyEvents;
  /** The default patience of an operation, ms. */
  patienceMs: number;
  /** Clock, epoch ms. */
  now: () => number;
}

/**
 * How a caller waits for a flight: a write, a view or a stale refresh raises a joined
 * flight to its own priority; a view waits while the flight is queued at most its
 * patience, and a view holding stale data not at all once the budget makes the flight
 * wait (it answers with the stale data; the flight goes on).
 *
 * @throws the flight's error, or UpstreamError `RATE_LIMITED` when patience ran out while it was queued
 */
export function awaitFlight(
  parts: FlightWaitParts,
  caller: EconomyCaller,
  endpoint: Endpoint,
  flight: Promise<CacheEntry>,
  ticket: QueueTicket,
  priority: UpstreamPriority,
  watch: boolean,
): Promise<CacheEntry> {
  if (!watch || (priority !== 'operation' && priority !== 'stale')) {
    if (priority === 'write') ticket.raise(priority);
    return flight;
  }
  const onRateLimited = (): void => parts.events.rateLimited?.('budget');
  const patienceMs = priority === 'stale' ? 0 : (caller.patienceMs ?? parts.patienceMs);
  return awaitJoined(flight, ticket, endpoint, {
    priority,
    patienceMs,
    untilPlanned: priority === 'stale',
    now: parts.now,
    onRateLimited,
  });
}
