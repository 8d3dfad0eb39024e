/**
 * How responsive a gateway stays: `/healthz` polled every 50 ms (the worst wait for an
 * answer), `/metrics` scraped as Prometheus does (the scrape's own latency), and the
 * gateway's event-loop delay as its own `monitorEventLoopDelay` saw it (prom-client's
 * default metrics `nodejs_eventloop_lag_p99_seconds` and `nodejs_eventloop_lag_max_seconds`,
 * which prom-client resets at every scrape: a scrape before and one after an attack give
 * the p99 and max over the attack alone).
 */
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { summarizeLatencies } from './load';
import type { LoadResult } from './load';

/** One scrape of `/metrics`: its latency and text. */
export interface Scrape {
  ms: number;
  status: number;
  text: string;
}

/** The event-loop figures of every scrape of an origin while {@link recordLoopDelay} records it. */
const loopWindows = new Map<string, Array<{ p99Ms: number | null; maxMs: number | null }>>();

/**
 * GETs `/metrics` and times it (from sending to the last byte). Each scrape resets the
 * gateway's event-loop histogram: while {@link recordLoopDelay} records `origin`, its
 * figures (those of the window since the previous scrape) are kept.
 */
export async function scrapeMetrics(origin: string, timeoutMs = 10_000): Promise<Scrape> {
  const started = performance.now();
  const response = await fetch(`${origin}/metrics`, { signal: AbortSignal.timeout(timeoutMs) });
  const text = await response.text();
  if (response.status === 200) loopWindows.get(origin)?.push(eventLoopDelay(text));
  return { ms: performance.now() - started, status: response.status, text };
}

/**
 * Records the gateway's event-loop delay from now (after a scrape that reset it) over every
 * scrape of `origin` until the returned function is called (after a last scrape). An
 * attack that scrapes `/metrics` itself (to read a gauge every 250 ms) resets the
 * histogram each time, so a last scrape alone would see only its last window. Returns the
 * max over all windows (exact) and the highest window p99 (at least the p99 of the whole:
 * no more than 1 % of any window's samples lie above it).
 */
export function recordLoopDelay(origin: string): () => { p99Ms: number | null; maxMs: number | null; windows: number } {
  const windows: Array<{ p99Ms: number | null; maxMs: number | null }> = [];
  loopWindows.set(origin, windows);
  return () => {
    if (loopWindows.get(origin) === windows) loopWindows.delete(origin);
    const highest = (figure: 'p99Ms' | 'maxMs'): number | null => {
      const values = windows.map((window) => window[figure]).filter((value): value is number => value !== null);
      return values.length === 0 ? null : Math.max(...values);
    };
    return { p99Ms: highest('p99Ms'), maxMs: highest('maxMs'), windows: windows.length };
  };
}

/** A gauge of a scrape without labels, or null when it is missing. */
export function gaugeOf(text: string, name: string): number | null {
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return match?.[1] === undefined ? null : Number(match[1]);
}

/** The event-loop delay the gateway measured since the previous scrape, ms (null when its metrics lack it). */
function eventLoopDelay(text: string): { p99Ms: number | null; maxMs: number | null } {
  const ms = (seconds: number | null): number | null =>
    seconds === null ? null : Math.round(seconds * 1000 * 10) / 10;
  return {
    p99Ms: ms(gaugeOf(text, 'nodejs_eventloop_lag_p99_seconds')),
    maxMs: ms(gaugeOf(text, 'nodejs_eventloop_lag_max_seconds')),
  };
}

/**
 * CPU time the main thread of process `pid` has run so far, ms: the thread that runs the
 * event loop (the first field of `/proc/<pid>/task/<pid>/schedstat`, nanoseconds; GC
 * helper threads and libuv's pool are other threads). The difference over an attack is
 * the event-loop time the attack cost. Null where `/proc` is missing.
 */
export function mainThreadCpuMs(pid: number): number | null {
  try {
    const [ns] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ');
    return ns === undefined ? null : Number(ns) / 1e6;
  } catch {
    return null;
  }
}

/** What a {@link HealthPoller} saw. */
export interface HealthFigures {
  /** Polls answered. */
  polls: number;
  /** Polls that failed (no answer within 30 s, or not 200). */
  failures: number;
  /** Longest wait from sending a poll to its answer, ms. */
  worstMs: number;
  /**
   * The five longest polls, longest first: when each was sent (ms since the epoch, to be set
   * against an attack's own moments) and its wait, ms.
   */
  worstPolls: Array<{ sentAt: number; waitMs: number }>;
}

/** What the poller's worker posts back: each poll's wait and sending moment, and the failures. */
interface PollerFigures {
  waits: number[];
  sentAt: number[];
  failures: number;
}

/**
 * The poller's loop, run in a worker thread of its own (plain JavaScript, evaluated by
 * `Worker`): one poll not counted, then `ready`; polls `/healthz` until the parent posts any message, then posts back
 * `{ waits, sentAt, failures }` (`sentAt`: each poll's sending, ms since the epoch).
 */
const POLLER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { origin, intervalMs } = workerData;
const waits = [];
const sentAt = [];
let failures = 0;
let stopped = false;
parentPort.once('message', () => { stopped = true; });
(async () => {
  // One poll first, not counted: the worker's first fetch loads its HTTP client and connects.
  try {
    await (await fetch(origin + '/healthz', { signal: AbortSignal.timeout(30000) })).arrayBuffer();
  } catch {}
  parentPort.postMessage('ready');
  while (!stopped) {
    const started = performance.now();
    sentAt.push(performance.timeOrigin + started);
    try {
      const response = await fetch(origin + '/healthz', { signal: AbortSignal.timeout(30000) });
      await response.arrayBuffer();
      if (response.status !== 200) failures += 1;
    } catch {
      failures += 1;
    }
    const waited = performance.now() - started;
    waits.push(waited);
    if (waited < intervalMs && !stopped) await new Promise((resolve) => setTimeout(resolve, intervalMs - waited));
  }
  parentPort.postMessage({ waits, sentAt, failures });
})();
`;

/**
 * Polls `/healthz` every `intervalMs` (a poll is sent `intervalMs` after the previous one
 * was sent, or at once when that one took longer), recording the wait for each answer,
 * until {@link stop}. While the gateway's event loop is blocked, the poll in flight waits:
 * its wait is the block (less at most one interval).
 *
 * The polls run in a worker thread with an event loop of its own, so that what the bench
 * process itself does during an attack (reading a 290 KB live result, building 50,000
 * stored requests) does not count as the gateway's wait; the machine's load still does.
 */
export class HealthPoller {
  private readonly worker: Worker;
  private readonly figures: Promise<PollerFigures>;

  private constructor(worker: Worker, figures: Promise<PollerFigures>) {
    this.worker = worker;
    this.figures = figures;
  }

  /**
   * Starts a poller of `origin`'s `/healthz`; resolves once its worker has made one poll
   * (not counted: the first fetch loads the worker's HTTP client and connects), so that
   * the polls counted measure the gateway alone.
   */
  static async start(origin: string, intervalMs = 50): Promise<HealthPoller> {
    const worker = new Worker(POLLER_SOURCE, { eval: true, workerData: { origin, intervalMs } });
    let ready = (): void => undefined;
    const started = new Promise<void>((resolve) => (ready = resolve));
    const figures = new Promise<PollerFigures>((resolve, reject) => {
      worker.on('message', (message: 'ready' | PollerFigures) => {
        if (message === 'ready') ready();
        else resolve(message);
      });
      worker.once('error', reject);
    });
    await Promise.race([started, figures]);
    return new HealthPoller(worker, figures);
  }

  /** Stops polling (after the poll in flight) and returns the figures. */
  async stop(): Promise<HealthFigures> {
    this.worker.postMessage('stop');
    const { waits, sentAt, failures } = await this.figures;
    await this.worker.terminate();
    const tenth = (ms: number): number => Math.round(ms * 10) / 10;
    const worstPolls = waits
      .map((waitMs, index) => ({ sentAt: Math.round(sentAt[index] ?? 0), waitMs: tenth(waitMs) }))
      .sort((a, b) => b.waitMs - a.waitMs)
      .slice(0, 5);
    return { polls: waits.length, failures, worstMs: tenth(Math.max(0, ...waits)), worstPolls };
  }
}

/**
 * Scrapes `/metrics` every `intervalMs` (Prometheus's rhythm: a scrape `intervalMs` after
 * the previous one was sent) until {@link stop}; a scrape that fails or answers other than
 * 200 counts as a failure. With each scrape a `/healthz` request is sent at the same
 * moment: what it waits is the queue in front of any request (the load, the machine), so
 * the scrape's latency minus it is what the scrape itself costs.
 */
export class Scraper {
  private readonly latencies: number[] = [];
  private readonly healthz: number[] = [];
  private readonly beyondHealthz: number[] = [];
  private failures = 0;
  private firstFailure: string | null = null;
  private stopped = false;
  private wake: (() => void) | null = null;
  private readonly loop: Promise<void>;

  constructor(
    private readonly origin: string,
    private readonly intervalMs = 1000,
  ) {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const started = performance.now();
      try {
        const beside = fetch(`${this.origin}/healthz`, { signal: AbortSignal.timeout(10_000) }).then(
          async (response) => {
            await response.arrayBuffer();
            return performance.now() - started;
          },
          () => null,
        );
        const scrape = await scrapeMetrics(this.origin);
        const healthzMs = await beside;
        if (scrape.status !== 200) throw new Error(`HTTP ${scrape.status}`);
        this.latencies.push(scrape.ms);
        if (healthzMs !== null) {
          this.healthz.push(healthzMs);
          this.beyondHealthz.push(Math.max(0, scrape.ms - healthzMs));
        }
      } catch (error) {
        this.failures += 1;
        this.firstFailure ??= error instanceof Error ? error.message : String(error);
      }
      const left = this.intervalMs - (performance.now() - started);
      if (left > 0 && !this.stopped)
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
    }
  }

  /**
   * Stops scraping (after the scrape in flight) and returns its latencies, those of the
   * `/healthz` requests sent with the scrapes, and by how much each scrape took longer
   * than its `/healthz` (at least 0), ms.
   */
  async stop(): Promise<{
    scrapes: number;
    failures: number;
    firstFailure: string | null;
    latencyMs: LoadResult['latencyMs'] | null;
    healthzBesideMs: LoadResult['latencyMs'] | null;
    beyondHealthzMs: LoadResult['latencyMs'] | null;
  }> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    return {
      scrapes: this.latencies.length,
      failures: this.failures,
      firstFailure: this.firstFailure,
      latencyMs: this.latencies.length === 0 ? null : summarizeLatencies(Float64Array.from(this.latencies)),
      healthzBesideMs: this.healthz.length === 0 ? null : summarizeLatencies(Float64Array.from(this.healthz)),
      beyondHealthzMs:
        this.beyondHealthz.length === 0 ? null : summarizeLatencies(Float64Array.from(this.beyondHealthz)),
    };
  }
}
