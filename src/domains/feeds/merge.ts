/**
 * One subscription over several keys (an access token over several characters): the
 * message streams of each key's part merged into one, in the order they arrive. A part
 * whose stream ends (its key's definitive error) leaves the others running; the merged
 * stream ends when the last part's does, or when the subscriber goes away (then every
 * part's stream is returned, so each key's pollers lose this subscriber).
 */
import type { FeedMessage } from './feed';

/** One part of a merged subscription: its stream and how its messages are labelled. */
export interface MergedPart<E> {
  /** The part's messages (from `FeedOpener.open`). */
  readonly stream: AsyncIterableIterator<FeedMessage<E>>;
  /**
   * The message as the subscriber gets it (e.g. an event naming the part's character, an
   * error with `extensions.character`); `final` is true only when no other part runs.
   */
  label(message: FeedMessage<E>, final: boolean): FeedMessage<E>;
}

/**
 * The messages of every part, merged; `first` are delivered before any (e.g. the errors
 * of parts that could not start).
 */
export function mergeMessages<E>(
  parts: ReadonlyArray<MergedPart<E>>,
  first: ReadonlyArray<FeedMessage<E>> = [],
): AsyncIterableIterator<FeedMessage<E>> {
  const buffer: Array<FeedMessage<E>> = [...first];
  const waiting: Array<(result: IteratorResult<FeedMessage<E>>) => void> = [];
  let running = parts.length;
  let ended = false;
  const push = (message: FeedMessage<E>): void => {
    if (ended) return;
    const waiter = waiting.shift();
    if (waiter) waiter({ value: message, done: false });
    else buffer.push(message);
  };
  const end = (): void => {
    if (ended) return;
    ended = true;
    for (const waiter of waiting.splice(0)) waiter({ value: undefined, done: true });
  };
  const pump = async (part: MergedPart<E>): Promise<void> => {
    try {
      for (;;) {
        const result = await part.stream.next();
        if (result.done || ended) break;
        const message = result.value;
        // A part's last message (its definitive error) is final for the subscriber only when no other part runs.
        push(part.label(message, message.kind === 'error' && message.final && running === 1));
      }
    } catch {
      // A part's stream does not throw (errors are messages); should it, only that part ends.
    } finally {
      running -= 1;
      if (running === 0) end();
    }
  };
  for (const part of parts) void pump(part);
  if (parts.length === 0) end();
  const iterator: AsyncIterableIterator<FeedMessage<E>> = {
    next() {
      const value = buffer.shift();
      if (value !== undefined) return Promise.resolve({ value, done: false });
      if (ended) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => waiting.push(resolve));
    },
    async return() {
      buffer.length = 0;
      end();
      await Promise.all(parts.map((part) => part.stream.return?.()));
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}
