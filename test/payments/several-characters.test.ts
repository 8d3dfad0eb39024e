/**
 * Payment requests of a token over several characters: each request belongs to the
 * character that owns the company, so `createPaymentRequest`, `paymentRequests` and
 * `unmatchedTransfers` go to the key whose company list holds the company, and
 * `paymentRequest` and `cancelPaymentRequest` find the reference in whichever
 * character's requests hold it (the gateway's store, no upstream request).
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DEMO_KEYS, MERCHANT_IDS, MERCHANT_KEY } from '../../src/simulator';
import { startStack, testVault } from '../support';
import type { HttpStack } from '../support';

const CREATE = `mutation($input: CreatePaymentRequestInput!) { createPaymentRequest(input: $input) { reference status factoryId } }`;

interface Answer {
  data?: Record<string, unknown> | null;
  errors?: Array<{ message: string; extensions?: { code?: string } }>;
}

describe('payment requests of a token over several characters', () => {
  let folder: string;
  let stack: HttpStack;
  let token: string;

  beforeAll(async () => {
    const created = testVault('payments-several-');
    const { vault, vaultFile, masterKey } = created;
    folder = created.folder;
    // The merchant is the second character: the first key does not own the merchant's companies.
    await vault.addKey('max', DEMO_KEYS.premium.key, null);
    await vault.addKey('merchant', MERCHANT_KEY.key, null);
    token = (
      await vault.createToken({
        characters: ['max', 'merchant'],
        grants: ['read', 'write:payments'],
        expiresInMs: 3_600_000,
      })
    ).token;
    stack = await startStack({
      http: true,
      config: { vaultFile, vaultMasterKey: masterKey, paymentsFile: join(folder, 'payments.json') },
    });
  });

  afterAll(async () => {
    await stack.close();
    await rm(folder, { recursive: true, force: true });
  });

  const post = async (query: string, variables: Record<string, unknown>, key = token): Promise<Answer> =>
    (await stack.post({ query, variables }, { key })).body as Answer;

  it("creates, finds, lists and cancels a request of the second character's company with that character's key", async () => {
    const created = await post(CREATE, {
      input: { factoryId: MERCHANT_IDS.tradingHouse, bankAccountId: MERCHANT_IDS.accounts[0], amount: 40 },
    });
    expect(created.errors).toBeUndefined();
    const { reference } = created.data?.createPaymentRequest as { reference: string };
    expect(created.data?.createPaymentRequest).toMatchObject({
      status: 'PENDING',
      factoryId: MERCHANT_IDS.tradingHouse,
    });

    const found = await post('query($r: String!) { paymentRequest(reference: $r) { reference amount } }', {
      r: reference,
    });
    expect(found.data).toEqual({ paymentRequest: { reference, amount: 40 } });
    const listed = await post(
      'query($f: ID!) { paymentRequests(factoryId: $f) { reference } unmatchedTransfers(factoryId: $f) { reference } }',
      { f: MERCHANT_IDS.tradingHouse },
    );
    expect(listed.errors).toBeUndefined();
    expect(listed.data?.paymentRequests).toEqual([{ reference }]);

    // The request is the merchant's: the merchant's own key sees it, the first character's does not.
    const byMerchant = await post(
      'query($r: String!) { paymentRequest(reference: $r) { reference } }',
      { r: reference },
      MERCHANT_KEY.key,
    );
    expect(byMerchant.data?.paymentRequest).toEqual({ reference });
    const byMax = await post(
      'query($r: String!) { paymentRequest(reference: $r) { reference } }',
      { r: reference },
      DEMO_KEYS.premium.key,
    );
    expect(byMax.data?.paymentRequest).toBeNull();

    const cancelled = await post('mutation($r: String!) { cancelPaymentRequest(reference: $r) { status } }', {
      r: reference,
    });
    expect(cancelled.data).toEqual({ cancelPaymentRequest: { status: 'CANCELLED' } });
  });

  it('refuses a bad input before finding the owner', async () => {
    const before = stack.simulator.countRequests();
    const refused = await post(CREATE, {
      input: { factoryId: MERCHANT_IDS.logistics, bankAccountId: MERCHANT_IDS.accounts[6], amount: -1 },
    });
    expect(refused.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(stack.simulator.countRequests()).toBe(before);
  });
});
