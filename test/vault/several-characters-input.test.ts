/**
 * A write of a token over several characters refuses bad input before any upstream request,
 * as with one key: the owner of the company it names is looked up (each key's company list)
 * only after the write's input checks (`@CheckedBeforeOwner`).
 */
import { randomBytes } from 'node:crypto';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { startStack, testVault } from '../support';
import type { HttpStack } from '../support';

describe('a write of a token over several characters', () => {
  const { vault, vaultFile, masterKey } = testVault('several-characters-input-');
  let stack: HttpStack;
  let both: string;

  beforeAll(async () => {
    await vault.addKey('max', DEMO_KEYS.premium.key, DEMO_KEYS.premium.secret);
    await vault.addKey('erika', DEMO_KEYS.other.key, DEMO_KEYS.other.secret);
    ({ token: both } = await vault.createToken({
      characters: ['max', 'erika'],
      grants: ['read', 'write:siteDocument:catalogue'],
      expiresInMs: 3_600_000,
    }));
    stack = await startStack({ http: true, config: { vaultFile, vaultMasterKey: masterKey, upstreamRateLimit: null } });
  });

  afterAll(async () => {
    await stack.close();
  });

  const write = async (
    query: string,
    input: Record<string, unknown>,
  ): Promise<{ errors?: Array<{ extensions?: { code?: string } }> }> =>
    (await stack.post({ query, variables: { input } }, { headers: { authorization: `Bearer ${both}` } })).body as {
      errors?: Array<{ extensions?: { code?: string } }>;
    };

  it.each([
    [
      'a value that cannot fit the slots',
      { value: { text: randomBytes(40_000).toString('base64') } },
      'SITE_DOCUMENT_TOO_LARGE',
    ],
    ['a negative expectedVersion', { value: { items: [] }, expectedVersion: -1 }, 'BAD_USER_INPUT'],
  ])('refuses %s before any upstream request', async (_name, fields, code) => {
    const before = stack.simulator.countRequests();
    const answer = await write(
      'mutation ($input: SetSiteDocumentInput!) { setSiteDocument(input: $input) { committed } }',
      { factoryId: FIXTURE_IDS.otherFactory, name: 'catalogue', ...fields },
    );
    expect(answer.errors?.[0]?.extensions?.code).toBe(code);
    expect(stack.simulator.countRequests()).toBe(before);
  });

  it('refuses a delete with a negative expectedVersion before any upstream request', async () => {
    const before = stack.simulator.countRequests();
    const answer = await write(
      'mutation ($input: DeleteSiteDocumentInput!) { deleteSiteDocument(input: $input) { replacedVersion } }',
      { factoryId: FIXTURE_IDS.otherFactory, name: 'catalogue', expectedVersion: -1 },
    );
    expect(answer.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(stack.simulator.countRequests()).toBe(before);
  });
});
