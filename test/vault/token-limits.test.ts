/**
 * What an access token can never do: more than its character's key (the key's scopes and
 * premium still apply to the token's operations, one character or several), or read a
 * field outside its grants over graphql-sse or as a live query (the `grants` step runs on
 * every transport, before any upstream request).
 */
import { createClient as createSseClient } from 'graphql-sse';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { startStack, testVault } from '../support';
import type { HttpStack } from '../support';
import { collect, subscribeWs, wsClient } from '../subscriptions/clients';

interface Answer {
  data?: Record<string, unknown> | null;
  errors?: Array<{ message: string; path?: Array<string | number>; extensions?: Record<string, unknown> }>;
}

describe('the limits of an access token', () => {
  const { vault, vaultFile, masterKey } = testVault('token-limits-');
  let stack: HttpStack;
  let basic: string;
  let basicAndErika: string;
  let inventoryOnly: string;

  const post = async (query: string, token: string): Promise<Answer> =>
    (await stack.post({ query }, { headers: { authorization: `Bearer ${token}` } })).body as Answer;
  const errorAt = (answer: Answer, path: Array<string | number>): Record<string, unknown> | undefined =>
    answer.errors?.find((error) => JSON.stringify(error.path) === JSON.stringify(path))?.extensions;

  beforeAll(async () => {
    await vault.addKey('max-basic', DEMO_KEYS.basic.key, null);
    await vault.addKey('erika', DEMO_KEYS.other.key, null);
    basic = (await vault.createToken({ characters: ['max-basic'], grants: ['read'], expiresInMs: 3_600_000 })).token;
    basicAndErika = (
      await vault.createToken({ characters: ['max-basic', 'erika'], grants: ['read'], expiresInMs: 3_600_000 })
    ).token;
    inventoryOnly = (
      await vault.createToken({
        characters: ['erika'],
        grants: ['read:Factory.inventory', 'subscribe'],
        expiresInMs: 3_600_000,
      })
    ).token;
    stack = await startStack({ http: true, config: { vaultFile, vaultMasterKey: masterKey } });
  });

  afterAll(async () => {
    await stack.close();
  });

  it("keeps the key's scopes and premium: a read grant over a basic key gets the key's own refusals", async () => {
    const query = `{ factory(id: "${FIXTURE_IDS.shop}") { inventory { __typename } counter { __typename } bankAccounts { id } } }`;
    const answer = await post(query, basic);
    const direct = (await stack.post({ query }, { key: DEMO_KEYS.basic.key })).body as Answer;
    expect(answer.data).toEqual(direct.data);
    expect(answer.data?.factory).toMatchObject({
      inventory: { __typename: 'Inventory' },
      counter: null,
      bankAccounts: null,
    });
    // The basic key lacks the scopes factory.counter and factory.bankaccount: the upstream's 400s, as for the key itself.
    for (const path of [
      ['factory', 'counter'],
      ['factory', 'bankAccounts'],
    ]) {
      expect(errorAt(answer, path)).toMatchObject({ code: 'UPSTREAM_BAD_REQUEST' });
      expect(errorAt(answer, path)).toEqual(errorAt(direct, path));
    }
    // And premium: the open auction lists are premium-only (the key has the scope market).
    const auctions = await post('{ importAuctions { id } }', basic);
    expect(auctions.data?.importAuctions).toBeNull();
    expect(errorAt(auctions, ['importAuctions'])).toMatchObject({ code: 'FORBIDDEN', premium: true });
  });

  it("over several characters, each key's own limits: the full key's part answers, the basic key's is refused", async () => {
    const answer = await post('{ factories { id owner { name } bankAccounts { id } } }', basicAndErika);
    const factories = answer.data?.factories as Array<{
      id: string;
      owner: { name: string };
      bankAccounts: Array<{ id: string }> | null;
    }>;
    const erika = factories.filter((factory) => factory.owner.name === 'erika');
    const max = factories.filter((factory) => factory.owner.name === 'max-basic');
    expect(erika.map((factory) => factory.bankAccounts?.map((account) => account.id))).toEqual([
      [FIXTURE_IDS.otherFactoryAccount],
    ]);
    expect(max.length).toBeGreaterThan(0);
    expect(max.every((factory) => factory.bankAccounts === null)).toBe(true);
    const refused = (answer.errors ?? []).filter((error) => error.path?.at(-1) === 'bankAccounts');
    expect(refused).toHaveLength(max.length);
    for (const error of refused) expect(error.extensions).toMatchObject({ code: 'UPSTREAM_BAD_REQUEST' });
  });

  it('refuses a field outside the grants over graphql-sse and as a live query, before any upstream request', async () => {
    const before = stack.simulator.countRequests();
    const sse = createSseClient({
      url: `${stack.origin}/graphql/stream`,
      headers: { authorization: `Bearer ${inventoryOnly}` },
      retryAttempts: 0,
    });
    try {
      const overSse = await collect((sink) => sse.subscribe({ query: '{ factories { name } }' }, sink)).next();
      expect(overSse.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN', requiredGrant: 'read:Factory.name' });
    } finally {
      sse.dispose();
    }
    const ws = wsClient(stack.endpoint, inventoryOnly);
    try {
      const live = (await subscribeWs(ws, 'query @live { factories { name } }').ended) as Array<{
        extensions?: Record<string, unknown>;
      }>;
      expect(live[0]?.extensions).toMatchObject({ code: 'FORBIDDEN', requiredGrant: 'read:Factory.name' });
      expect(stack.simulator.countRequests()).toBe(before);
      // The granted field, live, over the same connection.
      const granted = await subscribeWs(ws, 'query @live { factories { id inventory { __typename } } }').next();
      expect(granted.errors).toBeUndefined();
    } finally {
      await ws.dispose();
    }
  });
});
