/**
 * The request pipeline and Apollo keep parsed and validated documents, so a document sent
 * again skips parsing and validation. Apollo's default bound is 30 MiB (of the documents'
 * JSON, about five times that in heap), which a stream of distinct documents fills slowly:
 * the gateway bounds both by `DOCUMENT_CACHE_MAX_BYTES` (default 4 MiB, seven eighths for
 * the pipeline, an eighth for Apollo) of the documents' estimated heap
 * (`documentHeapBytes`, not their JSON). Observed through each cache's `get`: a miss means
 * the document is parsed and validated again.
 */
import { createHash } from 'node:crypto';
import { InMemoryLRUCache } from '@apollo/utils.keyvaluecache';
import { parse } from 'graphql';
import { LRUCache } from 'lru-cache';
import { DEFAULT_CONFIG, loadConfig } from '../../src/config';
import { documentHeapBytes } from '../../src/graph/validation/document-heap';
import { useStacks } from '../support';

/** A small document of its own (distinct text, the same cheap field). */
function documentNumber(n: number): string {
  return `query Doc${n} { __typename }`;
}

/** Whether each lookup of `text` (by the text itself: the request pipeline's validated documents) found it, in order. */
function pipelineLookupsOf(text: string): () => boolean[] {
  const get = jest.spyOn(LRUCache.prototype, 'get');
  return () => {
    const found = get.mock.calls.flatMap(([key], index) =>
      key === text ? [get.mock.results[index]?.value !== undefined] : [],
    );
    get.mockRestore();
    return found;
  };
}

/** Whether each lookup of `text` in a document store found it, in order. */
function lookupsOf(text: string): () => Promise<boolean[]> {
  const hash = createHash('sha256').update(text).digest('hex');
  const get = jest.spyOn(InMemoryLRUCache.prototype, 'get');
  return async () => {
    const found: boolean[] = [];
    for (const [index, [key]] of get.mock.calls.entries()) {
      if (typeof key === 'string' && key.endsWith(hash))
        found.push((await get.mock.results[index]?.value) !== undefined);
    }
    return found;
  };
}

describe("Apollo's document store is bounded by DOCUMENT_CACHE_MAX_BYTES", () => {
  const stacks = useStacks();

  it('defaults to 4 MiB and reads the setting', () => {
    expect(DEFAULT_CONFIG.documentCacheMaxBytes).toBe(4 * 1024 * 1024);
    expect(loadConfig({ DOCUMENT_CACHE_MAX_BYTES: '65536' }).documentCacheMaxBytes).toBe(65_536);
    expect(() => loadConfig({ DOCUMENT_CACHE_MAX_BYTES: '10' })).toThrow(/DOCUMENT_CACHE_MAX_BYTES/);
  });

  it('parses a document sent again once the store had to make room for others', async () => {
    const stack = await stacks.start({ config: { documentCacheMaxBytes: 1024 } });
    const lookups = lookupsOf(documentNumber(0));

    expect((await stack.executeText(documentNumber(0))).errors).toBeUndefined();
    for (let n = 1; n <= 20; n += 1) await stack.executeText(documentNumber(n));
    expect((await stack.executeText(documentNumber(0))).errors).toBeUndefined();
    expect(await lookups()).toEqual([false, false]);
  });

  it('keeps a document that fits: sent again, it is not parsed again', async () => {
    const stack = await stacks.start();
    const lookups = lookupsOf(documentNumber(0));

    await stack.executeText(documentNumber(0));
    for (let n = 1; n <= 20; n += 1) await stack.executeText(documentNumber(n));
    await stack.executeText(documentNumber(0));
    expect(await lookups()).toEqual([false, true]);
  });

  it('counts a document by its estimated heap, five times its JSON: 4 MiB holds about 4 MiB of them', async () => {
    const document = parse('query Memo1($id: ID!) { factory(id: $id) { id } }');
    const json = Buffer.byteLength(JSON.stringify(document));
    expect(documentHeapBytes(document)).toBe(json * 5);
    const store = new InMemoryLRUCache<ReturnType<typeof parse>>({
      maxSize: DEFAULT_CONFIG.documentCacheMaxBytes,
      sizeCalculation: documentHeapBytes,
    });
    for (let n = 0; n < 5_000; n += 1)
      await store.set(`k${n}`, parse(`query Memo${n}($id: ID!) { factory(id: $id) { id } }`));
    // Counted as JSON (Apollo's default), all 5,000 fit in 4 MiB, about 26 MB of heap.
    expect(store.keys().length).toBeLessThan(DEFAULT_CONFIG.documentCacheMaxBytes / (json * 5) + 1);
    expect(store.keys().length).toBeGreaterThan(100);
  });
});

describe("the request pipeline's validated documents are bounded by DOCUMENT_CACHE_MAX_BYTES", () => {
  const stacks = useStacks();

  /** Sends document 0, twenty others, then document 0 again over HTTP: whether each lookup of document 0 found it. */
  async function lookupsOverHttp(documentCacheMaxBytes?: number): Promise<boolean[]> {
    const stack = await stacks.start({ http: true, config: documentCacheMaxBytes ? { documentCacheMaxBytes } : {} });
    const lookups = pipelineLookupsOf(documentNumber(0));
    expect((await stack.post({ query: documentNumber(0) })).status).toBe(200);
    for (let n = 1; n <= 20; n += 1) await stack.post({ query: documentNumber(n) });
    expect((await stack.post({ query: documentNumber(0) })).status).toBe(200);
    return lookups();
  }

  it('parses a document sent again once the setting made the cache drop it', async () => {
    expect(await lookupsOverHttp(1024)).toEqual([false, false]);
  });

  it('keeps a document that fits: sent again, it is not parsed again', async () => {
    expect(await lookupsOverHttp()).toEqual([false, true]);
  });
});
