/**
 * `siteDocumentEditor`: the administration graph mints the console's short-lived token for
 * editing one company's site documents on the public graph. Minting sends no upstream
 * request and is audited; the token is narrow (that company, that document), bound to the
 * gateway's origin, labelled, and ends after 15 minutes (the next mint removes it).
 */
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { T0, advanceClock, send, useStack } from '../support';
import { adminPost, testVault } from './admin-helpers';
import type { Answer, TestVault } from './admin-helpers';

const MINT = `mutation ($input: SiteDocumentEditorInput!) {
  siteDocumentEditor(input: $input) { token id grants expiresAt origin budgetShare }
}`;

interface Minted {
  token: string;
  id: string;
  grants: string[];
  expiresAt: string;
  origin: string;
  budgetShare: number | null;
}

describe('siteDocumentEditor: the console edits site documents on the public graph with a token of its own', () => {
  let vault: TestVault;
  let admin = '';
  const stack = useStack(async () => {
    vault = await testVault();
    ({ token: admin } = await vault.vault.createToken({ characters: [], grants: ['admin'], expiresInMs: 86_400_000 }));
    return {
      http: true,
      fakeDate: T0,
      config: {
        vaultFile: vault.vaultFile,
        vaultMasterKey: vault.masterKey,
        upstreamRateLimit: { requests: 100, windowSeconds: 60 },
      },
    };
  });

  const run = async (query: string, variables?: unknown): Promise<Answer> =>
    (await adminPost(stack.origin, query, { authorization: `Bearer ${admin}` }, variables)).body;

  const mint = async (input: Record<string, unknown>): Promise<Answer> => run(MINT, { input });

  /** A request to the public graph with the token, from the gateway's own origin (or another). */
  const publicPost = async (
    token: string,
    query: string,
    variables: unknown = {},
    origin: string | null = stack.origin,
  ): Promise<{ status: number; body: Answer }> => {
    const response = await send(stack.origin, {
      method: 'POST',
      path: '/graphql',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${token}`,
        ...(origin === null ? {} : { origin }),
      },
      body: JSON.stringify({ query, variables }),
    });
    return { status: response.status, body: JSON.parse(response.text) as Answer };
  };

  const SET = `mutation ($input: SetSiteDocumentInput!) {
    setSiteDocument(input: $input) { committed document { version } }
  }`;

  let catalogue: Minted;

  it('mints a labelled, origin-bound token for one company and document, audited, without an upstream request', async () => {
    const added = await run('mutation ($input: AddVaultKeyInput!) { addVaultKey(input: $input) { name companies } }', {
      input: { name: 'owner', key: DEMO_KEYS.premium.key, secret: DEMO_KEYS.premium.secret },
    });
    expect(added.errors).toBeUndefined();
    const before = stack.simulator.requests.length;

    const answer = await mint({ character: 'owner', factoryId: FIXTURE_IDS.shop, name: 'catalogue' });
    expect(answer.errors).toBeUndefined();
    catalogue = answer.data?.siteDocumentEditor as Minted;
    expect(catalogue).toEqual({
      token: expect.stringMatching(/^svg_/),
      id: expect.stringMatching(/^tok_/),
      grants: [`factory:${FIXTURE_IDS.shop}`, 'write:siteDocument:catalogue'],
      expiresAt: new Date(T0 + 15 * 60_000).toISOString(),
      origin: stack.origin,
      budgetShare: 100,
    });

    const refusals = await Promise.all([
      mint({ character: 'owner', factoryId: FIXTURE_IDS.otherFactory, name: 'catalogue' }),
      mint({ character: 'shop', factoryId: FIXTURE_IDS.shop }),
      mint({ character: 'owner', factoryId: FIXTURE_IDS.shop, name: 'Not A Name' }),
      mint({ character: 'nobody', factoryId: FIXTURE_IDS.shop }),
    ]);
    expect(refusals.map((each) => [each.errors?.[0]?.extensions?.code, each.errors?.[0]?.message])).toEqual([
      ['BAD_USER_INPUT', expect.stringMatching(/names a company that owner does not own/)],
      ['BAD_USER_INPUT', expect.stringMatching(/does not know which companies shop owns/)],
      ['BAD_USER_INPUT', expect.stringMatching(/site document name "Not A Name" is not valid/)],
      ['BAD_USER_INPUT', 'The vault has no character "nobody".'],
    ]);
    expect(stack.simulator.requests.length).toBe(before);

    const listed = await run('{ accessTokens { id characters grants origin budgetShare label } }');
    expect(listed.data?.accessTokens).toContainEqual({
      id: catalogue.id,
      characters: ['owner'],
      grants: catalogue.grants,
      origin: stack.origin,
      budgetShare: 100,
      label: 'console: site documents',
    });
    const audit = await run('{ auditLog(first: 5) { actor action target outcome } }');
    expect(
      (audit.data?.auditLog as Array<{ action: string; outcome: string }>).map((e) => `${e.action} ${e.outcome}`),
    ).toEqual([...Array(4).fill('siteDocumentEditor refused: BAD_USER_INPUT'), 'siteDocumentEditor done']);
    expect((audit.data?.auditLog as Array<{ target: string }>)[4]?.target).toBe(
      `${catalogue.id} ${FIXTURE_IDS.shop}/catalogue`,
    );
    expect(JSON.stringify(audit.data)).not.toContain(catalogue.token);
  });

  it('writes and reads that document on the public graph at once, with its version; nothing else', async () => {
    const input = { factoryId: FIXTURE_IDS.shop, name: 'catalogue', value: { items: [1] }, expectedVersion: 0 };
    const written = await publicPost(catalogue.token, SET, { input });
    expect(written.body).toMatchObject({ data: { setSiteDocument: { committed: true, document: { version: 1 } } } });
    const conflict = await publicPost(catalogue.token, SET, { input });
    expect(conflict.body.errors?.[0]?.extensions).toEqual(
      expect.objectContaining({ code: 'CONFLICT', currentVersion: 1 }),
    );
    const list = await publicPost(
      catalogue.token,
      `{ factory(id: "${FIXTURE_IDS.shop}") { siteDocuments { name version } siteDocumentCapacity { freeSlots } } }`,
    );
    expect(list.body.errors).toBeUndefined();
    expect(list.body.data?.factory).toEqual(
      expect.objectContaining({ siteDocuments: expect.arrayContaining([{ name: 'catalogue', version: 1 }]) }),
    );

    const otherName = await publicPost(catalogue.token, SET, { input: { ...input, name: 'hours' } });
    expect(otherName.body.errors?.[0]?.extensions?.requiredGrant).toBe('write:siteDocument:hours');
    const otherCompany = await publicPost(catalogue.token, `{ factory(id: "${FIXTURE_IDS.otherFactory}") { name } }`);
    expect(otherCompany.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const buildings = await publicPost(catalogue.token, '{ buildings { id } }');
    expect(buildings.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const elsewhere = await publicPost(catalogue.token, '{ viewer { kind } }', {}, 'https://evil.example');
    expect(elsewhere.status).toBe(401);
    const noOrigin = await publicPost(catalogue.token, '{ viewer { kind } }', {}, null);
    expect(noOrigin.status).toBe(401);

    // Without a name: a token that reads the company's documents and writes none.
    const reader = (await mint({ character: 'owner', factoryId: FIXTURE_IDS.shop })).data?.siteDocumentEditor as Minted;
    expect(reader.grants).toEqual([`factory:${FIXTURE_IDS.shop}`]);
    const read = await publicPost(
      reader.token,
      `{ factory(id: "${FIXTURE_IDS.shop}") { siteDocument(name: "catalogue") { version value } } }`,
    );
    expect(read.body).toMatchObject({ data: { factory: { siteDocument: { version: 1, value: { items: [1] } } } } });
    const refused = await publicPost(reader.token, SET, { input: { ...input, expectedVersion: 1 } });
    expect(refused.body.errors?.[0]?.extensions?.requiredGrant).toBe('write:siteDocument:catalogue');
  });

  it('ends after 15 minutes; the next mint removes the expired editor tokens and no other token', async () => {
    advanceClock(15 * 60_000 + 1000);
    const expired = await publicPost(catalogue.token, '{ viewer { kind } }');
    expect(expired.status).toBe(401);
    expect(expired.body.errors?.[0]?.message).toMatch(/expired/);

    const fresh = (await mint({ character: 'owner', factoryId: FIXTURE_IDS.shop, name: 'catalogue' })).data
      ?.siteDocumentEditor as Minted;
    const listed = (await run('{ accessTokens { id label } }')).data?.accessTokens as Array<{
      id: string;
      label: string | null;
    }>;
    expect(listed.map((each) => each.id).sort()).toEqual(
      [fresh.id, ...listed.filter((each) => each.label === null).map((each) => each.id)].sort(),
    );
    expect(listed.filter((each) => each.label === null)).toHaveLength(1); // the admin token
    const works = await publicPost(fresh.token, '{ viewer { kind tokenId } }');
    expect(works.body).toMatchObject({ data: { viewer: { kind: 'TOKEN', tokenId: fresh.id } } });
  });
});
