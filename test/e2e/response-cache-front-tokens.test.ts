import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { MasterKeys, Vault } from '../../src/vault';
import { FileVaultStorage } from '../../src/vault/storage';
import { useStack } from '../support';
import type { HttpAnswer } from '../support';

// A response cache hit of an access token (over one character) is answered by the HTTP layer
// before Apollo (src/web/cached-answers.ts), as a key's is: the same bytes and headers as
// through Apollo, and only ever the token's own entry, which Apollo made after its grants.
const folder = mkdtempSync(join(tmpdir(), 'response-cache-front-tokens-'));
const vaultFile = join(folder, 'vault.json');
const masterKey = randomBytes(32).toString('base64');
const vault = new Vault(new FileVaultStorage(vaultFile), MasterKeys.parse(masterKey));

const stack = useStack(async () => {
  await vault.addKey('shop', DEMO_KEYS.premium.key, null);
  return { http: true, config: { responseCacheEnabled: true, vaultFile, vaultMasterKey: masterKey } };
});

const FACTORIES = { query: '{ factories { id name } }' };

/** A new token over the premium key with `grants`. */
async function tokenWith(grants: readonly string[]): Promise<string> {
  return (await vault.createToken({ characters: ['shop'], grants: [...grants], expiresInMs: 3_600_000 })).token;
}

/** The headers a client sees, without those of the connection and the clock. */
function headersOf(answer: HttpAnswer): Record<string, string> {
  const kept: Record<string, string> = {};
  answer.headers.forEach((value, name) => {
    if (!['date', 'connection', 'keep-alive'].includes(name)) kept[name] = value;
  });
  return kept;
}

/** Posts `body` with `token`; `early` tells whether the HTTP layer answered it (no operation step ran). */
async function post(body: unknown, token: string): Promise<{ answer: HttpAnswer; early: boolean }> {
  let steps = 0;
  const stop = stack.runtime.pipeline.observe((step) => {
    if (step === 'operation-shape') steps += 1;
  });
  try {
    const answer = await stack.post(body, { key: token });
    return { answer, early: steps === 0 };
  } finally {
    stop();
  }
}

/** The ids of the factories an answer holds. */
function factoryIds(answer: HttpAnswer): string[] {
  const data = answer.body.data as { factories?: Array<{ id: string }> } | null | undefined;
  return (data?.factories ?? []).map((factory) => factory.id).sort();
}

it("answers a token's hit before the pipeline with the same bytes and headers as through Apollo", async () => {
  const token = await tokenWith(['read']);
  const first = await post(FACTORIES, token);
  expect(first.early).toBe(false);
  // The HTTP layer finds no stored answer (see response-cache-front.test.ts): the hit goes through Apollo.
  const hits = stack.runtime.responseCacheHits?.hits;
  if (!hits) throw new Error('the response cache is off');
  const find = jest.spyOn(hits, 'find').mockReturnValue(undefined);
  const viaApollo = await post(FACTORIES, token).finally(() => find.mockRestore());
  const front = await post(FACTORIES, token);
  expect(viaApollo.early).toBe(false);
  expect(viaApollo.answer.body.extensions?.responseCache).toMatchObject({ hit: true });
  expect(front.early).toBe(true);
  expect(front.answer.status).toBe(viaApollo.answer.status);
  expect(headersOf(front.answer)).toEqual(headersOf(viaApollo.answer));
  expect(front.answer.text).toBe(viaApollo.answer.text);
});

it("never answers a token with another token's or the key's bytes: a company-scoped token sees its company only", async () => {
  const all = await tokenWith(['read']);
  const shop = await tokenWith(['read', `factory:${FIXTURE_IDS.shop}`]);
  const key = DEMO_KEYS.premium.key;
  // The scoped token fills its entry first; then the token over every company, then the key itself.
  const scoped = factoryIds((await post(FACTORIES, shop)).answer);
  expect(scoped).toEqual([FIXTURE_IDS.shop]);
  const everything = factoryIds((await post(FACTORIES, all)).answer);
  expect(everything.length).toBeGreaterThan(1);
  expect(factoryIds((await post(FACTORIES, key)).answer)).toEqual(everything);
  for (let round = 0; round < 2; round += 1) {
    const again = await post(FACTORIES, shop);
    expect(again.early).toBe(true);
    expect(factoryIds(again.answer)).toEqual(scoped);
    const wide = await post(FACTORIES, all);
    expect(wide.early).toBe(true);
    expect(factoryIds(wide.answer)).toEqual(everything);
  }
});

it('never answers a request the grants refuse before the pipeline, however often it is sent', async () => {
  const inventoryOnly = await tokenWith(['read:Factory.inventory']);
  for (let round = 0; round < 3; round += 1) {
    const { answer, early } = await post(FACTORIES, inventoryOnly);
    expect(early).toBe(false);
    expect(answer.body.data ?? null).toBeNull();
    expect(answer.body.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN' });
  }
});

it('links a raw request to an entry only once its answer is stored or read back', async () => {
  const hits = stack.runtime.responseCacheHits?.hits;
  if (!hits) throw new Error('the response cache is off');
  const shop = await tokenWith([`factory:${FIXTURE_IDS.shop}`]);
  const before = hits.linked;
  // Distinct requests the grants let through but the resolver refuses: never stored, so no link
  // (each one linked filled the links' bound with links to nothing).
  for (let i = 0; i < 3; i += 1) {
    const { answer } = await post(
      { query: `query Other${i}($id: ID!) { factory(id: $id) { id } }`, variables: { id: `other-${i}` } },
      shop,
    );
    expect(answer.body.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN' });
  }
  expect(hits.linked).toBe(before);
  const own = { query: 'query Own($id: ID!) { factory(id: $id) { id } }', variables: { id: FIXTURE_IDS.shop } };
  expect((await post(own, shop)).early).toBe(false);
  expect(hits.linked).toBe(before + 1);
  // Another text of the same request reads the stored entry back through Apollo: linked too.
  const spaced = { variables: own.variables, query: own.query };
  expect((await post(spaced, shop)).answer.body.extensions?.responseCache).toMatchObject({ hit: true });
  expect(hits.linked).toBe(before + 2);
  expect((await post(spaced, shop)).early).toBe(true);
});
