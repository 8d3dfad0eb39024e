/**
 * The client set-ups of docs/live-queries.md against a real gateway: urql's
 * subscriptionExchange over graphql-sse routing queries marked `@live`, as the page shows,
 * receives the first result and the next one after a change of the same key.
 */
import { Client, cacheExchange, fetchExchange, gql, subscriptionExchange } from '@urql/core';
import type { Operation } from '@urql/core';
import { createClient as createSseClient } from 'graphql-sse';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { startStack } from '../support';
import type { HttpStack } from '../support';

describe('docs/live-queries.md clients', () => {
  let stack: HttpStack;

  beforeEach(async () => {
    stack = await startStack({ http: true, config: { liveQueryThrottleMs: 0 } });
  });

  afterEach(async () => {
    await stack.close();
  });

  it('urql with graphql-sse: the first result, then the changed one, on the same query', async () => {
    const key = DEMO_KEYS.premium.key;
    const sse = createSseClient({
      url: `${stack.gateway.url}/graphql/stream`,
      headers: { authorization: `Bearer ${key}` },
      retryAttempts: 0,
    });
    const isLive = (operation: Operation): boolean =>
      operation.kind === 'subscription' ||
      operation.query.definitions.some(
        (definition) =>
          definition.kind === 'OperationDefinition' &&
          definition.directives?.some((directive) => directive.name.value === 'live'),
      );
    const client = new Client({
      url: `${stack.gateway.url}/graphql`,
      fetchOptions: { headers: { authorization: `Bearer ${key}` } },
      exchanges: [
        cacheExchange,
        subscriptionExchange({
          isSubscriptionOperation: isLive,
          forwardSubscription: (request) => ({
            subscribe: (sink) => ({ unsubscribe: sse.subscribe({ ...request, query: request.query ?? '' }, sink) }),
          }),
        }),
        fetchExchange,
      ],
    });
    const page = gql`
      query CompanyPage($id: ID!) @live {
        factory(id: $id) {
          name
          counter {
            items {
              item
              price
              amount
            }
          }
        }
      }
    `;
    const prices: Array<number | undefined> = [];
    let notify: () => void = () => undefined;
    const { unsubscribe } = client.query(page, { id: FIXTURE_IDS.shop }).subscribe((result) => {
      const data = result.data as
        { factory: { counter: { items: Array<{ item: string; price: number }> } } } | undefined;
      prices.push(data?.factory.counter.items.find((item) => item.item === 'Wasser')?.price);
      notify();
    });
    const results = (count: number): Promise<void> =>
      new Promise((resolve) => {
        notify = () => (prices.length >= count ? resolve() : undefined);
        notify();
      });
    await results(1);
    stack.simulator.change({ kind: 'counter', factoryId: FIXTURE_IDS.shop, item: 'Wasser', price: 11.5 });
    await stack.executeText(
      'query($id: ID!) { factory(id: $id) { counter { items { item } } } }',
      { id: FIXTURE_IDS.shop },
      { headers: { 'cache-control': 'no-cache' } },
    );
    await results(2);
    expect(prices[1]).toBe(11.5);
    unsubscribe();
    sse.dispose();
  });
});
