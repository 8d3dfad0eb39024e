/**
 * The site-document codec, layout and copy-on-write store against slots kept in memory
 * (the same `SlotWriter` interface the gateway gives them over the upstream): property-based
 * round trips, a failure after every possible number of writes, foreign and cleared slots,
 * conflicts, and chunk stability.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import type { SiteDocumentEncoding } from '../../src/config';
import { SITE_DOCUMENT_ENCODINGS } from '../../src/config';
import { canonicalJson, splitPieces } from '../../src/domains/site-documents/json-pieces';
import {
  chunkValue,
  decodeChunk,
  encodeChunk,
  parseTitle,
  prepareValue,
} from '../../src/domains/site-documents/site-document.codec';
import { findDocument, layoutOf, readChunks } from '../../src/domains/site-documents/site-document.layout';
import type { SlotContent } from '../../src/domains/site-documents/site-document.layout';
import { checkFits, executePlan, planWrite } from '../../src/domains/site-documents/site-document.store';
import type { SlotWriter, WritePlan } from '../../src/domains/site-documents/site-document.store';
import { realisticCatalogue } from '../../src/simulator/catalogue';

/** Option slots in memory, with a write log and an injectable failure. */
class MemorySlots implements SlotWriter {
  readonly contents: Array<SlotContent | null>;
  readonly log: Array<{ slot: number; title: string }> = [];
  /** The write with this 1-based number (counted from now) throws instead. */
  failAt: number | null = null;
  /** Runs before the fresh read of the conflict check (another writer). */
  beforeFreshRead: (() => void) | null = null;

  constructor(slotCount = 10) {
    this.contents = Array.from({ length: slotCount }, () => null);
  }

  read(slot: number): Promise<SlotContent | null> {
    return Promise.resolve(this.contents[slot - 1] ?? null);
  }

  readFresh(slot: number): Promise<SlotContent | null> {
    this.beforeFreshRead?.();
    return this.read(slot);
  }

  write(slot: number, title: string, data: string): Promise<void> {
    if (this.failAt !== null && this.log.length + 1 >= this.failAt) return Promise.reject(new Error('upstream 503'));
    this.log.push({ slot, title });
    this.contents[slot - 1] = { title, data, lastUpdated: new Date(0) };
    return Promise.resolve();
  }

  snapshot(): Array<SlotContent | null> {
    return this.contents.map((content) => (content ? { ...content } : null));
  }
}

function prepared(name: string, value: unknown, encoding: SiteDocumentEncoding = 'deflate-base64url') {
  return prepareValue(name, value, encoding);
}

function plan(
  slots: MemorySlots,
  name: string,
  value: unknown,
  expectedVersion?: number,
  encoding?: SiteDocumentEncoding,
): WritePlan {
  const doc = prepared(name, value, encoding);
  checkFits(doc, slots.contents.length);
  return planWrite(layoutOf(slots.contents), doc, {
    expectedVersion,
    now: Date.UTC(2026, 0, 1),
    slotCount: slots.contents.length,
  });
}

async function write(
  slots: MemorySlots,
  name: string,
  value: unknown,
  expectedVersion?: number,
  encoding?: SiteDocumentEncoding,
): Promise<WritePlan> {
  const writePlan = plan(slots, name, value, expectedVersion, encoding);
  await executePlan(slots, writePlan, expectedVersion, { writes: 0, committed: false });
  return writePlan;
}

async function read(slots: MemorySlots, name: string): Promise<unknown> {
  const stored = await findDocument(slots, name, slots.contents.length);
  if (!stored) return null;
  return JSON.parse((await readChunks(slots, stored)).text) as unknown;
}

/** What JSON makes of a value (-0 becomes 0, undefined members go). */
const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown;

describe('site-document codec', () => {
  it('canonical JSON sorts keys at every depth and drops nothing else', () => {
    expect(canonicalJson({ b: 1, a: [{ d: null, c: 'é' }], e: undefined })).toBe('{"a":[{"c":"é","d":null}],"b":1}');
    expect(() => canonicalJson({ a: Number.NaN })).toThrow(/a/);
  });

  it('property: random JSON (Unicode included) round-trips through pieces, chunks and every encoding', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ stringUnit: 'binary', maxDepth: 5 }),
        fc.constantFrom(...SITE_DOCUMENT_ENCODINGS),
        (value, encoding) => {
          const pieces = splitPieces(value);
          expect(Buffer.concat(pieces).toString('utf8')).toBe(canonicalJson(value));
          const chunks = chunkValue(pieces, encoding);
          const text = Buffer.concat(chunks.map((chunk) => decodeChunk(chunk.data, encoding))).toString('utf8');
          expect(JSON.parse(text)).toEqual(asJson(value));
          for (const chunk of chunks) expect([...chunk.data].length).toBeLessThanOrEqual(2400);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('property: values up to the maximum size (64 KiB) round-trip through the store, or are refused as too large before any write', async () => {
    const big = fc.array(
      fc.record({
        name: fc.string({ unit: 'grapheme', maxLength: 60 }),
        price: fc.double({ noNaN: true, noDefaultInfinity: true }),
        text: fc.string({ unit: 'binary', maxLength: 400 }),
      }),
      {
        maxLength: 200,
      },
    );
    await fc.assert(
      fc.asyncProperty(big, async (value) => {
        fc.pre(Buffer.byteLength(canonicalJson(value)) <= 65_536);
        const slots = new MemorySlots(20);
        try {
          await write(slots, 'doc', value);
        } catch (error) {
          expect((error as { extensions?: { code?: string } }).extensions?.code).toBe('SITE_DOCUMENT_TOO_LARGE');
          expect(slots.log).toHaveLength(0);
          return;
        }
        expect(await read(slots, 'doc')).toEqual(asJson(value));
      }),
      { numRuns: 25 },
    );
  });

  it('SITE_DOCUMENT_TOO_LARGE counts the free slots, and says when a value cannot fit even every slot', () => {
    const slots = new MemorySlots(10);
    // Nine slots hold data written by something else: one is free.
    for (let slot = 0; slot < 9; slot += 1)
      slots.contents[slot] = { title: `foreign ${slot}`, data: 'x', lastUpdated: new Date(0) };
    const refusal = (value: unknown): { message: string; extensions: Record<string, unknown> } => {
      try {
        plan(slots, 'doc', value);
      } catch (error) {
        return error as { message: string; extensions: Record<string, unknown> };
      }
      throw new Error('expected SITE_DOCUMENT_TOO_LARGE');
    };
    const small = refusal({ hello: 'world' });
    expect(small.extensions).toMatchObject({ code: 'SITE_DOCUMENT_TOO_LARGE', slotsNeeded: 2, slotsAvailable: 1 });
    expect(small.message).toContain('needs 2 free option slots');
    expect(small.message).toContain('but only 1 is free');

    // Random base64 hardly compresses: this needs about 20 slots, more than the company has.
    const huge = Array.from({ length: 1000 }, () => randomBytes(33).toString('base64'));
    const tooMany = refusal(huge);
    expect(tooMany.extensions.slotsNeeded).toEqual(expect.any(Number));
    expect(tooMany.message).toContain('but a company has only 10: it does not fit even when every slot is free');
    expect(tooMany.message).not.toContain('are free (');
    expect(slots.log).toHaveLength(0);
  });

  it('base32768 packs about twice the bytes of base64url into a slot', () => {
    const raw = Buffer.from(canonicalJson(realisticCatalogue(40)));
    const ascii = encodeChunk(raw, 'brotli-base64url');
    const dense = encodeChunk(raw, 'brotli-base32768');
    expect([...dense].length * 2).toBeLessThan(ascii.length + 4);
    expect(decodeChunk(dense, 'brotli-base32768').equals(raw)).toBe(true);
  });
});

describe('site-document store (copy-on-write)', () => {
  const v1 = realisticCatalogue(200);
  const v2 = structuredClone(v1);
  v2.items[10] = {
    ...v2.items[10]!,
    price: 0.5,
    description: 'Neu: jetzt mit viel längerer Beschreibung als vorher, damit sich die Größe ändert.',
  };
  v2.items[150] = { ...v2.items[150]!, name: 'Ganz anderer Name' };

  it('a failure after every possible number of writes leaves the previous version readable (or no document)', async () => {
    // First write: fail at each write; nothing must be readable until the commit.
    const fresh = plan(new MemorySlots(), 'catalogue', v1);
    for (let failAt = 1; failAt <= fresh.writes.length; failAt += 1) {
      const slots = new MemorySlots();
      slots.failAt = failAt;
      await expect(write(slots, 'catalogue', v1)).rejects.toThrow('503');
      expect(await read(slots, 'catalogue')).toBeNull();
    }
    // An update: the previous version until the commit, which is its last write (nothing is cleared after it).
    const base = new MemorySlots();
    await write(base, 'catalogue', v1);
    const update = plan(base, 'catalogue', v2);
    expect(update.writes.map((w) => w.role)).toEqual([...update.writes.slice(0, -1).map(() => 'chunk'), 'commit']);
    for (let failAt = 1; failAt <= update.writes.length + 1; failAt += 1) {
      const slots = new MemorySlots();
      slots.contents.splice(0, 10, ...base.snapshot());
      slots.log.length = 0;
      slots.failAt = failAt;
      const outcome = write(slots, 'catalogue', v2);
      const failed = failAt <= update.writes.length;
      if (failed) await expect(outcome).rejects.toThrow('503');
      else await outcome;
      expect(slots.log).toHaveLength(failAt - 1);
      expect(await read(slots, 'catalogue')).toEqual(failed ? asJson(v1) : asJson(v2));
      // Whatever was left behind, the next write still succeeds and reads back.
      slots.failAt = null;
      await write(slots, 'catalogue', v2);
      expect(await read(slots, 'catalogue')).toEqual(asJson(v2));
    }
  });

  it('never writes or frees foreign slots, and reuses slots cleared with "." or empty strings', async () => {
    const slots = new MemorySlots();
    const small = realisticCatalogue(60);
    const smallChanged = structuredClone(small);
    smallChanged.items[30]!.price = 1;
    const foreign = { title: 'Katalog', data: '{"handmade":true}', lastUpdated: new Date(0) };
    slots.contents[0] = foreign;
    slots.contents[3] = { title: 'Öffnungszeiten', data: 'Mo-Fr 8-20', lastUpdated: new Date(0) };
    slots.contents[1] = { title: '.', data: '.', lastUpdated: new Date(0) };
    slots.contents[2] = { title: '', data: '', lastUpdated: new Date(0) };
    const first = await write(slots, 'catalogue', small);
    const second = await write(slots, 'catalogue', smallChanged);
    await write(slots, 'hours', { mo: '8-20' });
    const touched = new Set(slots.log.map((entry) => entry.slot));
    expect(touched.has(1) || touched.has(4)).toBe(false);
    expect(touched.has(2) && touched.has(3)).toBe(true);
    expect(slots.contents[0]).toEqual(foreign);
    expect(layoutOf(slots.contents).foreign).toEqual([1, 4]);
    expect(first.writes.every((w) => w.slot !== 1 && w.slot !== 4)).toBe(true);
    expect(second.freed.every((slot) => slot !== 1 && slot !== 4)).toBe(true);
    expect(await read(slots, 'catalogue')).toEqual(asJson(smallChanged));
    expect(await read(slots, 'hours')).toEqual({ mo: '8-20' });
  });

  it('a conflict found just before the commit writes no committing slot', async () => {
    const slots = new MemorySlots();
    await write(slots, 'catalogue', v1);
    const mine = plan(slots, 'catalogue', v2, 1);
    // Another writer (another gateway, another tool) commits version 2 after this plan was made.
    const elsewhere = new MemorySlots();
    elsewhere.contents.splice(0, 10, ...slots.snapshot());
    await write(elsewhere, 'catalogue', { other: true });
    // It commits between this write's first fresh read (before its chunks) and the one just before its commit.
    let freshReads = 0;
    slots.beforeFreshRead = () => {
      freshReads += 1;
      if (freshReads === 2) slots.contents.splice(0, 10, ...elsewhere.snapshot());
    };
    slots.log.length = 0;
    await expect(executePlan(slots, mine, 1, { writes: 0, committed: false })).rejects.toMatchObject({
      extensions: { code: 'CONFLICT', currentVersion: 2, expectedVersion: 1 },
    });
    const myCommits = slots.log.filter(
      (entry) =>
        entry.slot === mine.manifestSlot && entry.title === mine.writes.find((w) => w.role === 'commit')?.title,
    );
    expect(myCommits).toHaveLength(0);
    expect(freshReads).toBe(2);
    expect(slots.log.length).toBeGreaterThan(0);
    expect(await read(slots, 'catalogue')).toEqual({ other: true });
    // A stale expectedVersion is refused while planning, before any write.
    expect(() => plan(slots, 'catalogue', v2, 1)).toThrow(
      expect.objectContaining({ extensions: expect.objectContaining({ code: 'CONFLICT', currentVersion: 2 }) }),
    );
    expect(() => plan(slots, 'new-doc', v2, 3)).toThrow(
      expect.objectContaining({ extensions: expect.objectContaining({ code: 'CONFLICT', currentVersion: 0 }) }),
    );
  });

  it('a change of one catalogue item writes one chunk and the commit; the replaced chunk is freed by the commit, not cleared', async () => {
    const slots = new MemorySlots();
    await write(slots, 'catalogue', v1);
    for (const change of [
      (c: typeof v1) => void (c.items[77]!.price = 12345.67),
      (c: typeof v1) => void (c.items[5]!.description += ' Jetzt mit neuem Rezept und viel mehr Geschmack.'),
      (c: typeof v1) => void c.items.splice(120, 1),
      (c: typeof v1) => void c.items.splice(40, 0, { ...c.items[3]!, id: 'item-new' }),
    ]) {
      const before = structuredClone((await read(slots, 'catalogue')) as typeof v1);
      const after = structuredClone(before);
      change(after);
      const next = plan(slots, 'catalogue', after);
      expect(next.writes.map((w) => w.role)).toEqual(['chunk', 'commit']);
      expect(next.freed).toHaveLength(1);
      const replaced = next.freed[0]!;
      const old = slots.contents[replaced - 1];
      const progress = { writes: 0, committed: false };
      slots.log.length = 0;
      await executePlan(slots, next, undefined, progress);
      expect(progress).toEqual({ writes: 2, committed: true });
      expect(slots.log.map((entry) => entry.slot)).toEqual([next.writes[0]!.slot, next.manifestSlot]);
      expect(await read(slots, 'catalogue')).toEqual(asJson(after));
      // Not written: it still holds the replaced chunk, and counts as free.
      expect(slots.contents[replaced - 1]).toBe(old);
      expect(layoutOf(slots.contents).free).toContain(replaced);
    }
  });

  it('writes take never-set and cleared slots before replaced chunks, so a reader holding the previous manifest reads it whole until then', async () => {
    const slots = new MemorySlots();
    // A cleared slot counts as empty like a never-set one.
    slots.contents[9] = { title: '.', data: '.', lastUpdated: new Date(0) };
    await write(slots, 'catalogue', v1);
    const previous = await findDocument(slots, 'catalogue', 10);
    expect(previous).not.toBeNull();
    const empty = () =>
      slots.contents.flatMap((content, i) => (content === null || content.title === '.' ? [i + 1] : []));
    const emptyAtStart = empty();
    expect(emptyAtStart.length).toBeGreaterThanOrEqual(2);
    expect(emptyAtStart).toContain(10);
    let value = structuredClone(v1);
    const freed: number[] = [];
    // One-item changes in different chunks: each frees one of the first version's chunks.
    const items = Array.from({ length: emptyAtStart.length + 1 }, (_, i) =>
      Math.floor(((i + 0.5) * v1.items.length) / (emptyAtStart.length + 1)),
    );
    for (const [step, item] of items.entries()) {
      value = structuredClone(value);
      value.items[item]!.price = 100_000 + step;
      const next = plan(slots, 'catalogue', value);
      expect(next.writes.map((w) => w.role)).toEqual(['chunk', 'commit']);
      const target = next.writes[0]!.slot;
      const emptyNow = empty();
      if (emptyNow.length > 0) {
        // An empty slot while there is one; the replaced chunks stay as they were.
        expect(target).toBe(emptyNow[0]);
        expect(freed).not.toContain(target);
      } else {
        // Then the replaced chunks, lowest slot first.
        expect(target).toBe(Math.min(...freed));
      }
      // Before the commit, a failure at either write leaves the last version readable.
      for (const failAt of [1, 2]) {
        const before = slots.snapshot();
        const last = structuredClone(await read(slots, 'catalogue'));
        slots.log.length = 0;
        slots.failAt = failAt;
        await expect(executePlan(slots, next, undefined, { writes: 0, committed: false })).rejects.toThrow('503');
        slots.failAt = null;
        expect(await read(slots, 'catalogue')).toEqual(last);
        slots.contents.splice(0, 10, ...before);
      }
      await executePlan(slots, next, undefined, { writes: 0, committed: false });
      expect(await read(slots, 'catalogue')).toEqual(asJson(value));
      freed.push(...next.freed);
      expect(layoutOf(slots.contents).free).toEqual(expect.arrayContaining(next.freed));
      if (emptyNow.length > 0) {
        // Every chunk of the first version is still there for a reader whose cached manifest is that old.
        expect(JSON.parse((await readChunks(slots, previous!)).text)).toEqual(asJson(v1));
      } else {
        // Reused now: that reader is told its slots do not add up, never given a wrong value.
        await expect(readChunks(slots, previous!)).rejects.toMatchObject({
          extensions: { code: 'SITE_DOCUMENT_CORRUPT', slots: [target] },
        });
      }
    }
    expect(new Set(freed).size).toBe(items.length);
  });

  it('reports a chunk that changed behind its back as SITE_DOCUMENT_CORRUPT naming the slot, never a wrong value', async () => {
    const slots = new MemorySlots();
    const written = await write(slots, 'catalogue', v1);
    const victim = written.manifest.chunks[1]!.slot;
    const content = slots.contents[victim - 1]!;
    slots.contents[victim - 1] = { ...content, data: content.data.slice(0, -4) + 'AAAA' };
    await expect(read(slots, 'catalogue')).rejects.toMatchObject({
      extensions: { code: 'SITE_DOCUMENT_CORRUPT', slots: [victim] },
    });
  });

  it('titles carry name, version, chunk index and count and a hash of the data', async () => {
    const slots = new MemorySlots();
    await write(slots, 'shop.texts_1', { a: 'x'.repeat(10) });
    const titles = slots.contents
      .filter((content): content is SlotContent => content !== null)
      .map((content) => parseTitle(content.title));
    expect(titles).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'chunk', name: 'shop.texts_1', version: 1, index: 1, count: 1 }),
        expect.objectContaining({ kind: 'manifest', name: 'shop.texts_1', version: 1 }),
      ]),
    );
    for (const content of slots.contents) if (content) expect([...content.title].length).toBeLessThanOrEqual(64);
    expect(parseTitle('Katalog')).toBeNull();
    expect(parseTitle('~sd:x:1:m:nothex!!')).toBeNull();
  });
});
