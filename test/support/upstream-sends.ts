/**
 * Upstream requests on their way, for tests that move a faked clock in steps: between two
 * steps a test waits until every request the gateway sent has its answer, so that the
 * clock never moves while one is in flight.
 */
import { UpstreamClient } from '../../src/upstream/client';
import { turn, until } from './clock';

/**
 * Spies on `UpstreamClient.send` (restore with `jest.restoreAllMocks()`), counting the
 * requests sent and answered; `onSend(n)` runs as the n-th request is sent (e.g. to move the
 * clock for a slow first connection).
 *
 * @returns `settled()`: resolves once every request sent so far has finished and the event
 *   loop has turned a few times for what their answers start
 */
export function trackUpstreamSends(onSend?: (started: number) => void): { settled(): Promise<void> } {
  let started = 0;
  let finished = 0;
  const send = UpstreamClient.prototype.send;
  jest.spyOn(UpstreamClient.prototype, 'send').mockImplementation(async function (
    this: UpstreamClient,
    ...args: Parameters<UpstreamClient['send']>
  ) {
    started += 1;
    onSend?.(started);
    try {
      return await send.apply(this, args);
    } finally {
      finished += 1;
    }
  });
  return {
    async settled() {
      await until(() => started === finished, 'the upstream requests on their way');
      for (let i = 0; i < 10; i += 1) await turn();
    },
  };
}

/**
 * Moves the faked clock in `stepMs` steps, each once no upstream request is on its way
 * (`settled` of {@link trackUpstreamSends}), until `work` has settled.
 *
 * @returns what `work` resolves to (it rejects as `work` does)
 */
export async function stepClockUntil<T>(settled: () => Promise<void>, work: Promise<T>, stepMs: number): Promise<T> {
  let done = false;
  void work.finally(() => (done = true)).catch(() => undefined);
  while (!done) {
    await settled();
    if (done) break;
    jest.advanceTimersByTime(stepMs);
  }
  return work;
}
