/**
 * An access token's grants, enforced before any upstream request on every transport:
 * fields outside `read:<Type>.<field>`, companies outside `factory:<id>`, writes outside
 * `write:…` and subscriptions without `subscribe` are FORBIDDEN with
 * `extensions.requiredGrant`; and a property over random grants and random operations:
 * no answer ever holds data outside the grant.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { MasterKeys, Vault } from '../../src/vault';
import { FileVaultStorage } from '../../src/vault/storage';
import { send, startStack } from '../support';
import type { HttpStack } from '../support';
import { subscribeWs, wsClient } from '../subscriptions/clients';

interface Answer {
  data?: Record<string, unknown> | null;
  errors?: Array<{ message: string; path?: unknown[]; extensions?: Record<string, unknown> }>;
}

/** The grants the property draws from. */
const POOL = [
  'read',
  'read:Factory.name',
  'read:Factory.inventory',
  'read:Building.label',
  `factory:${FIXTURE_IDS.shop}`,
  `factory:${FIXTURE_IDS.farm}`,
] as const;

/** Every subset of a list. */
function subsets<T>(items: readonly T[]): T[][] {
  return items.reduce<T[][]>((all, item) => [...all, ...all.map((subset) => [...subset, item])], [[]]);
}

describe('grants', () => {
  const folder = mkdtempSync(join(tmpdir(), 'grants-'));
  const vaultFile = join(folder, 'vault.json');
  const masterKey = randomBytes(32).toString('base64');
  const vault = new Vault(new FileVaultStorage(vaultFile), MasterKeys.parse(masterKey));
  const tokens = new Map<string, string>();
  let stack: HttpStack;

  const tokenFor = (grants: readonly string[]): string => {
    const token = tokens.get([...grants].sort().join(' '));
    if (!token) throw new Error(`no token for ${grants.join(' ')}`);
    return token;
  };
  const make = async (grants: readonly string[]): Promise<void> => {
    if (grants.length === 0) return;
    tokens.set(
      [...grants].sort().join(' '),
      (await vault.createToken({ characters: ['shop'], grants, expiresInMs: 3_600_000 })).token,
    );
  };
  const post = async (token: string, query: string, variables?: unknown): Promise<{ status: number; body: Answer }> => {
    const response = await send(stack.gateway.url, {
      method: 'POST',
      path: '/graphql',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query, variables }),
    });
    return { status: response.status, body: JSON.parse(response.text) as Answer };
  };

  beforeAll(async () => {
    await vault.addKey('shop', DEMO_KEYS.premium.key, DEMO_KEYS.premium.secret);
    for (const grants of subsets(POOL)) await make(grants);
    for (const grants of [
      ['write:option:3'],
      [`factory:${FIXTURE_IDS.shop}`, 'write:siteDocument:catalogue'],
      [`factory:${FIXTURE_IDS.shop}`, 'read:Factory.inventory', 'subscribe'],
    ])
      await make(grants);
    stack = await startStack({ http: true, config: { vaultFile, vaultMasterKey: masterKey, upstreamRateLimit: null } });
  });

  afterAll(async () => {
    await stack.close();
  });

  it('refuses a field outside read:<Type>.<field> with FORBIDDEN naming the grant, before any upstream request', async () => {
    const token = tokenFor(['read:Factory.inventory']);
    const allowed = await post(token, '{ factories { id inventory { __typename } } }');
    expect(allowed.body.errors).toBeUndefined();
    expect((allowed.body.data?.factories as unknown[]).length).toBeGreaterThan(0);
    const before = stack.simulator.countRequests();
    const name = await post(token, '{ factories { id name } }');
    expect(name.status).toBe(403);
    expect(name.body.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN', requiredGrant: 'read:Factory.name' });
    const buildings = await post(token, 'query { ...Everything } fragment Everything on Query { buildings { id } }');
    expect(buildings.body.errors?.[0]?.extensions).toMatchObject({
      code: 'FORBIDDEN',
      requiredGrant: 'read:Query.buildings',
    });
    expect(stack.simulator.countRequests()).toBe(before);
  });

  it('keeps a factory:<id> token to its company: others filtered out of factories, null with FORBIDDEN by id', async () => {
    const token = tokenFor([`factory:${FIXTURE_IDS.shop}`]);
    const list = await post(token, '{ factories { id name counter { __typename } } }');
    expect((list.body.data?.factories as Array<{ id: string }>).map((factory) => factory.id)).toEqual([
      FIXTURE_IDS.shop,
    ]);
    const other = await post(
      token,
      `{ shop: factory(id: "${FIXTURE_IDS.shop}") { id name } other: factory(id: "${FIXTURE_IDS.carDealer}") { id } }`,
    );
    expect(other.body.data).toEqual({ shop: { id: FIXTURE_IDS.shop, name: expect.any(String) }, other: null });
    expect(other.body.errors?.[0]).toMatchObject({
      path: ['other'],
      extensions: { code: 'FORBIDDEN', requiredGrant: `factory:${FIXTURE_IDS.carDealer}` },
    });
    const buildings = await post(token, '{ buildings { id } }');
    expect(buildings.body.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN', requiredGrant: 'read' });
  });

  it('allows only the writes granted, each with the secret from the vault', async () => {
    const mutation =
      'mutation($input: UpdateFactoryOptionInput!) { updateFactoryOption(input: $input) { option { slot } } }';
    const token = tokenFor(['write:option:3']);
    const three = await post(token, mutation, {
      input: { factoryId: FIXTURE_IDS.shop, slot: 3, title: 'T', data: 'D' },
    });
    expect(three.body.errors).toBeUndefined();
    const before = stack.simulator.countRequests();
    const four = await post(token, mutation, {
      input: { factoryId: FIXTURE_IDS.shop, slot: 4, title: 'T', data: 'D' },
    });
    expect(four.body.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN', requiredGrant: 'write:option:4' });
    const read = await post(token, '{ factories { id } }');
    expect(read.body.errors?.[0]?.extensions).toMatchObject({
      code: 'FORBIDDEN',
      requiredGrant: 'read:Query.factories',
    });
    const site = tokenFor([`factory:${FIXTURE_IDS.shop}`, 'write:siteDocument:catalogue']);
    const other = await post(
      site,
      'mutation($input: SetSiteDocumentInput!) { setSiteDocument(input: $input) { __typename } }',
      { input: { factoryId: FIXTURE_IDS.shop, name: 'hours', value: {} } },
    );
    expect(other.body.errors?.[0]?.extensions).toMatchObject({
      code: 'FORBIDDEN',
      requiredGrant: 'write:siteDocument:hours',
    });
    const elsewhere = await post(
      site,
      'mutation($input: SetSiteDocumentInput!) { setSiteDocument(input: $input) { __typename } }',
      { input: { factoryId: FIXTURE_IDS.farm, name: 'catalogue', value: {} } },
    );
    expect(elsewhere.body.errors?.[0]?.extensions).toMatchObject({
      code: 'FORBIDDEN',
      requiredGrant: `factory:${FIXTURE_IDS.farm}`,
    });
    expect(stack.simulator.countRequests()).toBe(before);
  });

  it('needs subscribe for subscriptions and live queries over graphql-ws', async () => {
    const without = wsClient(stack.endpoint, tokenFor(['read']));
    const refused = (await subscribeWs(
      without,
      `subscription { counterChanged(factoryId: "${FIXTURE_IDS.shop}") { changes { item } } }`,
    ).ended) as Array<{ extensions?: Record<string, unknown> }>;
    expect(refused[0]?.extensions).toMatchObject({ code: 'FORBIDDEN', requiredGrant: 'subscribe' });
    const live = (await subscribeWs(without, '{ factories { id } }'.replace('{', 'query @live {')).ended) as Array<{
      extensions?: Record<string, unknown>;
    }>;
    expect(live[0]?.extensions).toMatchObject({ code: 'FORBIDDEN', requiredGrant: 'subscribe' });
    await without.dispose();
    const alert = wsClient(
      stack.endpoint,
      tokenFor([`factory:${FIXTURE_IDS.shop}`, 'read:Factory.inventory', 'subscribe']),
    );
    const counter = (await subscribeWs(
      alert,
      `subscription { counterChanged(factoryId: "${FIXTURE_IDS.shop}") { changes { item } } }`,
    ).ended) as Array<{ extensions?: Record<string, unknown> }>;
    expect(counter[0]?.extensions).toMatchObject({ code: 'FORBIDDEN', requiredGrant: 'read:Factory.counter' });
    const elsewhere = (await subscribeWs(
      alert,
      `subscription { inventoryChanged(factoryId: "${FIXTURE_IDS.farm}") { factoryId } }`,
    ).ended) as Array<{ extensions?: Record<string, unknown> }>;
    expect(elsewhere[0]?.extensions).toMatchObject({ code: 'FORBIDDEN', requiredGrant: `factory:${FIXTURE_IDS.farm}` });
    await alert.dispose();
  });

  it('never answers data outside the grant (property over random grants and operations)', async () => {
    // `id` is always asked for, so the check below knows each company.
    const factoryFields = fc
      .subarray(['name', 'address', 'inventory { __typename }', 'counter { __typename }', '... on Factory { type }'])
      .map((fields) => ['id', ...fields]);
    const root = fc.oneof(
      factoryFields.map((fields) => `f: factories { ${fields.join(' ')} }`),
      fc
        .tuple(fc.constantFrom(FIXTURE_IDS.shop, FIXTURE_IDS.farm, FIXTURE_IDS.carDealer), factoryFields)
        .map(([id, fields]) => `f: factory(id: "${id}") { ${fields.join(' ')} }`),
      fc.subarray(['id', 'label', 'address'], { minLength: 1 }).map((fields) => `b: buildings { ${fields.join(' ')} }`),
    );
    // The property must see both: answers with data, and refusals.
    let answered = 0;
    let forbidden = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.subarray([...POOL], { minLength: 1 }),
        fc.array(root, { minLength: 1, maxLength: 3 }),
        async (grants, roots) => {
          const query = `{ ${roots.map((text, index) => text.replace(/^(\w):/, `$1${index}:`)).join(' ')} }`;
          const { body } = await post(tokenFor(grants), query);
          if (Object.values(body.data ?? {}).some((value) => value !== null)) answered += 1;
          if (body.errors?.some((error) => error.extensions?.code === 'FORBIDDEN')) forbidden += 1;
          const readAll = grants.includes('read');
          const fields = new Set(
            grants.filter((grant) => grant.startsWith('read:')).map((grant) => grant.slice('read:'.length)),
          );
          const companies = new Set(
            grants.filter((grant) => grant.startsWith('factory:')).map((grant) => grant.slice('factory:'.length)),
          );
          const companiesOnly = companies.size > 0 && !readAll && fields.size === 0;
          const allowedOn = (type: string, key: string): boolean =>
            key === 'id' || readAll || (type === 'Factory' && companiesOnly) || fields.has(`${type}.${key}`);
          for (const [alias, value] of Object.entries(body.data ?? {})) {
            if (value === null) continue;
            const type = alias.startsWith('f') ? 'Factory' : 'Building';
            for (const item of (Array.isArray(value) ? value : [value]) as Array<Record<string, unknown>>) {
              if (type === 'Factory' && companies.size > 0)
                expect({ grants, id: item.id, granted: companies.has(item.id as string) }).toEqual({
                  grants,
                  id: item.id,
                  granted: true,
                });
              if (type === 'Building')
                expect({
                  grants,
                  buildings: companies.size === 0 && (readAll || fields.has('Building.label')),
                }).toEqual({ grants, buildings: true });
              for (const [key, field] of Object.entries(item))
                if (field !== null)
                  expect({ grants, type, key, allowed: allowedOn(type, key) }).toEqual({
                    grants,
                    type,
                    key,
                    allowed: true,
                  });
            }
          }
        },
      ),
      { numRuns: 100, seed: 27 },
    );
    expect(answered).toBeGreaterThan(10);
    expect(forbidden).toBeGreaterThan(10);
  });
});
