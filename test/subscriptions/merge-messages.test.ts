/**
 * The merged stream of a subscription over several keys (src/domains/feeds/merge.ts): one
 * part's end (its key's definitive error) leaves the others running, the merged stream
 * ends with the last part, and a subscriber going away returns every part's stream.
 */
import { GatewayError } from '../../src/errors/gateway-error';
import type { FeedMessage } from '../../src/domains/feeds/feed';
import { mergeMessages } from '../../src/domains/feeds/merge';

/** A part's stream the test pushes into and ends, recording whether it was returned. */
class Source implements AsyncIterableIterator<FeedMessage<string>> {
  private readonly queue: Array<IteratorResult<FeedMessage<string>>> = [];
  private readonly waiting: Array<(result: IteratorResult<FeedMessage<string>>) => void> = [];
  returned = false;

  push(result: IteratorResult<FeedMessage<string>>): void {
    const waiter = this.waiting.shift();
    if (waiter) waiter(result);
    else this.queue.push(result);
  }

  next(): Promise<IteratorResult<FeedMessage<string>>> {
    const result = this.queue.shift();
    return result ? Promise.resolve(result) : new Promise((resolve) => this.waiting.push(resolve));
  }

  return(): Promise<IteratorResult<FeedMessage<string>>> {
    this.returned = true;
    this.push({ value: undefined, done: true });
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<FeedMessage<string>> {
    return this;
  }
}

const event = (value: string): IteratorResult<FeedMessage<string>> => ({
  value: { kind: 'event', event: value },
  done: false,
});
const labelled =
  (name: string) =>
  (message: FeedMessage<string>, final: boolean): FeedMessage<string> =>
    message.kind === 'event' ? { kind: 'event', event: `${name}:${message.event}` } : { ...message, final };

describe('mergeMessages', () => {
  it("keeps the other parts' events after one part's definitive error, which is final only for the last part", async () => {
    const a = new Source();
    const b = new Source();
    const merged = mergeMessages([
      { stream: a, label: labelled('a') },
      { stream: b, label: labelled('b') },
    ]);
    a.push(event('1'));
    expect(await merged.next()).toEqual({ value: { kind: 'event', event: 'a:1' }, done: false });
    const error = new GatewayError('FORBIDDEN', 'gone');
    b.push({ value: { kind: 'error', error, final: true }, done: false });
    b.push({ value: undefined, done: true });
    expect(await merged.next()).toEqual({ value: { kind: 'error', error, final: false }, done: false });
    a.push(event('2'));
    expect(await merged.next()).toEqual({ value: { kind: 'event', event: 'a:2' }, done: false });
    a.push({ value: { kind: 'error', error, final: true }, done: false });
    a.push({ value: undefined, done: true });
    expect(await merged.next()).toEqual({ value: { kind: 'error', error, final: true }, done: false });
    expect(await merged.next()).toEqual({ value: undefined, done: true });
  });

  it('delivers the first messages before any, and returns every part when the subscriber goes away', async () => {
    const a = new Source();
    const b = new Source();
    const error = new GatewayError('UNAUTHENTICATED', 'no key');
    const merged = mergeMessages(
      [
        { stream: a, label: labelled('a') },
        { stream: b, label: labelled('b') },
      ],
      [{ kind: 'error', error, final: false }],
    );
    b.push(event('x'));
    expect(await merged.next()).toEqual({ value: { kind: 'error', error, final: false }, done: false });
    expect(await merged.next()).toEqual({ value: { kind: 'event', event: 'b:x' }, done: false });
    const pending = merged.next();
    await merged.return?.();
    expect(await pending).toEqual({ value: undefined, done: true });
    expect([a.returned, b.returned]).toEqual([true, true]);
    expect(await merged.next()).toEqual({ value: undefined, done: true });
  });
});
