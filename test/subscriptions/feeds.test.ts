/**
 * Every subscription field end to end over WebSocket: a simulator change, one interval
 * on the manual clock, the event. Transactions: one event per new booking, never twice.
 */
import { once } from 'node:events';
import type { Client } from 'graphql-ws';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { ManualClock, startStack } from '../support';
import type { HttpStack } from '../support';
import { subscribeWs, wsClient } from './clients';
import type { Collected } from './clients';

describe('each subscription field', () => {
  let stack: HttpStack;
  let clock: ManualClock;
  let client: Client;

  beforeEach(async () => {
    clock = new ManualClock();
    stack = await startStack({ http: true, gateway: { now: clock.now, pollClock: clock } });
    client = wsClient(stack.endpoint, DEMO_KEYS.premium.key);
  });

  afterEach(async () => {
    await client.dispose();
    await stack.close();
  });

  /** Subscribes and waits for the first poll(s) of its feeds. */
  async function subscribe(query: string, feeds = 1): Promise<Collected> {
    let joined = 0;
    const all = new Promise<void>((resolve) => {
      const listener = (): void => {
        joined += 1;
        if (joined < feeds) return;
        stack.gateway.subscriptions.hub.activity.off('joined', listener);
        resolve();
      };
      stack.gateway.subscriptions.hub.activity.on('joined', listener);
    });
    const collected = subscribeWs(client, query);
    await all;
    return collected;
  }

  async function turn(ms: number): Promise<void> {
    const polled = once(stack.gateway.subscriptions.hub.activity, 'polled');
    clock.advance(ms);
    await polled;
    await stack.gateway.subscriptions.hub.settled();
  }

  it('transactionAdded: each new booking once, oldest first, on a building account too', async () => {
    const events = await subscribe(
      `subscription { transactionAdded(bankAccountId: "${FIXTURE_IDS.hafenMainAccount}") { bankAccountId transaction { amount reference } } }`,
    );
    stack.simulator.change({
      kind: 'transaction',
      bankAccountId: FIXTURE_IDS.hafenMainAccount,
      amount: 700,
      reference: 'Miete A',
    });
    stack.simulator.change({
      kind: 'transaction',
      bankAccountId: FIXTURE_IDS.hafenMainAccount,
      amount: 800,
      reference: 'Miete B',
    });
    await turn(60_000);
    expect((await events.next()).data?.transactionAdded).toEqual({
      bankAccountId: FIXTURE_IDS.hafenMainAccount,
      transaction: { amount: 700, reference: 'Miete A' },
    });
    expect((await events.next()).data?.transactionAdded).toMatchObject({
      transaction: { amount: 800, reference: 'Miete B' },
    });
    await turn(60_000);
    expect(events.buffered).toBe(0);
  });

  it('roomChanged: a room freed and its rent changed', async () => {
    const room = FIXTURE_IDS.hafenRooms[0] ?? '';
    const events = await subscribe(
      `subscription { roomChanged(buildingId: "${FIXTURE_IDS.hafen}") { kind previousRent room { id occupied rent } } }`,
    );
    stack.simulator.change({ kind: 'room', roomId: room, tenant: null, rent: 1234 });
    await turn(300_000);
    expect((await events.next()).data?.roomChanged).toMatchObject({
      kind: 'FREED',
      room: { id: room, occupied: false },
    });
    expect((await events.next()).data?.roomChanged).toMatchObject({
      kind: 'RENT_CHANGED',
      room: { id: room, rent: 1234 },
    });
  });

  it('myAuctionChanged: outbid on an import auction', async () => {
    const events = await subscribe(
      `subscription { myAuctionChanged { kind previousBidAmount auction { __typename ... on MyImportAuction { item bidAmount isLastBidderMe } } } }`,
      2,
    );
    const auction = '67d4b1c9e8f7a6b5c4d30001'; // character 1's Stahl import auction, which it leads
    stack.simulator.change({ kind: 'bid', auctionId: auction, bidAmount: 2000, isLastBidderMe: false });
    const polled = new Promise<void>((resolve) => {
      let count = 0;
      const listener = (): void => {
        count += 1;
        if (count === 2) resolve();
      };
      stack.gateway.subscriptions.hub.activity.on('polled', listener);
    });
    clock.advance(60_000);
    await polled;
    expect((await events.next()).data?.myAuctionChanged).toEqual({
      kind: 'OUTBID',
      previousBidAmount: 1850,
      auction: { __typename: 'MyImportAuction', item: 'Stahl', bidAmount: 2000, isLastBidderMe: false },
    });
  });

  it('factoryOptionChanged: a slot written through the gateway', async () => {
    const events = await subscribe(
      `subscription { factoryOptionChanged(factoryId: "${FIXTURE_IDS.shop}", slot: 3) { slot option { title data } } }`,
    );
    const written = await stack.post(
      {
        query: `mutation { updateFactoryOption(input: { factoryId: "${FIXTURE_IDS.shop}", slot: 3, title: "Hours", data: "Mon-Fri" }) { message } }`,
      },
      { headers: { 'x-api-secret': DEMO_KEYS.premium.secret } },
    );
    expect(written.body.errors).toBeUndefined();
    await turn(300_000);
    expect((await events.next()).data?.factoryOptionChanged).toEqual({
      slot: 3,
      option: { title: 'Hours', data: 'Mon-Fri' },
    });
  });
});
