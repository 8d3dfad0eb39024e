/**
 * One subscriber's stream of payment events: the events of one owner's company from an
 * event bus, buffered until read, ended by `return()`.
 */
import type { EventEmitter } from 'node:events';
import type { StoredEvent } from './payment-request.store';

/**
 * The status changes of `owner`'s company on `bus` (its `event` events), as they happen;
 * `return()` stops listening and ends the waiting reads.
 */
export function eventStream(bus: EventEmitter, owner: string, factoryId: string): AsyncIterableIterator<StoredEvent> {
  const buffer: StoredEvent[] = [];
  const waiting: Array<(result: IteratorResult<StoredEvent>) => void> = [];
  let ended = false;
  const listener = (event: StoredEvent): void => {
    if (event.request.owner !== owner || event.request.factoryId !== factoryId) return;
    const waiter = waiting.shift();
    if (waiter) waiter({ value: event, done: false });
    else buffer.push(event);
  };
  bus.on('event', listener);
  const end = (): Promise<IteratorResult<StoredEvent>> => {
    ended = true;
    bus.off('event', listener);
    for (const waiter of waiting.splice(0)) waiter({ value: undefined, done: true });
    return Promise.resolve({ value: undefined, done: true });
  };
  return {
    next: () => {
      const value = buffer.shift();
      if (value) return Promise.resolve({ value, done: false });
      if (ended) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => waiting.push(resolve));
    },
    return: end,
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
