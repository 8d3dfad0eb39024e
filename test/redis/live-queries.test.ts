/**
 * Live queries on two replicas sharing a real Redis: a write through replica A, and a fetch
 * on A that changes a resource, re-run the live queries of that key on replica B through the
 * replicas' invalidation messages (B takes the new answer from the shared cache). A live
 * query of another key on B, reading the same company, never re-runs.
 */
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import type { Gateway } from '../../src/server';
import { describeWithRedis, useTwoReplicas } from '../support';
import { subscribeWs, wsClient } from '../subscriptions/clients';
import type { Collected, Received } from '../subscriptions/clients';

const COUNTER = `query LiveCounter($id: ID!) @live { factory(id: $id) { counter { items { item price } } } }`;
const OPTIONS = `query LiveOptions($id: ID!) @live { factory(id: $id) { options { slot title data } } }`;
const SITE_DOCUMENT = `query LiveHours($id: ID!) @live { factory(id: $id) { siteDocument(name: "hours") { version value } } }`;

/** Posts one operation to a replica's /graphql with a key (and extra headers); fails on errors. */
async function execute(
  replica: Gateway,
  key: string,
  query: string,
  variables: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Received> {
  const response = await fetch(`${replica.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
    body: JSON.stringify({ query, variables }),
  });
  const result = (await response.json()) as Received;
  expect(result.errors).toBeUndefined();
  return result;
}

function priceOf(result: Received, item: string): number | undefined {
  const factory = result.data?.factory as { counter: { items: Array<{ item: string; price: number }> } } | undefined;
  return factory?.counter.items.find((each) => each.item === item)?.price;
}

function slotOf(result: Received, slot: number): { title: string; data: string } | undefined {
  const factory = result.data?.factory as { options: Array<{ slot: number; title: string; data: string }> } | undefined;
  return factory?.options.find((each) => each.slot === slot);
}

/** The first result of a live query, without errors. */
async function first(live: Collected): Promise<Received> {
  const result = await live.next();
  expect(result.errors).toBeUndefined();
  return result;
}

describeWithRedis('live queries on two replicas sharing Redis', () => {
  const replicas = useTwoReplicas('live');

  it('a fetch on replica A that changes a resource re-runs the live queries of that key on replica B, no other key', async () => {
    const { a, b, clock, simulator, clients } = replicas;
    const premium = wsClient(`${b.url}/graphql`, DEMO_KEYS.premium.key);
    // Another key of the same character (a generated simulator key): the same company, its own cache keys.
    const basic = wsClient(`${b.url}/graphql`, 'sim-key-1');
    clients.push(premium, basic);
    const live = subscribeWs(premium, COUNTER, { id: FIXTURE_IDS.shop });
    const other = subscribeWs(basic, COUNTER, { id: FIXTURE_IDS.shop });
    const before = priceOf(await first(live), 'Wasser');
    expect(priceOf(await first(other), 'Wasser')).toBe(before);
    const liveQueries = b.subscriptions.liveQueries;
    const executions = liveQueries.executions;

    simulator.resetRequests();
    simulator.change({ kind: 'counter', factoryId: FIXTURE_IDS.shop, item: 'Wasser', price: 7.25 });
    // A no-cache read takes no answer stored before it: let the (manual) clock move on.
    clock.advance(1000);
    // A fetches the counter again (its own cache is empty: B fetched it) and finds the new price.
    await execute(
      a,
      DEMO_KEYS.premium.key,
      'query($id: ID!) { factory(id: $id) { counter { items { item price } } } }',
      { id: FIXTURE_IDS.shop },
      { 'cache-control': 'no-cache' },
    );

    expect(priceOf(await live.next(), 'Wasser')).toBe(7.25);
    // One re-run on B: the premium key's. The other key's live query (same company, its own
    // cache keys) neither re-ran nor sent anything.
    expect(liveQueries.executions).toBe(executions + 1);
    expect(other.buffered).toBe(0);
    // B took A's answer from the shared cache: A's fetch is the only upstream request.
    expect(simulator.countRequests({ route: 'GET /factory/counter/{id}' })).toBe(1);
  });

  it('a write through replica A re-runs the live queries of that key on replica B', async () => {
    const { a, b, clients } = replicas;
    const premium = wsClient(`${b.url}/graphql`, DEMO_KEYS.premium.key);
    const generated = wsClient(`${b.url}/graphql`, 'sim-key-1');
    clients.push(premium, generated);
    const options = subscribeWs(premium, OPTIONS, { id: FIXTURE_IDS.shop });
    const hours = subscribeWs(premium, SITE_DOCUMENT, { id: FIXTURE_IDS.shop });
    // Another key's live query of the same slots: the writes below change what it would read.
    const other = subscribeWs(generated, OPTIONS, { id: FIXTURE_IDS.shop });
    await first(options);
    await first(hours);
    await first(other);

    await execute(
      a,
      DEMO_KEYS.premium.key,
      'mutation($input: UpdateFactoryOptionInput!) { updateFactoryOption(input: $input) { message } }',
      {
        input: {
          factoryId: FIXTURE_IDS.shop,
          slot: 9,
          title: 'Opening hours',
          data: 'written on A',
          apiSecret: DEMO_KEYS.premium.secret,
        },
      },
    );
    let result = await options.next();
    while (slotOf(result, 9)?.data !== 'written on A') result = await options.next();
    expect(slotOf(result, 9)).toMatchObject({ title: 'Opening hours', data: 'written on A' });

    // A site-document write through A: B's live query of the document gets the new value.
    replicas.simulator.resetRequests();
    const written = await execute(
      a,
      DEMO_KEYS.premium.key,
      'mutation($input: SetSiteDocumentInput!) { setSiteDocument(input: $input) { committed replacedVersion } }',
      {
        input: {
          factoryId: FIXTURE_IDS.shop,
          name: 'hours',
          value: { monday: '9-18' },
          apiSecret: DEMO_KEYS.premium.secret,
        },
      },
    );
    expect(written.data?.setSiteDocument).toMatchObject({ committed: true });
    let document = await hours.next();
    const valueOf = (each: Received): unknown =>
      (each.data?.factory as { siteDocument: { value: unknown } | null } | undefined)?.siteDocument?.value;
    while (valueOf(document) === undefined || valueOf(document) === null) document = await hours.next();
    expect(valueOf(document)).toEqual({ monday: '9-18' });
    // Each written slot was in the shared cache before B heard of the write, and the write
    // changed only the slots it wrote: B read nothing upstream again.
    expect(replicas.simulator.countRequests({ route: 'GET /factory/options/{id}/{slot}' })).toBe(0);
    // Its key was never told: it did not re-run (a re-run would read the new slots and send them).
    expect(other.buffered).toBe(0);
  });
});
