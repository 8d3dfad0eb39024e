/**
 * Payment requests end to end: the gateway over HTTP against the simulator, pollers on a
 * manual clock. A transfer injected into the simulator turns a request PAID, delivered
 * by paymentReceived over graphql-ws and graphql-sse; accounts share the
 * transactionAdded poller; missed transfers are read from further pages; requests
 * survive a restart; callers without premium get the transactions' error.
 */
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient as createSseClient } from 'graphql-sse';
import type { Client as SseClient } from 'graphql-sse';
import type { Client } from 'graphql-ws';
import { keyId } from '../../src/economy';
import { DEMO_KEYS, FIXTURE_IDS, startSimulator } from '../../src/simulator';
import type { Simulator } from '../../src/simulator';
import { ManualClock, startStack, until } from '../support';
import type { HttpStack } from '../support';
import { collect, subscribeWs, wsClient } from '../subscriptions/clients';
import type { Collected } from '../subscriptions/clients';

const TRANSACTIONS = 'GET /factory/transactions/{bankId}/{limit}/{skip}';
const CREATE = `mutation($input: CreatePaymentRequestInput!) { createPaymentRequest(input: $input) { reference vban status amount paidAmount } }`;
const EVENTS = `subscription($f: ID!) { paymentReceived(factoryId: $f) { kind request { reference status paidAmount transfers { amount reference } } } }`;

describe('payment requests over the simulator', () => {
  let simulator: Simulator;
  let stack: HttpStack;
  let clock: ManualClock;
  let client: Client;
  let folder: string;

  async function start(config: Record<string, unknown> = {}): Promise<void> {
    clock = new ManualClock();
    stack = await startStack({ http: true, simulator, config, gateway: { now: clock.now, pollClock: clock } });
    client = wsClient(stack.endpoint, DEMO_KEYS.premium.key);
  }

  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'payments-e2e-'));
    simulator = await startSimulator({ port: 0 });
    await start();
  });

  afterEach(async () => {
    await client.dispose();
    await stack.close();
    await simulator.close();
    await rm(folder, { recursive: true, force: true });
  });

  /** paymentReceived of the shop over graphql-ws and over graphql-sse, once both listen. */
  async function subscribeOnBoth(): Promise<{ ws: Collected; sse: SseClient; sseEvents: Collected }> {
    let streams = 0;
    const listening = new Promise<void>((resolve) =>
      stack.gateway.payments.activity.on('listening', () => {
        streams += 1;
        if (streams === 2) resolve();
      }),
    );
    const ws = subscribeWs(client, EVENTS, { f: FIXTURE_IDS.shop });
    const sse = createSseClient({
      url: `${stack.gateway.url}/graphql/stream`,
      headers: { authorization: `Bearer ${DEMO_KEYS.premium.key}` },
      retryAttempts: 0,
    });
    const sseEvents = collect((sink) => sse.subscribe({ query: EVENTS, variables: { f: FIXTURE_IDS.shop } }, sink));
    await listening;
    return { ws, sse, sseEvents };
  }

  /** Creates a request and waits for the first poll of its account to be matched (as a premium caller). */
  async function create(
    amount: number,
    key = DEMO_KEYS.premium.key,
  ): Promise<{ reference: string; vban: string; status: string }> {
    const watched = once(stack.gateway.payments.activity, 'matched');
    const answer = await stack.post(
      {
        query: CREATE,
        variables: { input: { factoryId: FIXTURE_IDS.shop, bankAccountId: FIXTURE_IDS.shopMainAccount, amount } },
      },
      { key },
    );
    const body = answer.body as {
      data?: { createPaymentRequest: { reference: string; vban: string; status: string } } | null;
    };
    if (!body.data) throw new Error(JSON.stringify(answer.body));
    await watched;
    return body.data.createPaymentRequest;
  }

  async function statusOf(reference: string): Promise<unknown> {
    const answer = await stack.post({
      query: `query($r: String!) { paymentRequest(reference: $r) { status paidAmount } }`,
      variables: { r: reference },
    });
    return (answer.body as { data: { paymentRequest: unknown } }).data.paymentRequest;
  }

  /** One poll interval on the manual clock, then the matching of what it read. */
  async function turn(): Promise<void> {
    const matched = once(stack.gateway.payments.activity, 'matched');
    clock.advance(60_000);
    await matched;
    await stack.gateway.subscriptions.hub.settled();
  }

  function pay(amount: number, reference: string): void {
    simulator.change({
      kind: 'transaction',
      bankAccountId: FIXTURE_IDS.shopMainAccount,
      amount,
      reference,
      otherVban: '4799001',
    });
  }

  it('a transfer turns the request PAID, once over graphql-ws and once over graphql-sse', async () => {
    const { ws, sse, sseEvents } = await subscribeOnBoth();
    const request = await create(100);
    expect(request).toMatchObject({ vban: '4711002', status: 'PENDING' });
    pay(40, `Order ${request.reference.toLowerCase()}`);
    await turn();
    pay(60, request.reference.slice(0, 4) + '-' + request.reference.slice(4));
    await turn();
    for (const events of [ws, sseEvents]) {
      expect((await events.next()).data?.paymentReceived).toMatchObject({
        kind: 'PARTIALLY_PAID',
        request: { reference: request.reference, paidAmount: 40 },
      });
      expect((await events.next()).data?.paymentReceived).toMatchObject({
        kind: 'PAID',
        request: { status: 'PAID', paidAmount: 100, transfers: [{ amount: 40 }, { amount: 60 }] },
      });
      expect(events.buffered).toBe(0);
    }
    expect(await statusOf(request.reference)).toEqual({ status: 'PAID', paidAmount: 100 });
    sse.dispose();
  });

  it('shares the transactionAdded poller of the account, and stops polling once nothing is open', async () => {
    const transactions = subscribeWs(
      client,
      `subscription { transactionAdded(bankAccountId: "${FIXTURE_IDS.shopMainAccount}") { transaction { amount } } }`,
    );
    const request = await create(10);
    expect(stack.gateway.subscriptions.hub.size).toBe(1);
    const before = simulator.countRequests({ route: TRANSACTIONS });
    pay(10, request.reference);
    await turn();
    expect(simulator.countRequests({ route: TRANSACTIONS }) - before).toBe(1);
    expect((await transactions.next()).data?.transactionAdded).toEqual({ transaction: { amount: 10 } });
    expect(await statusOf(request.reference)).toMatchObject({ status: 'PAID' });
    transactions.stop();
    await once(stack.gateway.subscriptions.hub.activity, 'stopped');
    expect(stack.gateway.subscriptions.hub.size).toBe(0);
  });

  it('reads further pages when the newest page shows that transfers were missed', async () => {
    const request = await create(10);
    pay(10, request.reference);
    for (let i = 0; i < 30; i += 1) pay(1, `noise ${i}`);
    await turn();
    expect(
      simulator.requests.filter((r) => r.route === TRANSACTIONS).map((r) => r.path.split('/').slice(-2).join('/')),
    ).toEqual(['25/0', '25/0', '25/25']);
    expect(await statusOf(request.reference)).toMatchObject({ status: 'PAID' });
  });

  it('a caller without premium gets the error BankAccount.transactions gives, and nothing is stored', async () => {
    const transactions = await stack.post(
      { query: `{ factory(id: "${FIXTURE_IDS.shop}") { bankAccounts { transactions { totalTransactions } } } }` },
      { key: DEMO_KEYS.basic.key },
    );
    const refused = await stack.post(
      {
        query: CREATE,
        variables: { input: { factoryId: FIXTURE_IDS.shop, bankAccountId: FIXTURE_IDS.shopMainAccount, amount: 5 } },
      },
      { key: DEMO_KEYS.basic.key },
    );
    const codeOf = (body: unknown): unknown =>
      (body as { errors?: Array<{ extensions?: { code?: string } }> }).errors?.[0]?.extensions?.code;
    expect(codeOf(refused.body)).toBeDefined();
    expect(codeOf(refused.body)).toBe(codeOf(transactions.body));
    const listed = await stack.post(
      { query: `{ paymentRequests(factoryId: "${FIXTURE_IDS.shop}") { reference } }` },
      { key: DEMO_KEYS.basic.key },
    );
    expect(listed.body).toMatchObject({ data: { paymentRequests: [] } });
  });

  it('open requests survive a restart, and their account is polled again once their owner calls', async () => {
    const file = join(folder, 'payments.json');
    await client.dispose();
    await stack.close();
    await start({ paymentsFile: file });
    const request = await create(25);
    await client.dispose();
    await stack.close();
    pay(25, request.reference); // while the gateway is down
    await start({ paymentsFile: file });
    const matched = once(stack.gateway.payments.activity, 'matched');
    await statusOf(request.reference); // the owner's first call resumes the polling
    await matched;
    expect(await statusOf(request.reference)).toEqual({ status: 'PAID', paidAmount: 25 });
  });

  it("counts paymentReceived against the key's subscription limit, and gives the count back when it ends", async () => {
    await client.dispose();
    await stack.close();
    await start({ subscriptionsMaxPerKey: 2 });
    const service = stack.gateway.subscriptions.service;
    const id = keyId(DEMO_KEYS.premium.key, stack.config.keyHashSecret);
    const first = subscribeWs(client, EVENTS, { f: FIXTURE_IDS.shop });
    const second = subscribeWs(client, EVENTS, { f: FIXTURE_IDS.shop });
    await until(() => service.openFor(id) === 2, 'two payment subscriptions counted', 100_000);
    const third = subscribeWs(client, EVENTS, { f: FIXTURE_IDS.shop });
    expect((await third.next()).errors?.[0]?.extensions).toMatchObject({
      code: 'RATE_LIMITED',
      setting: 'SUBSCRIPTIONS_MAX_PER_KEY',
    });
    expect(await third.ended).toBe('complete');
    expect(service.openFor(id)).toBe(2);
    first.stop();
    await until(() => service.openFor(id) === 1, 'the first one given back', 100_000);
    const again = subscribeWs(client, EVENTS, { f: FIXTURE_IDS.shop });
    await until(() => service.openFor(id) === 2, 'another one counted', 100_000);
    second.stop();
    again.stop();
    await until(() => service.openFor(id) === 0, 'every one given back', 100_000);
  });

  it('an unpaid request expires at expiresAt, once, with an EXPIRED event over graphql-ws and graphql-sse', async () => {
    const { ws, sse, sseEvents } = await subscribeOnBoth();
    const answer = await stack.post({
      query: CREATE,
      variables: {
        input: {
          factoryId: FIXTURE_IDS.shop,
          bankAccountId: FIXTURE_IDS.shopMainAccount,
          amount: 25,
          expiresInSeconds: 120,
        },
      },
    });
    const { reference } = (answer.body as { data: { createPaymentRequest: { reference: string } } }).data
      .createPaymentRequest;
    // Not due yet: the sweep leaves it open.
    clock.advance(119_000);
    await stack.gateway.payments.sweep();
    expect(await statusOf(reference)).toEqual({ status: 'PENDING', paidAmount: 0 });
    clock.advance(2_000);
    await stack.gateway.payments.sweep();
    await stack.gateway.payments.sweep();
    for (const events of [ws, sseEvents]) {
      expect((await events.next()).data?.paymentReceived).toMatchObject({
        kind: 'EXPIRED',
        request: { reference, status: 'EXPIRED', paidAmount: 0 },
      });
      expect(events.buffered).toBe(0);
    }
    expect(await statusOf(reference)).toEqual({ status: 'EXPIRED', paidAmount: 0 });
    sse.dispose();
  });
});
