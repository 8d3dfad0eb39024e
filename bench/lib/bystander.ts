/**
 * A bystander: one key's requests, one after another, timed from a worker thread of the
 * bench with an event loop of its own (as the `/healthz` poller of responsiveness.ts), so
 * that what the bench process itself does meanwhile (reading an attack's answers of a
 * megabyte and more) does not count as the gateway's delay; the machine's load still does.
 * The same worker times the requests before and during an attack, its HTTP client warm
 * for both (its first request is not counted).
 */
import { Worker } from 'node:worker_threads';

/** What the worker posts back: its first request done, one phase's latencies, or why a request failed. */
type BystanderMessage = { kind: 'ready' } | { kind: 'latencies'; ms: number[] } | { kind: 'failed'; reason: string };

/**
 * The worker's loop (plain JavaScript, evaluated by `Worker`): one request not counted, then
 * `ready`; on `{ count }` that many requests, posted back; on `{ count: null }` requests until
 * the parent posts `stop`, posted back. A request whose answer is not JSON fails the bystander.
 */
const BYSTANDER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { url, body, headers, timeoutMs } = workerData;
let stopped = false;
async function once() {
  const started = performance.now();
  const response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(timeoutMs) });
  const text = await response.text();
  try {
    JSON.parse(text);
  } catch {
    throw new Error(url + ' answered ' + response.status + ' with a body that is not JSON: ' + text.slice(0, 300));
  }
  return performance.now() - started;
}
async function phase(count) {
  const ms = [];
  while (count === null ? !stopped : ms.length < count) ms.push(await once());
  return ms;
}
function fail(error) {
  parentPort.postMessage({ kind: 'failed', reason: error instanceof Error ? error.message : String(error) });
}
parentPort.on('message', (message) => {
  if (message === 'stop') {
    stopped = true;
    return;
  }
  stopped = false;
  phase(message.count).then((ms) => parentPort.postMessage({ kind: 'latencies', ms }), fail);
});
once().then(() => parentPort.postMessage({ kind: 'ready' }), fail);
`;

/** A bystander key's requests, timed in a worker thread; {@link close} it when done. */
export class Bystander {
  private constructor(
    private readonly worker: Worker,
    private readonly messages: BystanderMessage[],
    private wake: (() => void) | null,
  ) {}

  /**
   * Starts the worker and waits for its first request (not counted: it loads the worker's
   * HTTP client and connects).
   *
   * @param url - the GraphQL endpoint
   * @param body - the request body (JSON text)
   * @param headers - the request headers (the bystander's key)
   */
  static async start(
    url: string,
    body: string,
    headers: Record<string, string>,
    timeoutMs = 30_000,
  ): Promise<Bystander> {
    const worker = new Worker(BYSTANDER_SOURCE, { eval: true, workerData: { url, body, headers, timeoutMs } });
    const bystander = new Bystander(worker, [], null);
    worker.on('message', (message: BystanderMessage) => {
      bystander.messages.push(message);
      bystander.wake?.();
    });
    worker.on('error', (error: Error) => {
      bystander.messages.push({ kind: 'failed', reason: error.message });
      bystander.wake?.();
    });
    await bystander.next('ready');
    return bystander;
  }

  /** Times `count` requests one after another; their latencies, ms. */
  async times(count: number): Promise<number[]> {
    this.worker.postMessage({ count });
    return this.next('latencies');
  }

  /** Starts timing requests one after another until {@link stop}. */
  begin(): void {
    this.worker.postMessage({ count: null });
  }

  /** Stops after the request in flight; the latencies of the requests since {@link begin}, ms. */
  async stop(): Promise<number[]> {
    this.worker.postMessage('stop');
    return this.next('latencies');
  }

  /** Ends the worker. */
  async close(): Promise<void> {
    await this.worker.terminate();
  }

  private async next(kind: 'ready'): Promise<void>;
  private async next(kind: 'latencies'): Promise<number[]>;
  private async next(kind: 'ready' | 'latencies'): Promise<void | number[]> {
    for (;;) {
      const message = this.messages.shift();
      if (message?.kind === 'failed') throw new Error(`bystander: ${message.reason}`);
      if (message?.kind === 'latencies' && kind === 'latencies') return message.ms;
      if (message?.kind === 'ready' && kind === 'ready') return;
      if (!message) await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
}
