/**
 * Hostile documents and variables against an access token's grants check (the fragment
 * bomb, variables held by the memo, hand-built site-document slots), through the request pipeline as the streaming transports use it:
 *
 * - the fragment bomb (`fragment Fi on Query { ...Fi+1 ...Fi+1 }`, 40 levels) with a
 *   company-scoped token is checked once per fragment, not once per expansion;
 * - a FORBIDDEN refusal quotes a request's value cut short, never a variable of many
 *   kilobytes; the grants memo is bounded in bytes (an `OperationMemo`: hashed keys) and
 *   remembers only "allowed";
 * - a `write:option:<slot>` grant cannot write a slot title in the site documents'
 *   namespace (`~sd:<name>:…`), nor overwrite a slot holding part of a site document,
 *   without `write:siteDocument:<name>` (against the simulator, over HTTP).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, validate } from 'graphql';
import type { FragmentDefinitionNode, SelectionSetNode } from 'graphql';
import { DEFAULT_CONFIG } from '../../src/config';
import { QUOTED_VALUE_CHARS } from '../../src/domains/shared/quoted-value';
import { grantsRule } from '../../src/graph/validation/grants.rule';
import { OperationMemo } from '../../src/graph/validation/operation-memo';
import { buildGatewaySchema } from '../../src/graph/schema';
import { readCredential } from '../../src/pipeline/credential';
import { RequestPipeline } from '../../src/pipeline/pipeline';
import type { StepEnvironment } from '../../src/pipeline/step-types';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { MasterKeys, Vault } from '../../src/vault';
import { FileVaultStorage } from '../../src/vault/storage';
import { codes, startStack } from '../support';
import type { HttpStack } from '../support';
import { parseGrant } from '../../src/vault/grants';
import type { Grant } from '../../src/vault/grants';
import type { ActiveToken, TokenResolver } from '../../src/vault';

const SHOP = FIXTURE_IDS.shop;

/** A token resolver that knows one token per grant list (the bearer text is the grants joined by commas). */
const resolver: TokenResolver = {
  check(bearer) {
    const texts = (typeof bearer === 'string' ? bearer : bearer.token).slice('svg_'.length).split(',');
    const token: ActiveToken = {
      id: `id-${texts.join('+')}`,
      characters: [{ id: 'c1', name: 'shop', apiKey: 'key', apiSecret: 'secret' }],
      grantTexts: texts,
      grants: texts.map((text) => parseGrant(text) as Grant),
      expiresAt: new Date(Date.now() + 3_600_000),
      origin: null,
      budgetShare: null,
    };
    return { kind: 'ok', token };
  },
};

const bearer = (...grants: string[]): ReturnType<typeof readCredential> =>
  readCredential(`Bearer svg_${grants.join(',')}`);

/** The bomb: `levels` fragments on Query, each spreading the next twice. */
function doubling(levels: number, leaf = '__typename'): string {
  const parts = ['query Bomb { ...F0 }'];
  for (let i = 0; i < levels - 1; i += 1) parts.push(`fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`);
  parts.push(`fragment F${levels - 1} on Query { ${leaf} }`);
  return parts.join('\n');
}

describe("an access token's grants check against hostile documents and variables", () => {
  let pipeline: RequestPipeline;

  beforeAll(async () => {
    pipeline = RequestPipeline.fromConfig(await buildGatewaySchema(), DEFAULT_CONFIG, resolver);
  });

  it('walks each fragment of the doubling bomb once (40 levels, a company-scoped token), and refuses an outside field in it', async () => {
    const schema = await buildGatewaySchema();
    const document = parse(doubling(40));
    let reads = 0;
    for (const definition of document.definitions) {
      if (definition.kind !== 'FragmentDefinition') continue;
      const selectionSet: SelectionSetNode = definition.selectionSet;
      Object.defineProperty(definition as FragmentDefinitionNode, 'selectionSet', {
        get() {
          reads += 1;
          if (reads > 1_000) throw new Error('the walk expands spreads');
          return selectionSet;
        },
      });
    }
    const operation = document.definitions[0];
    if (operation?.kind !== 'OperationDefinition') throw new Error('no operation');
    expect(
      validate(schema, document, [
        grantsRule({ grants: [{ kind: 'factory', factoryId: SHOP }], operation, variables: {} }),
      ]),
    ).toEqual([]);
    // graphql-js's visit reads each definition once, the walk each fragment once.
    expect(reads).toBeLessThanOrEqual(2 * 40);

    expect(
      pipeline.prepare('graphql-sse', { query: doubling(40) }, bearer(`factory:${SHOP}`, 'subscribe')),
    ).toMatchObject({ kind: 'run' });
    expect(
      pipeline.prepare('graphql-sse', { query: doubling(40, 'buildings { id }') }, bearer(`factory:${SHOP}`)),
    ).toMatchObject({
      kind: 'refused',
      step: 'grants',
      errors: [{ extensions: { code: 'FORBIDDEN', requiredGrant: 'read' } }],
    });
  });

  it('quotes a variable of 60 KB cut short in a refusal, in the message and in requiredGrant', () => {
    const huge = `x${'y'.repeat(60_000)}`;
    const query = 'subscription Watch($id: ID!) { counterChanged(factoryId: $id) { __typename } }';
    const answer = pipeline.prepare(
      'graphql-ws',
      { query, variables: { id: huge } },
      bearer(`factory:${SHOP}`, 'subscribe'),
    );
    expect(answer).toMatchObject({ kind: 'refused', step: 'grants', errors: [{ extensions: { code: 'FORBIDDEN' } }] });
    const [error] = answer.kind === 'refused' ? answer.errors : [];
    expect(error?.message.length).toBeLessThan(QUOTED_VALUE_CHARS * 2 + 100);
    expect(error?.message).toContain(`${huge.slice(0, QUOTED_VALUE_CHARS)}…`);
    expect(error?.extensions.requiredGrant).toBe(`factory:${huge.slice(0, QUOTED_VALUE_CHARS)}…`);
  });

  it('remembers only allowed results, in a memo bounded in bytes with hashed keys, shared with the other checks', () => {
    const memo = (pipeline as unknown as { env: StepEnvironment }).env.grantsMemo;
    expect(memo).toBeInstanceOf(OperationMemo);
    const query = 'subscription Watch($id: ID!) { counterChanged(factoryId: $id) { __typename } } ';
    const before = memo.size;
    for (let i = 0; i < 5; i += 1) {
      const allowed = pipeline.prepare(
        'graphql-ws',
        { query: `${query}# ${i}`, variables: { id: SHOP } },
        bearer(`factory:${SHOP}`, 'subscribe'),
      );
      expect(allowed).toMatchObject({ kind: 'run' });
      const refused = pipeline.prepare(
        'graphql-ws',
        { query: `${query}# ${i}`, variables: { id: `other-${i}-${'p'.repeat(60_000)}` } },
        bearer(`factory:${SHOP}`, 'subscribe'),
      );
      expect(refused).toMatchObject({ kind: 'refused', step: 'grants' });
    }
    expect(memo.size - before).toBe(5);
    // One bound for the grants, bounds and cost checks: their memos count the same entries.
    const { boundsMemo, costMemo } = (pipeline as unknown as { env: StepEnvironment }).env;
    expect([boundsMemo.size, costMemo.size]).toEqual([memo.size, memo.size]);
  });

  it("refuses a slot title in the site documents' namespace without write:siteDocument:<name>", () => {
    const write = (title: string): { query: string; variables: Record<string, unknown> } => ({
      query: 'mutation Write($input: UpdateFactoryOptionInput!) { updateFactoryOption(input: $input) { committed } }',
      variables: { input: { factoryId: SHOP, slot: 3, title, data: 'x' } },
    });
    const writer = bearer(`factory:${SHOP}`, 'write:option:3');
    expect(pipeline.prepare('graphql-ws', write('Opening hours'), writer)).toMatchObject({ kind: 'run' });
    for (const title of ['~sd:catalogue:2:m:0123abcd', '~sd:catalogue:2:1/3:0123abcd', ' ~sd :catalogue:junk']) {
      expect(pipeline.prepare('graphql-ws', write(title), writer)).toMatchObject({
        kind: 'refused',
        step: 'grants',
        errors: [{ extensions: { code: 'FORBIDDEN', requiredGrant: 'write:siteDocument:catalogue' } }],
      });
    }
    // With the document's grant, the slot may be written by hand (as setSiteDocument could).
    expect(
      pipeline.prepare(
        'graphql-ws',
        write('~sd:catalogue:2:m:0123abcd'),
        bearer(`factory:${SHOP}`, 'write:option:3', 'write:siteDocument:catalogue'),
      ),
    ).toMatchObject({ kind: 'run' });
    // A key caller is not limited by grants.
    expect(
      pipeline.prepare('graphql-ws', write('~sd:catalogue:2:m:0123abcd'), readCredential('Bearer some-api-key')),
    ).toMatchObject({ kind: 'run' });
  });
});

describe('a write:option grant and the slots of a site document (over HTTP, the simulator)', () => {
  const folder = mkdtempSync(join(tmpdir(), 'grants-slots-'));
  const vaultFile = join(folder, 'vault.json');
  const masterKey = randomBytes(32).toString('base64');
  let stack: HttpStack;
  let slots: number[] = [];
  const tokens: Record<string, string> = {};
  const WRITE =
    'mutation Write($input: UpdateFactoryOptionInput!) { updateFactoryOption(input: $input) { committed } }';

  beforeAll(async () => {
    const vault = new Vault(new FileVaultStorage(vaultFile), MasterKeys.parse(masterKey));
    await vault.addKey('shop', DEMO_KEYS.premium.key, DEMO_KEYS.premium.secret);
    // Every slot may be written as an option (the grants check lets each write through to the resolver).
    const optionGrants = Array.from({ length: 10 }, (_, i) => `write:option:${i + 1}`);
    tokens.options = (
      await vault.createToken({
        characters: ['shop'],
        grants: [`factory:${SHOP}`, ...optionGrants],
        expiresInMs: 3_600_000,
      })
    ).token;
    tokens.document = (
      await vault.createToken({
        characters: ['shop'],
        grants: [`factory:${SHOP}`, ...optionGrants, 'write:siteDocument:catalogue'],
        expiresInMs: 3_600_000,
      })
    ).token;
    stack = await startStack({ http: true, config: { vaultFile, vaultMasterKey: masterKey, upstreamRateLimit: null } });
    const written = await stack.post(
      {
        query: 'mutation Set($input: SetSiteDocumentInput!) { setSiteDocument(input: $input) { document { slots } } }',
        variables: { input: { factoryId: SHOP, name: 'catalogue', value: { items: [1, 2, 3] } } },
      },
      { key: DEMO_KEYS.premium.key, headers: { 'x-api-secret': DEMO_KEYS.premium.secret } },
    );
    slots = (written.body.data as { setSiteDocument: { document: { slots: number[] } } }).setSiteDocument.document
      .slots;
    const free = [...Array(10).keys()].map((i) => i + 1).find((slot) => !slots.includes(slot) && slot > 2) ?? 0;
    tokens.free = String(free);
  });

  afterAll(async () => {
    await stack.close();
  });

  it('refuses overwriting any slot of the document without write:siteDocument:<name>, before the write; allows a free slot and the granted document', async () => {
    expect(slots.length).toBeGreaterThan(0);
    const writes = (): number => stack.simulator.requests.filter((request) => request.method === 'POST').length;
    const before = writes();
    for (const slot of slots) {
      const answer = await stack.post(
        { query: WRITE, variables: { input: { factoryId: SHOP, slot, title: 'Opening hours', data: '9-17' } } },
        { key: tokens.options ?? '' },
      );
      expect(codes(answer.body)).toEqual(['FORBIDDEN']);
      expect(answer.body.errors?.[0]?.extensions).toMatchObject({ requiredGrant: 'write:siteDocument:catalogue' });
    }
    expect(writes()).toBe(before);
    const free = await stack.post(
      {
        query: WRITE,
        variables: { input: { factoryId: SHOP, slot: Number(tokens.free), title: 'Opening hours', data: '9-17' } },
      },
      { key: tokens.options ?? '' },
    );
    expect(free.body.errors).toBeUndefined();
    const granted = await stack.post(
      { query: WRITE, variables: { input: { factoryId: SHOP, slot: slots[0], title: 'Opening hours', data: '9-17' } } },
      { key: tokens.document ?? '' },
    );
    expect(granted.body.errors).toBeUndefined();
  });

  it("quotes a 60 KB company id cut short in Query.factory's FORBIDDEN", async () => {
    const huge = `z${'9'.repeat(60_000)}`;
    const answer = await stack.post(
      { query: 'query One($id: ID!) { factory(id: $id) { id } }', variables: { id: huge } },
      { key: tokens.options ?? '' },
    );
    expect(codes(answer.body)).toEqual(['FORBIDDEN']);
    expect(answer.text.length).toBeLessThan(2_000);
    expect(answer.body.errors?.[0]?.extensions).toMatchObject({
      requiredGrant: `factory:${huge.slice(0, QUOTED_VALUE_CHARS)}…`,
    });
  });
});
