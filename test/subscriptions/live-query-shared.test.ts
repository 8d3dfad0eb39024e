/**
 * SharedLiveQuery on its own, over a scripted source: fan-out, the latest result for a
 * subscriber that joins or reads late, and the release of every subscriber's places and of
 * the execution on every way of leaving (return, throw, the source ending or failing).
 */
import type { ExecutionResult } from 'graphql';
import { SharedLiveQuery } from '../../src/subscriptions/live-shared';
import { until } from '../support';

/** A source whose results the test pushes; records whether it was returned. */
function scriptedSource(): {
  source: AsyncIterator<ExecutionResult>;
  push(value: number): void;
  finish(): void;
  fail(): void;
  readonly returned: boolean;
  readonly queued: number;
} {
  const queue: Array<IteratorResult<ExecutionResult> | Error> = [];
  const waiting: Array<{ resolve: (step: IteratorResult<ExecutionResult>) => void; reject: (error: Error) => void }> =
    [];
  let returned = false;
  const deliver = (step: IteratorResult<ExecutionResult> | Error): void => {
    const waiter = waiting.shift();
    if (!waiter) queue.push(step);
    else if (step instanceof Error) waiter.reject(step);
    else waiter.resolve(step);
  };
  return {
    source: {
      next() {
        const step = queue.shift();
        if (step instanceof Error) return Promise.reject(step);
        if (step) return Promise.resolve(step);
        return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
      },
      return() {
        returned = true;
        for (const waiter of waiting.splice(0)) waiter.resolve({ done: true, value: undefined });
        return Promise.resolve({ done: true, value: undefined });
      },
    },
    push: (value) => deliver({ done: false, value: { data: { value }, isLive: true } as ExecutionResult }),
    finish: () => deliver({ done: true, value: undefined }),
    fail: () => deliver(new Error('source failed')),
    get returned() {
      return returned;
    },
    get queued() {
      return queue.length;
    },
  };
}

describe('SharedLiveQuery', () => {
  it('fans each distinct result out; a late subscriber gets the latest at once; a slow one skips to the latest', async () => {
    const script = scriptedSource();
    let ended = 0;
    const shared = new SharedLiveQuery(script.source, () => (ended += 1));
    const released: string[] = [];
    const first = shared.subscribe(() => released.push('first'));
    script.push(1);
    expect(await first.next()).toEqual({ done: false, value: { data: { value: 1 } } });
    const late = shared.subscribe(() => released.push('late'));
    expect(await late.next()).toEqual({ done: false, value: { data: { value: 1 } } });
    // The same result again is not sent; two new ones before a read: the reader gets the second.
    script.push(1);
    script.push(2);
    script.push(3);
    await until(() => script.queued === 0, 'the pushes to be read');
    expect(await first.next()).toEqual({ done: false, value: { data: { value: 3 } } });
    expect(await late.next()).toEqual({ done: false, value: { data: { value: 3 } } });

    // One leaves: the other goes on.
    await first.return?.();
    expect(released).toEqual(['first']);
    script.push(4);
    expect(await late.next()).toEqual({ done: false, value: { data: { value: 4 } } });
    expect(ended).toBe(0);
    expect(script.returned).toBe(false);

    // The last leaves by throw (as graphql-sse ends an operation): everything is released.
    await expect(late.throw?.(new Error('gone'))).rejects.toThrow('gone');
    expect(released).toEqual(['first', 'late']);
    expect(ended).toBe(1);
    expect(script.returned).toBe(true);
    expect(shared.closed).toBe(true);
    // A subscriber of a closed execution ends at once, released.
    const after = shared.subscribe(() => released.push('after'));
    expect(await after.next()).toEqual({ done: true, value: undefined });
    expect(released).toEqual(['first', 'late', 'after']);
  });

  it('a source that ends or fails ends every subscriber after its last result, each released once', async () => {
    for (const stop of ['finish', 'fail'] as const) {
      const script = scriptedSource();
      let ended = 0;
      const shared = new SharedLiveQuery(script.source, () => (ended += 1));
      const released: number[] = [];
      const subscribers = [0, 1, 2].map((index) => shared.subscribe(() => released.push(index)));
      script.push(7);
      script[stop]();
      await until(() => ended === 1, `the execution to end (${stop})`);
      for (const subscriber of subscribers) {
        expect(await subscriber.next()).toEqual({ done: false, value: { data: { value: 7 } } });
        expect(await subscriber.next()).toEqual({ done: true, value: undefined });
        await subscriber.return?.();
      }
      expect(released.sort()).toEqual([0, 1, 2]);
      expect(ended).toBe(1);
    }
  });
});
