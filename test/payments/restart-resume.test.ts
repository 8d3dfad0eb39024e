/**
 * Open requests after a restart: the gateway keeps no raw key, but the vault holds the
 * keys of its characters (those of access tokens and webhooks), so at start it polls the
 * accounts of their open requests by itself (a request belongs to the character's hashed
 * key, the same whether it was made with a token or with the key): a transfer booked while the gateway was down turns the request PAID without
 * any client call. A request made with a key the vault does not hold waits for its
 * owner's next call. A token creates requests only with the grant `write:payments`. The file store lives under a temporary `.data/`; pollers run on a
 * manual clock (the first poll of a resumed watch is immediate).
 */
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GatewayConfig } from '../../src/config';
import { keyId } from '../../src/economy';
import { DEMO_KEYS, FIXTURE_IDS, startSimulator } from '../../src/simulator';
import type { Simulator } from '../../src/simulator';
import { MasterKeys, Vault } from '../../src/vault';
import { FileVaultStorage } from '../../src/vault/storage';
import { ManualClock, startStack, turn } from '../support';
import type { HttpStack } from '../support';

const TRANSACTIONS = 'GET /factory/transactions/{bankId}/{limit}/{skip}';
const CREATE = `mutation($input: CreatePaymentRequestInput!) { createPaymentRequest(input: $input) { reference status } }`;

describe('open payment requests after a restart', () => {
  let folder: string;
  let simulator: Simulator;
  let stack: HttpStack | undefined;
  let config: Partial<GatewayConfig>;
  let token: string;
  let reader: string;

  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'payments-resume-'));
    simulator = await startSimulator({ port: 0 });
    const vaultFile = join(folder, '.data', 'vault.json');
    const masterKey = randomBytes(32).toString('base64');
    const vault = new Vault(new FileVaultStorage(vaultFile), MasterKeys.parse(masterKey));
    await vault.addKey('shop-owner', DEMO_KEYS.premium.key, null);
    token = (
      await vault.createToken({
        characters: ['shop-owner'],
        grants: [`factory:${FIXTURE_IDS.shop}`, 'write:payments'],
        expiresInMs: 3_600_000,
      })
    ).token;
    reader = (
      await vault.createToken({ characters: ['shop-owner'], grants: ['read', 'subscribe'], expiresInMs: 3_600_000 })
    ).token;
    config = { vaultFile, vaultMasterKey: masterKey, paymentsFile: join(folder, '.data', 'payments.json') };
  });

  afterEach(async () => {
    await stack?.close();
    stack = undefined;
    await simulator.close();
    await rm(folder, { recursive: true, force: true });
  });

  async function start(): Promise<HttpStack> {
    stack = await startStack({
      http: true,
      simulator,
      config,
      gateway: { now: new ManualClock().now, pollClock: new ManualClock() },
    });
    return stack;
  }

  async function stop(): Promise<void> {
    await stack?.close();
    stack = undefined;
  }

  /** Creates a request for the shop's main account with `key` and waits until its first poll was matched. */
  async function create(running: HttpStack, key: string, amount: number): Promise<string> {
    const matched = once(running.gateway.payments.activity, 'matched');
    const answer = await running.post(
      {
        query: CREATE,
        variables: { input: { factoryId: FIXTURE_IDS.shop, bankAccountId: FIXTURE_IDS.shopMainAccount, amount } },
      },
      { key },
    );
    const body = answer.body as { data?: { createPaymentRequest: { reference: string; status: string } } | null };
    if (!body.data) throw new Error(JSON.stringify(answer.body));
    expect(body.data.createPaymentRequest.status).toBe('PENDING');
    await matched;
    return body.data.createPaymentRequest.reference;
  }

  /** Turns the event loop until the stored request has `status` (the store read on each turn; no client call). */
  async function storedStatusBecomes(
    running: HttpStack,
    owner: string,
    reference: string,
    status: string,
  ): Promise<void> {
    for (let i = 0; i < 20_000; i += 1) {
      if ((await running.gateway.payments.store.get(owner, reference))?.status === status) return;
      await turn();
    }
    throw new Error(`gave up waiting for ${reference} to become ${status}`);
  }

  it('polls the account of a request made through an access token again at start, and the transfer booked meanwhile pays it without a call', async () => {
    const owner = keyId(DEMO_KEYS.premium.key, (await start()).config.keyHashSecret);
    const reference = await create(stack as HttpStack, token, 30);
    await stop();
    simulator.change({
      kind: 'transaction',
      bankAccountId: FIXTURE_IDS.shopMainAccount,
      amount: 30,
      reference: `Order ${reference}`,
      otherVban: '4799001',
    });
    const before = simulator.countRequests({ route: TRANSACTIONS });
    const restarted = await start();
    await storedStatusBecomes(restarted, owner, reference, 'PAID');
    expect(simulator.countRequests({ route: TRANSACTIONS }) - before).toBe(1);
    expect(await restarted.gateway.payments.store.get(owner, reference)).toMatchObject({
      status: 'PAID',
      transfers: [{ amount: 30 }],
    });
  });

  it('lets a token create payment requests only with write:payments, and only for its companies', async () => {
    const running = await start();
    const before = simulator.countRequests();
    const input = { factoryId: FIXTURE_IDS.shop, bankAccountId: FIXTURE_IDS.shopMainAccount, amount: 5 };
    const refused = await running.post({ query: CREATE, variables: { input } }, { key: reader });
    expect(refused.body).toMatchObject({
      errors: [{ extensions: { code: 'FORBIDDEN', requiredGrant: 'write:payments' } }],
    });
    const cancel = await running.post(
      { query: 'mutation { cancelPaymentRequest(reference: "ABCDEFGH") { status } }' },
      { key: reader },
    );
    expect(cancel.body).toMatchObject({
      errors: [{ extensions: { code: 'FORBIDDEN', requiredGrant: 'write:payments' } }],
    });
    const elsewhere = await running.post(
      {
        query: CREATE,
        variables: { input: { ...input, factoryId: FIXTURE_IDS.farm, bankAccountId: FIXTURE_IDS.farmAccount } },
      },
      { key: token },
    );
    expect(elsewhere.body).toMatchObject({
      errors: [{ extensions: { code: 'FORBIDDEN', requiredGrant: `factory:${FIXTURE_IDS.farm}` } }],
    });
    expect(simulator.countRequests()).toBe(before);
    expect(
      await running.gateway.payments.store.open(keyId(DEMO_KEYS.premium.key, running.config.keyHashSecret)),
    ).toEqual([]);
  });

  it("leaves a request made with a key the vault does not hold to its owner's next call", async () => {
    const owner = keyId(DEMO_KEYS.other.key, (await start()).config.keyHashSecret);
    const matched = once((stack as HttpStack).gateway.payments.activity, 'matched');
    const answer = await (stack as HttpStack).post(
      {
        query: CREATE,
        variables: {
          input: { factoryId: FIXTURE_IDS.otherFactory, bankAccountId: FIXTURE_IDS.otherFactoryAccount, amount: 12 },
        },
      },
      { key: DEMO_KEYS.other.key },
    );
    const reference = (answer.body as { data: { createPaymentRequest: { reference: string } } }).data
      .createPaymentRequest.reference;
    await matched;
    await stop();
    simulator.change({
      kind: 'transaction',
      bankAccountId: FIXTURE_IDS.otherFactoryAccount,
      amount: 12,
      reference,
      otherVban: '4799001',
    });
    const before = simulator.countRequests({ route: TRANSACTIONS });
    const restarted = await start();
    await restarted.gateway.payments.resumeHeld(); // what the start did: nothing for this owner
    expect(simulator.countRequests({ route: TRANSACTIONS }) - before).toBe(0);
    expect(await restarted.gateway.payments.store.get(owner, reference)).toMatchObject({ status: 'PENDING' });
    const resumed = once(restarted.gateway.payments.activity, 'matched');
    await restarted.post(
      { query: `{ paymentRequest(reference: "${reference}") { status } }` },
      { key: DEMO_KEYS.other.key },
    );
    await resumed;
    await storedStatusBecomes(restarted, owner, reference, 'PAID');
  });
});
