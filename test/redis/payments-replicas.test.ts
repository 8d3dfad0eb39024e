/**
 * Payment requests on two replicas sharing a real Redis: a request created on one is
 * read on the other, its account is polled by one replica only (the transactionAdded
 * poller's leader), and a subscriber on each replica gets the PAID event once.
 */
import { once } from 'node:events';
import type { Gateway } from '../../src/server';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { describeWithRedis, useTwoReplicas } from '../support';
import { subscribeWs, wsClient } from '../subscriptions/clients';

const TRANSACTIONS = 'GET /factory/transactions/{bankId}/{limit}/{skip}';
const EVENTS = `subscription($f: ID!) { paymentReceived(factoryId: $f) { kind request { reference paidAmount } } }`;

describeWithRedis('payment requests on two replicas sharing Redis', () => {
  const replicas = useTwoReplicas('payments');

  async function post(
    gateway: Gateway,
    query: string,
    variables: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const response = await fetch(`${gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${DEMO_KEYS.premium.key}` },
      body: JSON.stringify({ query, variables }),
    });
    return ((await response.json()) as { data: Record<string, unknown> }).data;
  }

  it('polls the account on one replica, and both replicas deliver the PAID event once', async () => {
    const { a, b, clock, simulator, clients } = replicas;
    const joinedA = once(a.subscriptions.hub.activity, 'joined');
    const created = await post(
      a,
      `mutation($i: CreatePaymentRequestInput!) { createPaymentRequest(input: $i) { reference } }`,
      { i: { factoryId: FIXTURE_IDS.shop, bankAccountId: FIXTURE_IDS.shopMainAccount, amount: 12 } },
    );
    const reference = (created.createPaymentRequest as { reference: string }).reference;
    await joinedA;
    // Read on the other replica: the same store; it resumes watching there too (a follower of the same poller).
    const joinedB = once(b.subscriptions.hub.activity, 'joined');
    expect(
      await post(b, `query($r: String!) { paymentRequest(reference: $r) { status } }`, { r: reference.toLowerCase() }),
    ).toEqual({ paymentRequest: { status: 'PENDING' } });
    await joinedB;
    expect(a.subscriptions.hub.leading() + b.subscriptions.hub.leading()).toBe(1);
    const leader = a.subscriptions.hub.leading() === 1 ? a : b;
    const onA = wsClient(`${a.url}/graphql`, DEMO_KEYS.premium.key);
    const onB = wsClient(`${b.url}/graphql`, DEMO_KEYS.premium.key);
    clients.push(onA, onB);
    const listening = Promise.all([once(a.payments.activity, 'listening'), once(b.payments.activity, 'listening')]);
    const fromA = subscribeWs(onA, EVENTS, { f: FIXTURE_IDS.shop });
    const fromB = subscribeWs(onB, EVENTS, { f: FIXTURE_IDS.shop });
    await listening;
    simulator.resetRequests();
    simulator.change({
      kind: 'transaction',
      bankAccountId: FIXTURE_IDS.shopMainAccount,
      amount: 12,
      reference: `Order ${reference}`,
      otherVban: '4799001',
    });
    const matched = once(leader.payments.activity, 'matched');
    clock.advance(60_000);
    await matched;
    expect(simulator.countRequests({ route: TRANSACTIONS })).toBe(1);
    for (const events of [fromA, fromB])
      expect((await events.next()).data?.paymentReceived).toEqual({
        kind: 'PAID',
        request: { reference, paidAmount: 12 },
      });
    expect(await post(b, `query($r: String!) { paymentRequest(reference: $r) { status } }`, { r: reference })).toEqual({
      paymentRequest: { status: 'PAID' },
    });
  });

  it('matches on a replica that follows the poller, when the leader polls only for transactionAdded', async () => {
    const { a, b, clock, simulator, clients } = replicas;
    // Replica A leads the account's poller for a plain transactionAdded subscriber, and has no payment watch.
    const onA = wsClient(`${a.url}/graphql`, DEMO_KEYS.premium.key);
    clients.push(onA);
    const joinedA = once(a.subscriptions.hub.activity, 'joined');
    const transactions = subscribeWs(
      onA,
      `subscription { transactionAdded(bankAccountId: "${FIXTURE_IDS.shopMainAccount}") { transaction { amount } } }`,
    );
    await joinedA;
    expect(a.subscriptions.hub.leading()).toBe(1);
    // The request is made on replica B: its watch follows A's poller.
    const joinedB = once(b.subscriptions.hub.activity, 'joined');
    const created = await post(
      b,
      `mutation($i: CreatePaymentRequestInput!) { createPaymentRequest(input: $i) { reference } }`,
      { i: { factoryId: FIXTURE_IDS.shop, bankAccountId: FIXTURE_IDS.shopMainAccount, amount: 30 } },
    );
    const reference = (created.createPaymentRequest as { reference: string }).reference;
    await joinedB;
    expect(b.subscriptions.hub.leading()).toBe(0);
    simulator.resetRequests();
    simulator.change({
      kind: 'transaction',
      bankAccountId: FIXTURE_IDS.shopMainAccount,
      amount: 30,
      reference: `Order ${reference}`,
      otherVban: '4799001',
    });
    // B's matchings (its own first poll's may still come): until one has seen the transfer.
    const paid = new Promise<void>((resolve) => {
      b.payments.activity.on('matched', () => {
        void post(a, `query($r: String!) { paymentRequest(reference: $r) { status } }`, { r: reference }).then(
          (data) => {
            if ((data.paymentRequest as { status: string }).status === 'PAID') resolve();
          },
        );
      });
    });
    clock.advance(60_000);
    expect((await transactions.next()).data?.transactionAdded).toMatchObject({ transaction: { amount: 30 } });
    await paid;
    expect(simulator.countRequests({ route: TRANSACTIONS })).toBe(1);
    expect(
      await post(a, `query($r: String!) { paymentRequest(reference: $r) { status paidAmount } }`, { r: reference }),
    ).toEqual({ paymentRequest: { status: 'PAID', paidAmount: 30 } });
  });
});
