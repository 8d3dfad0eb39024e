/**
 * Subscriptions of a token over several characters that do not name a company or a
 * building: `myAuctionChanged` watches every character's own auctions, each with its own
 * key (events merged, each naming its owner; one key's failure is an error event naming
 * the character and leaves the others' events), and `transactionAdded` polls with the key
 * whose company or building holds the account. Over graphql-ws: the routing is in the
 * subscription fields, which every transport runs alike.
 */
import type { Client } from 'graphql-ws';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { addMaxAndErika, ManualClock, startStack, testVault } from '../support';
import type { HttpStack } from '../support';
import { subscribeWs, wsClient } from '../subscriptions/clients';
import type { Received } from '../subscriptions/clients';

interface AuctionEvent {
  kind: string;
  previousBidAmount: number | null;
  owner: { name: string } | null;
  auction: { id: string; item: string; bidAmount: number };
}

const AUCTIONS = `subscription { myAuctionChanged { kind previousBidAmount owner { name }
  auction { ... on MyImportAuction { id item bidAmount } ... on MyExportAuction { id item bidAmount } } } }`;

describe('subscriptions of a token over several characters', () => {
  const { vault, vaultFile, masterKey } = testVault('several-subscriptions-');
  const clock = new ManualClock();
  let stack: HttpStack;
  let both: string;
  let withBroken: string;
  const clients: Client[] = [];

  /** Resolves once the poll hub emitted `name` `count` times (`joined`: a subscriber's first poll answered, one per feed and key; `stopped`: a poller stopped). */
  const hubEvents = (name: 'joined' | 'stopped', count: number): Promise<void> =>
    new Promise((resolve) => {
      let seen = 0;
      const activity = stack.gateway.subscriptions.hub.activity;
      const onEvent = (): void => {
        seen += 1;
        if (seen < count) return;
        activity.off(name, onEvent);
        resolve();
      };
      activity.on(name, onEvent);
    });
  const joins = (count: number): Promise<void> => hubEvents('joined', count);
  const client = (token: string): Client => {
    const created = wsClient(stack.endpoint, token);
    clients.push(created);
    return created;
  };
  const myImportAuctions = async (
    key: string,
  ): Promise<Array<{ id: string; item: string; bidAmount: number; isLastBidderMe: boolean }>> =>
    (
      (await stack.post({ query: '{ myImportAuctions { id item bidAmount isLastBidderMe } }' }, { key })).body as {
        data: { myImportAuctions: Array<{ id: string; item: string; bidAmount: number; isLastBidderMe: boolean }> };
      }
    ).data.myImportAuctions;

  beforeAll(async () => {
    await addMaxAndErika(vault);
    await vault.addKey('broken', 'not-a-statev-key', null);
    ({ token: both } = await vault.createToken({
      characters: ['max', 'erika'],
      grants: ['read', 'subscribe'],
      expiresInMs: 3_600_000,
    }));
    ({ token: withBroken } = await vault.createToken({
      characters: ['max', 'broken'],
      grants: ['read', 'subscribe'],
      expiresInMs: 3_600_000,
    }));
    stack = await startStack({
      http: true,
      config: { vaultFile, vaultMasterKey: masterKey },
      gateway: { now: clock.now, pollClock: clock },
    });
  });

  afterAll(async () => {
    for (const each of clients) await each.dispose();
    await stack.close();
  });

  it("myAuctionChanged watches every character's auctions with its own key, each event naming its owner", async () => {
    const from = stack.simulator.requests.length;
    const [stahl] = (await myImportAuctions(DEMO_KEYS.premium.key)).filter((auction) => auction.isLastBidderMe);
    const [benzin] = await myImportAuctions(DEMO_KEYS.other.key);
    if (!stahl || !benzin) throw new Error('the fixtures have an import auction of each character');
    const joined = joins(4);
    const events = subscribeWs(client(both), AUCTIONS);
    await joined;
    // Each key polls its own two lists (the import lists from the cache the queries above filled).
    const started = stack.simulator.requests.slice(from).map((request) => `${request.keyLabel} ${request.route}`);
    expect(new Set(started)).toEqual(
      new Set([
        'premium GET /market/my/auctions/import',
        'premium GET /market/my/auctions/export',
        'other GET /market/my/auctions/import',
        'other GET /market/my/auctions/export',
      ]),
    );

    stack.simulator.change({
      kind: 'bid',
      auctionId: stahl.id,
      bidAmount: stahl.bidAmount + 100,
      isLastBidderMe: false,
    });
    stack.simulator.change({
      kind: 'bid',
      auctionId: benzin.id,
      bidAmount: benzin.bidAmount + 300,
      isLastBidderMe: benzin.isLastBidderMe,
    });
    const received = [events.next(), events.next()];
    clock.advance(60_000);
    const answers = await Promise.all(received);
    for (const answer of answers) expect(answer.errors).toBeUndefined();
    const changes = answers
      .map((answer) => answer.data?.myAuctionChanged as AuctionEvent)
      .sort((a, b) => (a.owner?.name ?? '').localeCompare(b.owner?.name ?? ''));
    expect(changes).toEqual([
      {
        kind: 'BID_CHANGED',
        previousBidAmount: benzin.bidAmount,
        owner: { name: 'erika' },
        auction: { id: benzin.id, item: benzin.item, bidAmount: benzin.bidAmount + 300 },
      },
      {
        kind: 'OUTBID',
        previousBidAmount: stahl.bidAmount,
        owner: { name: 'max' },
        auction: { id: stahl.id, item: stahl.item, bidAmount: stahl.bidAmount + 100 },
      },
    ]);
    // Unsubscribing leaves every key's pollers (their only subscriber).
    const stopped = hubEvents('stopped', 4);
    events.stop();
    await stopped;
    expect(stack.gateway.subscriptions.hub.size).toBe(0);
  });

  it("reports one key's failure as an error event naming its character and keeps the other key's events", async () => {
    const [auction] = await myImportAuctions(DEMO_KEYS.premium.key);
    if (!auction) throw new Error('character 1 has import auctions');
    const joined = joins(2);
    const events = subscribeWs(client(withBroken), AUCTIONS);
    const failure: Received = await events.next();
    await joined;
    expect(failure.data ?? null).toBeNull();
    // The upstream's refusal of the key, as the key's own subscription would get it.
    expect(failure.errors?.[0]?.extensions).toMatchObject({
      code: expect.stringMatching(/^(UNAUTHENTICATED|FORBIDDEN)$/),
      character: { name: 'broken' },
    });
    expect(JSON.stringify(failure)).not.toContain('not-a-statev-key');

    stack.simulator.change({
      kind: 'bid',
      auctionId: auction.id,
      bidAmount: auction.bidAmount + 50,
      isLastBidderMe: true,
    });
    const next = events.next();
    clock.advance(60_000);
    const answer = await next;
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.myAuctionChanged).toMatchObject({
      owner: { name: 'max' },
      auction: { id: auction.id, bidAmount: auction.bidAmount + 50 },
    });
    expect(events.buffered).toBe(0);
    events.stop();
  });

  it.each([
    ['a company', FIXTURE_IDS.otherFactoryAccount, 'other', 'GET /factory/transactions/{bankId}/{limit}/{skip}'],
    ['a building', FIXTURE_IDS.otherBuildingAccount, 'other', 'GET /building/transactions/{bankId}/{limit}/{skip}'],
    [
      "the first character's company",
      FIXTURE_IDS.shopMainAccount,
      'premium',
      'GET /factory/transactions/{bankId}/{limit}/{skip}',
    ],
  ])(
    "transactionAdded on an account of %s polls with its owner's key only",
    async (_what, bankAccountId, owner, route) => {
      const from = stack.simulator.requests.length;
      const joined = joins(1);
      const events = subscribeWs(
        client(both),
        'subscription($id: ID!) { transactionAdded(bankAccountId: $id) { bankAccountId transaction { amount reference } } }',
        { id: bankAccountId },
      );
      await joined;
      stack.simulator.change({ kind: 'transaction', bankAccountId, amount: 123.45, reference: `for ${owner}` });
      const next = events.next();
      clock.advance(300_000);
      const answer = await next;
      expect(answer.errors).toBeUndefined();
      expect(answer.data?.transactionAdded).toEqual({
        bankAccountId,
        transaction: { amount: 123.45, reference: `for ${owner}` },
      });
      const polls = stack.simulator.requests
        .slice(from)
        .filter((request) => request.path.includes(`/transactions/${bankAccountId}/`));
      expect(polls.length).toBeGreaterThan(0);
      // Only the owner's key (a building account: after the company endpoint's 404, as with one key).
      expect(new Set(polls.map((request) => request.keyLabel))).toEqual(new Set([owner]));
      expect(polls.filter((request) => request.status === 200).map((request) => request.route)).toContain(route);
      events.stop();
    },
  );
});

describe('SUBSCRIPTIONS_MAX_PER_CONNECTION and a subscription over several characters', () => {
  it("counts each character's part, and refuses the whole subscription over the limit, leaving no poller", async () => {
    const { vault, vaultFile, masterKey } = testVault('several-limits-');
    await addMaxAndErika(vault);
    const { token } = await vault.createToken({
      characters: ['max', 'erika'],
      grants: ['read', 'subscribe'],
      expiresInMs: 3_600_000,
    });
    const stack = await startStack({
      http: true,
      config: { vaultFile, vaultMasterKey: masterKey, subscriptionsMaxPerConnection: 1 },
    });
    const ws = wsClient(stack.endpoint, token);
    try {
      // The subscription's start fails: one error result, then the end.
      const events = subscribeWs(ws, AUCTIONS);
      const refused = await events.next();
      expect(refused.errors?.[0]?.extensions).toMatchObject({
        code: 'RATE_LIMITED',
        setting: 'SUBSCRIPTIONS_MAX_PER_CONNECTION',
      });
      expect(await events.ended).toBe('complete');
      await stack.gateway.subscriptions.hub.settled();
      expect(stack.gateway.subscriptions.hub.size).toBe(0);
    } finally {
      await ws.dispose();
      await stack.close();
    }
  });
});
