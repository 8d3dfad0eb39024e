/**
 * A result sent to many SSE streams is serialized once (src/subscriptions/sse-result-bytes.ts):
 * graphql-sse is handed a placeholder, and each stream's writer sends the event around the
 * result's shared bytes. The event a client receives is the one graphql-sse would have printed.
 * The stack case counts `JSON.stringify` calls on the result: the same for one stream as for four.
 */
import { createClient as createSseClient, print } from 'graphql-sse';
import type { Client as SseClient } from 'graphql-sse';
import type { ExecutionResult } from 'graphql';
import { SseResultBytes } from '../../src/subscriptions/sse-result-bytes';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { startStack } from '../support';
import type { HttpStack } from '../support';
import { collect } from './clients';
import type { Collected, Received } from './clients';

describe('SseResultBytes', () => {
  const result: ExecutionResult = { data: { factory: { name: 'Fabrik "Süd" {"\\u0000x":"1"}' } } };
  const bytes = Buffer.from(JSON.stringify(result), 'utf8');

  it.each([
    ['distinct connections (no operation id)', null],
    ['a reservation (an operation id)', 'op "1"'],
  ])('puts the result bytes where graphql-sse printed the placeholder: %s', (_mode, id) => {
    const results = new SseResultBytes();
    const placeholder = results.placeholder(bytes);
    const event = print({ event: 'next', data: id === null ? placeholder : { id, payload: placeholder } });
    const pieces = results.pieces(event);
    expect(pieces).not.toBeNull();
    const [before, middle, after] = pieces as [string, Buffer, string];
    expect(middle).toBe(bytes);
    expect(before + middle.toString('utf8') + after).toBe(
      print({ event: 'next', data: id === null ? result : { id, payload: result } }),
    );
    // Taken once.
    expect(results.pieces(event)).toBeNull();
  });

  it("leaves events without a placeholder, or with another stream's, as they are", () => {
    const results = new SseResultBytes();
    const other = new SseResultBytes();
    other.placeholder(bytes);
    results.placeholder(bytes);
    // A result whose text reads like a placeholder is escaped by JSON: no match.
    expect(results.pieces(print({ event: 'next', data: result }))).toBeNull();
    expect(results.pieces(print({ event: 'next', data: { id: '1', payload: { data: null } } }))).toBeNull();
    const foreign = new SseResultBytes();
    foreign.placeholder(bytes);
    const second = foreign.placeholder(bytes);
    expect(results.pieces(print({ event: 'next', data: second }))).toBeNull();
  });
});

describe('a live query result shared by several SSE streams', () => {
  let stack: HttpStack;
  const clients: SseClient[] = [];
  const LIVE = `query Counter($id: ID!) @live { factory(id: $id) { name counter { items { item price } } } }`;

  afterEach(async () => {
    jest.restoreAllMocks();
    for (const client of clients.splice(0)) client.dispose();
    await stack.close();
  });

  function sse(singleConnection: boolean): SseClient {
    const client = createSseClient({
      url: `${stack.gateway.url}/graphql/stream`,
      headers: { authorization: `Bearer ${DEMO_KEYS.premium.key}` },
      retryAttempts: 0,
      singleConnection,
    });
    clients.push(client);
    return client;
  }

  /** Changes a price upstream and reads it with no-cache: the live queries re-run. */
  async function change(price: number): Promise<void> {
    stack.simulator.change({ kind: 'counter', factoryId: FIXTURE_IDS.shop, item: 'Wasser', price });
    await stack.executeText(
      'query($id: ID!) { factory(id: $id) { counter { items { item } } } }',
      { id: FIXTURE_IDS.shop },
      { key: DEMO_KEYS.premium.key, headers: { 'cache-control': 'no-cache' } },
    );
  }

  /** `JSON.stringify` calls on a live result (its `data.factory.name`, or a graphql-sse message holding one) while `work` runs. */
  async function stringifiedResults(work: () => Promise<unknown>): Promise<number> {
    const original = JSON.stringify;
    let count = 0;
    const holdsResult = (value: unknown): boolean => {
      const record = value as { data?: { factory?: { name?: unknown } }; payload?: unknown } | null;
      return (
        typeof record?.data?.factory?.name === 'string' ||
        (record?.payload !== undefined && holdsResult(record.payload))
      );
    };
    const spy = jest.spyOn(JSON, 'stringify').mockImplementation((...args: Parameters<typeof JSON.stringify>) => {
      if (holdsResult(args[0])) count += 1;
      return original(...args);
    });
    await work();
    spy.mockRestore();
    return count;
  }

  const priceOf = (result: Received): number | undefined =>
    (
      result.data?.factory as { counter: { items: Array<{ item: string; price: number }> } } | undefined
    )?.counter.items.find((entry) => entry.item === 'Wasser')?.price;

  it('is serialized as often for four streams (both modes) as for one, and each receives it whole', async () => {
    stack = await startStack({ http: true, config: { liveQueryThrottleMs: 0 } });
    const subscribe = (client: SseClient): Collected =>
      collect((sink) => client.subscribe({ query: LIVE, variables: { id: FIXTURE_IDS.shop } }, sink));
    const first = subscribe(sse(false));
    expect((await first.next()).errors).toBeUndefined();
    const alone = await stringifiedResults(async () => {
      await change(7.5);
      expect(priceOf(await first.next())).toBe(7.5);
    });

    const others = [subscribe(sse(false)), subscribe(sse(true)), subscribe(sse(true))];
    for (const other of others) expect((await other.next()).errors).toBeUndefined();
    const four = await stringifiedResults(async () => {
      await change(8.25);
      for (const subscriber of [first, ...others]) expect(priceOf(await subscriber.next())).toBe(8.25);
    });
    expect(four).toBe(alone);
    for (const subscriber of [first, ...others]) subscriber.stop();
  });
});
