/**
 * Site documents through the whole gateway, against the simulator over real HTTP:
 * write, read, list, capacity, delete; validation and capacity before any upstream
 * request; foreign slots never touched; write-through (a read after a write sends no GET);
 * failures injected by the simulator at every write leave the previous version readable.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { prepareValue } from '../../src/domains/site-documents/site-document.codec';
import { seedWrites } from '../../src/domains/site-documents/site-document.store';
import { DEMO_KEYS, FIXTURE_IDS, realisticCatalogue, shopCatalogue } from '../../src/simulator';
import { codes, examplePublicSiteConfig, startStack } from '../support';
import type { Stack } from '../support';

const shop = FIXTURE_IDS.shop;
const farm = FIXTURE_IDS.farm;
const SECRET = { headers: { 'x-api-secret': DEMO_KEYS.premium.secret } };
const GET_ROUTE = 'GET /factory/options/{id}/{slot}';
const POST_ROUTE = 'POST /factory/options';

const SET = `mutation Set($input: SetSiteDocumentInput!) {
  setSiteDocument(input: $input) { upstreamWrites committed retryAfterSeconds document { name version bytes slots sha256 manifestSlot value } }
}`;
const READ = `query Read($id: ID!, $name: String!) {
  factory(id: $id) { siteDocument(name: $name) { name version bytes slots sha256 updatedAt value } }
}`;
const CAPACITY = `query Capacity($id: ID!) {
  factory(id: $id) { siteDocumentCapacity { freeSlots foreignSlots documentSlots estimatedFreeBytes } siteDocuments { name version slots bytes } }
}`;
const DELETE = `mutation Delete($input: DeleteSiteDocumentInput!) { deleteSiteDocument(input: $input) { freedSlots upstreamWrites } }`;

interface SetResult {
  setSiteDocument: {
    upstreamWrites: number;
    committed: boolean;
    retryAfterSeconds: number | null;
    document: { version: number; slots: number[]; value: unknown; manifestSlot: number };
  } | null;
}
interface ReadResult {
  factory: { siteDocument: { version: number; slots: number[]; value: unknown; sha256: string } | null };
}

async function set(
  stack: Stack,
  factoryId: string,
  name: string,
  value: unknown,
  extra: Record<string, unknown> = {},
): Promise<{ result: SetResult | null | undefined; codes: string[]; errors: unknown }> {
  const result = await stack.executeText(SET, { input: { factoryId, name, value, ...extra } }, SECRET);
  return { result: result.data as SetResult | null | undefined, codes: codes(result), errors: result.errors };
}

async function read(
  stack: Stack,
  factoryId: string,
  name: string,
): Promise<{ doc: ReadResult['factory']['siteDocument']; codes: string[]; errors: unknown }> {
  const result = await stack.executeText(READ, { id: factoryId, name });
  return {
    doc: (result.data as ReadResult | undefined)?.factory.siteDocument ?? null,
    codes: codes(result),
    errors: result.errors,
  };
}

describe('site documents', () => {
  let stack: Stack;
  afterEach(async () => {
    await stack.close();
  });

  it('writes, reads back equal, lists and deletes; a read after the write sends no GET', async () => {
    stack = await startStack();
    const catalogue = realisticCatalogue(60);
    const written = await set(stack, farm, 'catalogue', catalogue);
    expect(written.errors).toBeUndefined();
    const payload = written.result?.setSiteDocument;
    expect(payload).toMatchObject({ committed: true, retryAfterSeconds: null, document: { version: 1 } });
    expect(payload?.upstreamWrites).toBe(stack.attemptsOf(POST_ROUTE).length);
    expect(payload?.upstreamWrites).toBe(payload?.document.slots.length ?? 0);

    const getsBefore = stack.attemptsOf(GET_ROUTE).length;
    const back = await read(stack, farm, 'catalogue');
    expect(back.errors).toBeUndefined();
    expect(back.doc?.value).toEqual(catalogue);
    expect(back.doc?.slots).toEqual(payload?.document.slots);
    expect(stack.attemptsOf(GET_ROUTE).length).toBe(getsBefore);

    const listed = await stack.executeText(CAPACITY, { id: farm });
    expect(listed.errors).toBeUndefined();
    const factory = listed.data?.factory as {
      siteDocuments: Array<{ name: string; version: number }>;
      siteDocumentCapacity: { freeSlots: number[]; documentSlots: number[]; foreignSlots: number[] };
    };
    expect(factory.siteDocuments).toEqual([expect.objectContaining({ name: 'catalogue', version: 1 })]);
    expect(factory.siteDocumentCapacity.documentSlots).toEqual(
      [...(payload?.document.slots ?? [])].sort((a, b) => a - b),
    );
    expect(factory.siteDocumentCapacity.foreignSlots).toEqual([]);

    const deleted = await stack.executeText(DELETE, { input: { factoryId: farm, name: 'catalogue' } }, SECRET);
    expect(deleted.errors).toBeUndefined();
    expect((deleted.data?.deleteSiteDocument as { freedSlots: number[] }).freedSlots).toEqual(payload?.document.slots);
    expect((await read(stack, farm, 'catalogue')).doc).toBeNull();
  });

  it('an unchanged value takes no write; a one-item change rewrites one chunk plus the commit, and clears nothing', async () => {
    stack = await startStack();
    const catalogue = realisticCatalogue(200);
    const first = await set(stack, farm, 'catalogue', catalogue);
    const chunks = (first.result?.setSiteDocument?.document.slots.length ?? 0) - 1;
    expect(chunks).toBeGreaterThan(2);
    stack.attempts.length = 0;
    const again = await set(stack, farm, 'catalogue', structuredClone(catalogue));
    expect(again.result?.setSiteDocument).toMatchObject({ upstreamWrites: 0, document: { version: 1 } });
    expect(stack.attemptsOf(POST_ROUTE)).toHaveLength(0);

    const changed = structuredClone(catalogue);
    (changed.items[120] as { price: number }).price = 1234.56;
    const second = await set(stack, farm, 'catalogue', changed);
    expect(second.errors).toBeUndefined();
    // One new chunk and the committing slot; the replaced chunk is freed by the commit.
    expect(second.result?.setSiteDocument).toMatchObject({ upstreamWrites: 2, document: { version: 2 } });
    expect(stack.attemptsOf(POST_ROUTE)).toHaveLength(2);
    const before = new Set(first.result?.setSiteDocument?.document.slots);
    const after = second.result?.setSiteDocument?.document.slots ?? [];
    expect(after.filter((slot) => !before.has(slot))).toHaveLength(1);
    expect((await read(stack, farm, 'catalogue')).doc?.value).toEqual(changed);
  });

  it("a one-item change makes exactly 2 upstream writes; the replaced chunk's slot is free at once and the next write reuses it", async () => {
    stack = await startStack();
    const SLOTS = `query($id: ID!) { factory(id: $id) { options { slot title } } }`;
    const titles = async (): Promise<Map<number, string>> => {
      const result = await stack.executeText(SLOTS, { id: farm }, { headers: { 'cache-control': 'no-cache' } });
      return new Map(
        (result.data?.factory as { options: Array<{ slot: number; title: string }> }).options.map((o) => [
          o.slot,
          o.title,
        ]),
      );
    };
    const capacity = async (): Promise<{ freeSlots: number[]; documentSlots: number[]; estimatedFreeBytes: number }> =>
      (
        (await stack.executeText(CAPACITY, { id: farm })).data?.factory as {
          siteDocumentCapacity: { freeSlots: number[]; documentSlots: number[]; estimatedFreeBytes: number };
        }
      ).siteDocumentCapacity;
    // Two documents leave one of the ten slots empty.
    expect((await set(stack, farm, 'hours', { mo: '8-20' })).errors).toBeUndefined();
    const catalogue = realisticCatalogue(200);
    const first = (await set(stack, farm, 'catalogue', catalogue)).result?.setSiteDocument;
    expect(first?.document.slots).toHaveLength(7);
    const [empty, ...none] = (await capacity()).freeSlots;
    expect(none).toEqual([]);

    // A one-item change: the changed chunk into the empty slot, then the commit. Nothing else.
    const changed = structuredClone(catalogue);
    (changed.items[120] as { price: number }).price = 1234.56;
    let posts = stack.attemptsOf(POST_ROUTE).length;
    const second = (await set(stack, farm, 'catalogue', changed)).result?.setSiteDocument;
    expect(second).toMatchObject({ committed: true, upstreamWrites: 2, document: { version: 2 } });
    expect(stack.attemptsOf(POST_ROUTE).length - posts).toBe(2);
    const added = second?.document.slots.filter((slot) => !first?.document.slots.includes(slot));
    expect(added).toEqual([empty]);
    const replaced = first?.document.slots.filter((slot) => !second?.document.slots.includes(slot)) ?? [];
    expect(replaced).toHaveLength(1);
    // The replaced chunk is free (the commit freed it) though it still holds the old chunk.
    const afterChange = await capacity();
    expect(afterChange.freeSlots).toEqual(replaced);
    expect(afterChange.documentSlots).not.toContain(replaced[0]);
    expect(afterChange.estimatedFreeBytes).toBe(0);
    expect((await titles()).get(replaced[0]!)).toMatch(/^~sd:catalogue:1:\d+\/6:[0-9a-f]{8}$/);

    // The next change (another chunk) takes that slot: the only free one.
    const again = structuredClone(changed);
    (again.items[10] as { price: number }).price = 0.01;
    posts = stack.attemptsOf(POST_ROUTE).length;
    const third = (await set(stack, farm, 'catalogue', again)).result?.setSiteDocument;
    expect(third).toMatchObject({ committed: true, upstreamWrites: 2, document: { version: 3 } });
    expect(stack.attemptsOf(POST_ROUTE).length - posts).toBe(2);
    expect(third?.document.slots.filter((slot) => !second?.document.slots.includes(slot))).toEqual(replaced);
    expect((await titles()).get(replaced[0]!)).toMatch(/^~sd:catalogue:3:/);
    expect((await read(stack, farm, 'catalogue')).doc?.value).toEqual(again);
    expect((await read(stack, farm, 'hours')).doc?.value).toEqual({ mo: '8-20' });

    // A delete gives every slot of the name back to other tools: the committing slot, the
    // chunks, and the chunk version 2 replaced (free, but still holding it) too.
    const leftover = second?.document.slots.filter((slot) => !third?.document.slots.includes(slot)) ?? [];
    expect(leftover).toHaveLength(1);
    expect((await titles()).get(leftover[0]!)).toMatch(/^~sd:catalogue:/);
    posts = stack.attemptsOf(POST_ROUTE).length;
    const deleted = (await stack.executeText(DELETE, { input: { factoryId: farm, name: 'catalogue' } }, SECRET)).data
      ?.deleteSiteDocument as { freedSlots: number[]; upstreamWrites: number };
    expect([...deleted.freedSlots].sort((a, b) => a - b)).toEqual(
      [...(third?.document.slots ?? []), ...leftover].sort((a, b) => a - b),
    );
    expect(deleted.upstreamWrites).toBe(8);
    expect(stack.attemptsOf(POST_ROUTE).length - posts).toBe(8);
    const left = [...(await titles()).values()];
    expect(left.filter((title) => title.startsWith('~sd:catalogue'))).toEqual([]);
    expect(left.filter((title) => title.startsWith('~sd:hours'))).toHaveLength(2); // its manifest and its chunk, untouched
    expect((await read(stack, farm, 'hours')).doc?.value).toEqual({ mo: '8-20' });
  });

  it('expectedVersion: a stale one is a CONFLICT with the current version; a version committed behind the cache is caught before the commit', async () => {
    stack = await startStack();
    await set(stack, farm, 'hours', { mo: '8-20' });
    const posts = stack.attemptsOf(POST_ROUTE).length;
    const stale = await set(stack, farm, 'hours', { mo: '9-18' }, { expectedVersion: 0 });
    expect(stale.codes).toEqual(['CONFLICT']);
    expect((stale.errors as Array<{ extensions: Record<string, unknown> }>)[0]?.extensions).toMatchObject({
      name: 'hours',
      currentVersion: 1,
      expectedVersion: 0,
    });
    expect(stack.attemptsOf(POST_ROUTE)).toHaveLength(posts);

    // Another tool commits version 2 straight into the slots, behind the gateway's cache.
    const slots = await stack.executeText(`query($id: ID!) { factory(id: $id) { options { slot title data } } }`, {
      id: farm,
    });
    const contents: Array<{ title: string; data: string; lastUpdated: null } | null> = Array.from(
      { length: 10 },
      () => null,
    );
    for (const option of (slots.data?.factory as { options: Array<{ slot: number; title: string; data: string }> })
      .options)
      contents[option.slot - 1] = { ...option, lastUpdated: null };
    for (const write of seedWrites(
      contents,
      prepareValue('hours', { mo: 'closed' }, 'deflate-base64url'),
      Date.now(),
    )) {
      stack.simulator.change({
        kind: 'option',
        factoryId: farm,
        slot: write.slot,
        title: write.title,
        data: write.data,
      });
    }
    const raced = await set(stack, farm, 'hours', { mo: '9-18' }, { expectedVersion: 1 });
    expect(raced.codes).toEqual(['CONFLICT']);
    expect((raced.errors as Array<{ extensions: Record<string, unknown> }>)[0]?.extensions).toMatchObject({
      currentVersion: 2,
      expectedVersion: 1,
    });
    // Found by the fresh read before the first write: nothing written, version 2 stands whole.
    expect(stack.attemptsOf(POST_ROUTE).slice(posts)).toHaveLength(0);
    const fresh = await stack.executeText(
      READ,
      { id: farm, name: 'hours' },
      { headers: { 'cache-control': 'no-cache' } },
    );
    expect((fresh.data?.factory as { siteDocument: { version: number; value: unknown } }).siteDocument).toMatchObject({
      version: 2,
      value: { mo: 'closed' },
    });
  });

  it("never writes foreign slots: the fixtures' slots 1 and 2 of the shop stay as they were", async () => {
    stack = await startStack();
    const slotsBefore = await stack.executeText(
      `query($id: ID!) { factory(id: $id) { options { slot title data } } }`,
      { id: shop },
    );
    const written = await set(stack, shop, 'hours', { monday: '08-20', note: 'Grüße 👋' });
    expect(written.errors).toBeUndefined();
    const slots = written.result?.setSiteDocument?.document.slots ?? [];
    expect(slots).not.toContain(1);
    expect(slots).not.toContain(2);
    const posted = stack.attemptsOf(POST_ROUTE).length;
    expect(posted).toBe(slots.length);
    const capacity = await stack.executeText(CAPACITY, { id: shop });
    expect(
      (capacity.data?.factory as { siteDocumentCapacity: { foreignSlots: number[] } }).siteDocumentCapacity
        .foreignSlots,
    ).toEqual([1, 2]);
    const slotsAfter = await stack.executeText(`query($id: ID!) { factory(id: $id) { options { slot title data } } }`, {
      id: shop,
    });
    const foreign = (result: typeof slotsAfter): unknown =>
      (result.data?.factory as { options: Array<{ slot: number }> }).options.filter((o) => o.slot <= 2);
    expect(foreign(slotsAfter)).toEqual(foreign(slotsBefore));
  });

  it('works in public-site mode: the example company site reads its catalogue next to the counter, with no key', async () => {
    stack = await startStack({ http: true, config: examplePublicSiteConfig() });
    const catalogue = shopCatalogue();
    const written = await set(stack, shop, 'catalogue', catalogue);
    expect(written.errors).toBeUndefined();
    const manifest = JSON.parse(readFileSync(examplePublicSiteConfig().trustedDocumentsPath ?? '', 'utf8')) as Record<
      string,
      string
    >;
    const hash = Object.keys(manifest).find((key) => manifest[key]?.includes('query CompanyPage'));
    const { body } = await stack.post({ documentId: hash, variables: { id: shop } }, { key: null });
    expect(body.errors).toBeUndefined();
    const factory = body.data?.factory as {
      catalogue: { version: number; value: unknown };
      counter: { items: Array<{ item: string }> };
    };
    expect(factory.catalogue).toMatchObject({ version: 1, value: catalogue });
    expect(factory.counter.items.map((item) => item.item)).toContain('Sandwich');
  });

  it('checks name, value size, secret and capacity before any upstream request', async () => {
    stack = await startStack({ config: { siteDocumentMaxBytes: 1000 } });
    const cases: Array<[Record<string, unknown>, Record<string, string> | undefined, string, string]> = [
      [{ factoryId: farm, name: 'Bad Name', value: 1 }, SECRET.headers, 'BAD_USER_INPUT', 'input.name'],
      [{ factoryId: farm, name: '', value: 1 }, SECRET.headers, 'BAD_USER_INPUT', 'input.name'],
      [{ factoryId: farm, name: 'x'.repeat(33), value: 1 }, SECRET.headers, 'BAD_USER_INPUT', 'input.name'],
      [{ factoryId: farm, name: 'big', value: 'x'.repeat(2000) }, SECRET.headers, 'BAD_USER_INPUT', 'input.value'],
      [{ factoryId: farm, name: 'ok', value: 1 }, undefined, 'BAD_USER_INPUT', 'input.apiSecret'],
      [
        { factoryId: farm, name: 'ok', value: 1, expectedVersion: -1 },
        SECRET.headers,
        'BAD_USER_INPUT',
        'input.expectedVersion',
      ],
    ];
    for (const [input, headers, code, argument] of cases) {
      const result = await stack.executeText(SET, { input }, { headers });
      expect(codes(result)).toEqual([code]);
      expect(result.errors?.[0]?.extensions?.argument).toBe(argument);
    }
    expect(stack.attempts).toHaveLength(0);
    // A read's name is checked before any slot is read (the company list is read to find the company).
    const badRead = await stack.executeText(READ, { id: farm, name: 'NO' });
    expect(codes(badRead)).toEqual(['BAD_USER_INPUT']);
    expect(stack.attemptsOf(GET_ROUTE)).toHaveLength(0);
  });

  it('answers SITE_DOCUMENT_TOO_LARGE before any upstream request when the value cannot fit ten slots', async () => {
    stack = await startStack({ config: { siteDocumentMaxBytes: 1_000_000 } });
    // Random base64 hardly compresses: 48 KB of it needs about 20 slots.
    const incompressible = Array.from({ length: 1000 }, () => randomBytes(33).toString('base64'));
    const result = await set(stack, farm, 'huge', incompressible);
    expect(result.codes).toEqual(['SITE_DOCUMENT_TOO_LARGE']);
    const extensions = (result.errors as Array<{ extensions: Record<string, number> }>)[0]?.extensions;
    expect(extensions?.bytesNeeded).toBeGreaterThan(extensions?.bytesAvailable ?? Infinity);
    expect(stack.attempts).toHaveLength(0);
  });
});
