/**
 * Alert rules on the subscriptions' pollers, against the simulator on a manual clock: a
 * STOCK_BELOW rule fires once per crossing, through a restart of the watcher (its state kept),
 * with stable event ids, naming the company when its list is cached; TRANSACTION_ADDED reads
 * the further pages only when more than a page arrived; and rules cost no upstream request of
 * their own: 100 rules over the stores one subscription each already polls add none, at start
 * or per interval.
 */
import type { EventEmitter } from 'node:events';
import { AlertWatcher, LoggingAlertSink } from '../../src/alerts';
import type { RulePolling } from '../../src/alerts';
import { MemoryAlertState } from '../../src/alerts/alert-state';
import { counterFeed } from '../../src/domains/factories/counter.subscription';
import { InventoryKind, inventoryFeed } from '../../src/domains/factories/inventory.subscription';
import { keyId } from '../../src/economy';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import type { Feed } from '../../src/domains/feeds/feed';
import type { OpenedAlert } from '../../src/vault';
import { ManualClock, useStack } from '../support';

const clock = new ManualClock();
const stack = useStack({ http: true, gateway: { now: clock.now, pollClock: clock } }, { resetSimulator: true });

/** Resolves after `count` emissions of `event`. */
function times(emitter: EventEmitter, event: string, count: number): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    const listener = (): void => {
      seen += 1;
      if (seen < count) return;
      emitter.off(event, listener);
      resolve();
    };
    emitter.on(event, listener);
  });
}

let next = 0;
/** A rule of the premium demo key, as the vault opens it. */
function rule(params: OpenedAlert['params'], kind: OpenedAlert['kind'] = 'STOCK_BELOW'): OpenedAlert {
  next += 1;
  return {
    id: `alr_test${next}`,
    character: 'shop',
    kind,
    params,
    target: 'DISCORD',
    url: 'http://127.0.0.1:9/api/webhooks/1/token',
    shownUrl: 'http://127.0.0.1:9/api/webhooks/1/…',
    secret: null,
    createdAt: clock.now(),
    apiKey: DEMO_KEYS.premium.key,
  };
}

describe('alert rules on the pollers', () => {
  const watchers: AlertWatcher[] = [];
  afterEach(async () => {
    await Promise.all(watchers.splice(0).map((watcher) => watcher.close()));
  });

  function watcher(
    rules: readonly OpenedAlert[],
    state = new MemoryAlertState(),
    sink = new LoggingAlertSink(),
    onError?: (message: string) => void,
  ): { watcher: AlertWatcher; sink: LoggingAlertSink; state: MemoryAlertState } {
    const hub = stack.gateway.subscriptions.hub;
    const polling: RulePolling = { watch: (caller, feed, observer) => hub.watch(caller, feed, observer) };
    const created = new AlertWatcher({
      polling,
      rules: () => rules,
      sink,
      state,
      keyHashSecret: stack.config.keyHashSecret,
      now: clock.now,
      onError,
    });
    watchers.push(created);
    return { watcher: created, sink, state };
  }

  const caller = (): { apiKey: string; keyId: string } => ({
    apiKey: DEMO_KEYS.premium.key,
    keyId: keyId(DEMO_KEYS.premium.key, stack.config.keyHashSecret),
  });

  /** Moves the clock one interval of the resource and waits for `polls` polls and the rules' evaluations. */
  async function pollTurn(resource: string, polls = 1, watching?: AlertWatcher): Promise<void> {
    const interval = stack.gateway.subscriptions.hub.currentIntervalMs(caller().keyId, resource) ?? 0;
    const polled = times(stack.gateway.subscriptions.hub.activity, 'polled', polls);
    clock.advance(interval);
    await polled;
    await watching?.settled();
  }

  it('fires STOCK_BELOW once per crossing, with stable ids, and neither repeats nor misses across a restart', async () => {
    const resource = `inventory/${FIXTURE_IDS.shop}`;
    const stock = rule({ factoryId: FIXTURE_IDS.shop, item: 'Wasser', store: 'STORE', threshold: 390 });
    const state = new MemoryAlertState();
    const first = watcher([stock], state);
    await first.watcher.start();
    await first.watcher.settled();
    expect(first.sink.events).toHaveLength(0);

    stack.simulator.change({ kind: 'stock', factoryId: FIXTURE_IDS.shop, item: 'Wasser', delta: -20 });
    await pollTurn(resource, 1, first.watcher);
    expect(first.sink.events.map((each) => each.event.eventId)).toEqual([`${stock.id}:stock:1`]);
    expect(first.sink.events[0]?.event.facts).toMatchObject({
      kind: 'STOCK_BELOW',
      item: 'Wasser',
      amount: 380,
      threshold: 390,
      store: 'STORE',
    });
    expect(first.sink.events[0]?.target).toEqual({ kind: 'DISCORD', url: stock.url });

    stack.simulator.change({ kind: 'stock', factoryId: FIXTURE_IDS.shop, item: 'Wasser', delta: -5 });
    await pollTurn(resource, 1, first.watcher);
    expect(first.sink.events).toHaveLength(1);

    // A restart: the watcher goes, its poller stops; a new one starts from the kept state.
    await first.watcher.close();
    const second = watcher([stock], state);
    await second.watcher.start();
    await second.watcher.settled();
    expect(second.sink.events).toHaveLength(0);

    stack.simulator.change({ kind: 'stock', factoryId: FIXTURE_IDS.shop, item: 'Wasser', delta: 50 });
    await pollTurn(resource, 1, second.watcher);
    stack.simulator.change({ kind: 'stock', factoryId: FIXTURE_IDS.shop, item: 'Wasser', delta: -50 });
    await pollTurn(resource, 1, second.watcher);
    expect(second.sink.events.map((each) => each.event.eventId)).toEqual([`${stock.id}:stock:2`]);
    expect(await second.watcher.lastFiredAt(stock)).toEqual(new Date(clock.now()));
  });

  it('fires at the first poll for a rule whose condition already holds', async () => {
    const stock = rule({ factoryId: FIXTURE_IDS.shop, item: 'Wasser', store: 'STORE', threshold: 1000 });
    const created = watcher([stock]);
    await created.watcher.start();
    await created.watcher.settled();
    expect(created.sink.events.map((each) => each.event.eventId)).toEqual([`${stock.id}:stock:1`]);
  });

  it("fires TRANSACTION_ADDED, OUTBID and RENT_OVERDUE on the simulator's data, once per occurrence", async () => {
    // The simulator books on the real clock (the manual one ran ahead in the tests above).
    const transfer = {
      ...rule({ bankAccountId: FIXTURE_IDS.shopMainAccount, minAmount: 100 }, 'TRANSACTION_ADDED'),
      createdAt: Date.now() - 1000,
    };
    const outbid = rule({}, 'OUTBID');
    const rent = rule({ buildingId: FIXTURE_IDS.hafen, days: 14 }, 'RENT_OVERDUE');
    const created = watcher([transfer, outbid, rent]);
    await created.watcher.start();
    await created.watcher.settled();
    const kinds = (): string[] =>
      created.sink.events.map(
        (each) =>
          `${each.event.ruleId === transfer.id ? 'T' : each.event.ruleId === outbid.id ? 'O' : 'R'}:${each.event.facts.kind}`,
      );
    // At the first poll: the auctions already lost (one import, two export) and the fixtures' tenants, whose last payments are long past; no transaction booked before the rule.
    expect(kinds().filter((each) => each.startsWith('O'))).toHaveLength(3);
    expect(kinds().filter((each) => each.startsWith('R')).length).toBeGreaterThan(0);
    expect(kinds().filter((each) => each.startsWith('T'))).toHaveLength(0);
    const before = created.sink.events.length;

    stack.simulator.change({
      kind: 'transaction',
      bankAccountId: FIXTURE_IDS.shopMainAccount,
      amount: 250,
      reference: 'Einkauf',
    });
    stack.simulator.change({
      kind: 'transaction',
      bankAccountId: FIXTURE_IDS.shopMainAccount,
      amount: 20,
      reference: 'Kaffee',
    });
    stack.simulator.change({
      kind: 'bid',
      auctionId: '67d4b1c9e8f7a6b5c4d30001',
      bidAmount: 1900,
      isLastBidderMe: false,
    });
    await pollTurn(`transactions/${FIXTURE_IDS.shopMainAccount}`, 3, created.watcher);
    const added = created.sink.events.slice(before);
    expect(added.map((each) => each.event.facts)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'TRANSACTION_ADDED', amount: 250 }),
        expect.objectContaining({
          kind: 'OUTBID',
          auctionId: '67d4b1c9e8f7a6b5c4d30001',
          auctionType: 'IMPORT',
          currentBid: 1900,
        }),
      ]),
    );
    expect(added).toHaveLength(2);
    await pollTurn(`transactions/${FIXTURE_IDS.shopMainAccount}`, 3, created.watcher);
    expect(created.sink.events).toHaveLength(before + 2);
    expect(new Set(created.sink.events.map((each) => each.event.eventId)).size).toBe(created.sink.events.length);
  });

  it("names a STOCK_BELOW alert's company from the cached company list, else by id, with no request of its own", async () => {
    const resource = `inventory/${FIXTURE_IDS.shop}`;
    const listReads = (): number => stack.simulator.countRequests({ route: 'GET /factory/list/' });
    // What the tests before read of the key's company list is no longer fresh.
    clock.advance(stack.config.cacheTtlSeconds.lists * 1000 + 1);
    const stock = rule({ factoryId: FIXTURE_IDS.shop, item: 'Wasser', store: 'STORE', threshold: 390 });
    const created = watcher([stock]);
    await created.watcher.start();
    await created.watcher.settled();
    const cross = async (): Promise<void> => {
      stack.simulator.change({ kind: 'stock', factoryId: FIXTURE_IDS.shop, item: 'Wasser', delta: 50 });
      await pollTurn(resource, 1, created.watcher);
      stack.simulator.change({ kind: 'stock', factoryId: FIXTURE_IDS.shop, item: 'Wasser', delta: -50 });
      await pollTurn(resource, 1, created.watcher);
    };
    stack.simulator.change({ kind: 'stock', factoryId: FIXTURE_IDS.shop, item: 'Wasser', delta: -20 });
    await pollTurn(resource, 1, created.watcher);
    expect(created.sink.events.map((each) => each.event.facts)).toEqual([
      expect.objectContaining({ kind: 'STOCK_BELOW', factoryId: FIXTURE_IDS.shop, factoryName: null }),
    ]);
    expect(listReads()).toBe(0);

    // Another operation of the key reads the company list: the next alert names the company from the cache.
    const answer = await stack.executeText('{ factories { id name } }', {}, { key: DEMO_KEYS.premium.key });
    const factories = (answer.data?.factories ?? []) as Array<{ id: string; name: string }>;
    const name = factories.find((factory) => factory.id === FIXTURE_IDS.shop)?.name;
    expect(name).toEqual(expect.any(String));
    const reads = listReads();
    await cross();
    expect(created.sink.events.map((each) => each.event.facts)).toEqual([
      expect.objectContaining({ factoryName: null }),
      expect.objectContaining({ kind: 'STOCK_BELOW', factoryId: FIXTURE_IDS.shop, factoryName: name }),
    ]);
    expect(listReads()).toBe(reads);
  });

  it('fires TRANSACTION_ADDED for every transaction when more than a page arrived between two polls, reading one page otherwise', async () => {
    const account = FIXTURE_IDS.shopMainAccount;
    const resource = `transactions/${account}`;
    const pageReads = (): string[] =>
      stack.simulator.requests
        .filter((request) => request.route === 'GET /factory/transactions/{bankId}/{limit}/{skip}')
        .map((request) => request.path);
    // The simulator books on the real clock (the manual one ran ahead in the tests above).
    const transfer = { ...rule({ bankAccountId: account }, 'TRANSACTION_ADDED'), createdAt: Date.now() - 1000 };
    const created = watcher([transfer]);
    await created.watcher.start();
    await created.watcher.settled();
    const book = (count: number, from: number): void => {
      for (let index = from; index < from + count; index += 1)
        stack.simulator.change({
          kind: 'transaction',
          bankAccountId: account,
          amount: 10 + index,
          reference: `Order ${index}`,
        });
    };

    // A few: the newest page alone.
    book(3, 0);
    stack.simulator.resetRequests();
    await pollTurn(resource, 1, created.watcher);
    expect(created.sink.events).toHaveLength(3);
    expect(pageReads()).toEqual([`/factory/transactions/${account}/25/0`]);

    // 60 between two polls: the newest page and the two after it, once each.
    book(60, 3);
    stack.simulator.resetRequests();
    await pollTurn(resource, 1, created.watcher);
    expect(pageReads()).toEqual([
      `/factory/transactions/${account}/25/0`,
      `/factory/transactions/${account}/25/25`,
      `/factory/transactions/${account}/25/50`,
    ]);
    const amounts = created.sink.events.map((each) => (each.event.facts as { amount: number }).amount);
    expect(amounts).toHaveLength(63);
    expect(new Set(amounts)).toEqual(new Set(Array.from({ length: 63 }, (_, index) => 10 + index)));

    // Nothing new: one page, no event.
    stack.simulator.resetRequests();
    await pollTurn(resource, 1, created.watcher);
    expect(pageReads()).toEqual([`/factory/transactions/${account}/25/0`]);
    expect(created.sink.events).toHaveLength(63);
  });

  it('reports a rule that cannot watch (a company the key does not own) and does not try it again on every round', async () => {
    const errors: string[] = [];
    const foreign = rule({ factoryId: FIXTURE_IDS.otherFactory, item: 'Benzin', store: 'STORE', threshold: 5 });
    const created = watcher([foreign], undefined, undefined, (message) => errors.push(message));
    await created.watcher.start();
    expect(created.watcher.size).toBe(0);
    expect(errors).toEqual([`alert rules ${foreign.id} cannot watch inventory`]);
    const sent = stack.simulator.countRequests();
    await created.watcher.sync(false);
    expect(stack.simulator.countRequests()).toBe(sent);
    await created.watcher.sync();
    expect(errors).toHaveLength(2);
  });

  it('adds no upstream request: 100 rules over 10 stores, each already polled by one subscription', async () => {
    const { shop, carDealer, workshop, farm } = FIXTURE_IDS;
    const stores: Array<{ feed: Feed<unknown, unknown>; factoryId: string; store: 'STORE' | 'MACHINE' | 'COUNTER' }> = [
      ...[shop, carDealer, workshop, farm].map((factoryId) => ({
        feed: inventoryFeed(factoryId, InventoryKind.STORE) as Feed<unknown, unknown>,
        factoryId,
        store: 'STORE' as const,
      })),
      ...[shop, workshop, farm].map((factoryId) => ({
        feed: inventoryFeed(factoryId, InventoryKind.MACHINE) as Feed<unknown, unknown>,
        factoryId,
        store: 'MACHINE' as const,
      })),
      ...[shop, carDealer, workshop].map((factoryId) => ({
        feed: counterFeed(factoryId) as Feed<unknown, unknown>,
        factoryId,
        store: 'COUNTER' as const,
      })),
    ];
    const hub = stack.gateway.subscriptions.hub;
    const leaves = await Promise.all(stores.map((each) => hub.subscribe(caller(), each.feed, () => undefined)));
    expect(hub.size).toBe(10);
    stack.simulator.resetRequests();
    await pollTurn(stores[0]?.feed.resource ?? '', 10);
    const perInterval = stack.simulator.countRequests();
    expect(perInterval).toBeGreaterThan(0);

    stack.simulator.resetRequests();
    const rules = Array.from({ length: 100 }, (_, index) => {
      const store = stores[index % stores.length] as (typeof stores)[number];
      return rule({ factoryId: store.factoryId, item: `Item ${index}`, store: store.store, threshold: 1 + index });
    });
    const created = watcher(rules);
    await created.watcher.start();
    await created.watcher.settled();
    expect(created.watcher.size).toBe(10);
    expect(hub.size).toBe(10);
    expect(stack.simulator.countRequests()).toBe(0);

    await pollTurn(stores[0]?.feed.resource ?? '', 10, created.watcher);
    expect(stack.simulator.countRequests()).toBe(perInterval);
    // Every rule was evaluated on the shared polls (an item that is not there counts as 0: below its threshold).
    expect(new Set(created.sink.events.map((each) => each.event.ruleId)).size).toBe(100);
    for (const leave of leaves) leave();
  });
});
