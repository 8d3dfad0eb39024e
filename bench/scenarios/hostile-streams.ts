/**
 * The hostile scenario's attacks on open streams (hostile.ts runs
 * them with the others and measures `/healthz`, the event-loop p99 and RSS the same way):
 *
 * - `sse-slow-readers-50`: 50 graphql-sse clients (one key) on one live query of a
 *   company list of about 290 KB (the largest under the upstream body limit, ids and names)
 *   whose data changes every 1.1 s (the bench fetches it again with `no-cache` that often,
 *   and the stub's list changes on every request), and whose sockets never read; one more
 *   client beside them reads, and counts its results. Without a bound the gateway buffered
 *   every result for each (1.78 GB in 80 s); now each stream holds at most
 *   `STREAM_MAX_QUEUED_BYTES` and is cut after `STREAM_DRAIN_TIMEOUT_MS`. Figures: RSS growth
 *   (target 100 MB), whether the streams were cut (`statev_subscriptions_active{transport="sse"}`
 *   down to the reader's 1) and the reader's results.
 * - `sse-stalled-subscriptions-20`: 20 graphql-sse subscriptions whose client stops reading
 *   (a paused socket: the bench cannot pull a link), and how long until the gateway frees
 *   their places. Keep-alives alone do not fill a loopback connection's buffers: this
 *   measures what a stalled peer costs, and reports `freedAfterMs` (null when they are still
 *   held at the end: such a peer is found when its backlog stops draining, see
 *   docs/subscriptions.md).
 *
 * A revoked token's streams: hostile-tokens.ts; a half-open peer: hostile-half-open.ts.
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { PREMIUM_KEY, round } from '../lib/bench';
import { graphqlHeaders, sleep } from '../lib/http';
import type { Service } from '../lib/processes';
import { scrapeMetrics } from '../lib/responsiveness';
import { currentRssMb, RssSampler } from '../lib/rss';
import { COMPANIES_CHANGING_KEY } from '../upstream-stub';

/** The simulator's company of character 1. */
const SHOP = '64f1c2a9e4b0a1d2c3f40001';
/** RSS growth target of the slow-reader attack, MB. */
const SLOW_READER_RSS_TARGET_MB = 100;

/** An attack's figures (as hostile.ts reads them: `internalErrors`, and `memory` for the RSS target). */
export type StreamOutcome = Record<string, unknown> & { internalErrors: number };

/** One attack of this file, as hostile.ts runs it. */
export interface StreamAttack {
  /** Its name in the results. */
  name: string;
  /** What it does. */
  description: string;
  /** Runs it against the gateway. */
  run: (gateway: Service) => Promise<StreamOutcome>;
}

/** Open graphql-sse subscriptions of the gateway now (its gauge), or null. */
async function sseActive(gateway: Service): Promise<number | null> {
  const match = /^statev_subscriptions_active\{transport="sse"\} (\S+)$/m.exec(
    (await scrapeMetrics(gateway.origin)).text,
  );
  return match?.[1] === undefined ? null : Number(match[1]);
}

/**
 * Opens one graphql-sse stream (distinct connections mode) by hand on a raw socket, which
 * stops reading once the response has begun: the peer that never drains.
 */
function stalledStream(gateway: Service, key: string, body: string): Promise<Socket> {
  const url = new URL(gateway.origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(
        `POST /graphql/stream HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${key}\r\nAccept: text/event-stream\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    });
    socket.once('data', () => {
      socket.pause();
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/**
 * Waits until the gateway holds at most `left` SSE subscriptions, or `boundMs` passed; the time it took, or null.
 * `onFirstDrop` is called once when the count first falls under its first reading.
 */
async function untilSseFreed(
  gateway: Service,
  boundMs: number,
  left = 0,
  onFirstDrop?: () => void,
): Promise<number | null> {
  const started = performance.now();
  let first: number | null = null;
  while (performance.now() - started < boundMs) {
    const active = await sseActive(gateway);
    first ??= active;
    if (onFirstDrop && first !== null && active !== null && active < first) {
      onFirstDrop();
      onFirstDrop = undefined;
    }
    if (active !== null && active <= left) return round(performance.now() - started);
    await sleep(250);
  }
  return null;
}

/** A graphql-sse client that reads: counts the results (`event: next`) of its stream until closed. */
function readingStream(gateway: Service, key: string, body: string): { results(): number; close(): void } {
  let results = 0;
  const url = new URL('/graphql/stream', gateway.origin);
  const req = httpRequest(
    url,
    {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        accept: 'text/event-stream',
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      },
    },
    (res) => {
      let tail = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const text = tail + chunk;
        results += text.split('event: next').length - 1;
        tail = text.slice(-16);
        if (tail.includes('event: next')) tail = '';
      });
    },
  );
  req.once('error', () => undefined);
  req.end(body);
  return { results: () => results, close: () => req.destroy() };
}

/** Every `everyMs`, the company list of `key` fetched again (`no-cache`): its live queries get a new result each time (the stub changes it). */
function changeEvery(gateway: Service, key: string, everyMs: number): { fetches(): number; stop(): Promise<void> } {
  let running = true;
  let fetches = 0;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      await fetch(`${gateway.origin}/graphql`, {
        method: 'POST',
        headers: graphqlHeaders(key, true),
        body: JSON.stringify({ query: '{ factories { id name } }' }),
        signal: AbortSignal.timeout(30_000),
      }).then(
        (response) => response.text(),
        () => '',
      );
      fetches += 1;
      await sleep(Math.max(0, everyMs - (performance.now() - started)));
    }
  })();
  return {
    fetches: () => fetches,
    async stop() {
      running = false;
      await loop;
    },
  };
}

async function slowReaders(gateway: Service, holdMs: number): Promise<StreamOutcome> {
  const body = JSON.stringify({ query: 'query Companies @live { factories { id name } }' });
  // The attack's moments, ms after it began (to set against the longest /healthz polls).
  const began = Date.now();
  const moments: Record<string, number> = {};
  const mark = (name: string): void => void (moments[name] = Date.now() - began);
  const before = currentRssMb(gateway.pid);
  const sampler = new RssSampler(gateway.pid);
  const sockets = await Promise.all(
    Array.from({ length: 50 }, () => stalledStream(gateway, COMPANIES_CHANGING_KEY, body)),
  );
  mark('streamsOpen');
  const reader = readingStream(gateway, COMPANIES_CHANGING_KEY, body);
  const opened = await sseActive(gateway);
  mark('changesFrom');
  const changes = changeEvery(gateway, COMPANIES_CHANGING_KEY, 1100);
  // The reader's stream stays: the 50 others are cut.
  const freedAfterMs = await untilSseFreed(gateway, holdMs, 1, () => mark('firstCutSeen'));
  mark('allCutSeen');
  await changes.stop();
  mark('changesStopped');
  const peak = sampler.stop();
  const readerResults = reader.results();
  reader.close();
  for (const socket of sockets) socket.destroy();
  const growthMb = before === null || peak === null ? null : round(peak - before);
  return {
    internalErrors: 0,
    moments,
    streams: sockets.length,
    openedSse: opened,
    freedAfterMs,
    changes: changes.fetches(),
    readerResults,
    memory: {
      growthMb,
      growthUnder40Mb: growthMb === null ? null : growthMb < SLOW_READER_RSS_TARGET_MB,
      targetMb: SLOW_READER_RSS_TARGET_MB,
    },
  };
}

async function stalledSubscriptions(gateway: Service, boundMs: number): Promise<StreamOutcome> {
  const body = JSON.stringify({
    query: 'subscription($id: ID!) { inventoryChanged(factoryId: $id) { factoryId } }',
    variables: { id: SHOP },
  });
  const sockets = await Promise.all(Array.from({ length: 20 }, () => stalledStream(gateway, PREMIUM_KEY, body)));
  const opened = await sseActive(gateway);
  const freedAfterMs = await untilSseFreed(gateway, boundMs);
  for (const socket of sockets) socket.destroy();
  return { internalErrors: 0, streams: sockets.length, openedSse: opened, freedAfterMs, boundMs };
}

/** The stream attacks, shorter with `quick`. */
export function streamAttacks(quick: boolean): StreamAttack[] {
  const holdMs = quick ? 5_000 : 60_000;
  return [
    {
      name: 'sse-slow-readers-50',
      description: `50 graphql-sse live queries of a ~290 KB company list changing every 1.1 s (one key) whose clients never read, one reader beside them, held until they are cut or ${holdMs / 1000} s; RSS growth target ${SLOW_READER_RSS_TARGET_MB} MB`,
      run: (g) => slowReaders(g, holdMs),
    },
    {
      name: 'sse-stalled-subscriptions-20',
      description: `20 graphql-sse subscriptions (premium key) whose clients stop reading; how long until their places are free (up to ${holdMs / 1000} s)`,
      run: (g) => stalledSubscriptions(g, holdMs),
    },
  ];
}
