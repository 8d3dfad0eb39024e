/**
 * In public-site mode, anonymous callers run trusted documents with the server's key.
 * They must not be able to spend that key's upstream budget: `Cache-Control: no-cache`
 * (or `Pragma: no-cache`) from them is ignored, so within a freshness window a trusted
 * document costs the upstream requests it needs once, however many anonymous requests
 * ask for it, one after another or at once. A caller with its own key may still bypass.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { codes, startStack } from '../support';
import type { HttpStack } from '../support';

const PAGE =
  'query SitePage($id: ID!) { factory(id: $id) { id name counter { items { item amount } } bankAccounts { vban balance } } }';
const PAGE_HASH = createHash('sha256').update(PAGE).digest('hex');

describe('anonymous requests in public-site mode cannot force upstream traffic', () => {
  let stack: HttpStack;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'statev-budget-'));
    const manifest = join(dir, 'trusted.json');
    writeFileSync(manifest, JSON.stringify({ [PAGE_HASH]: PAGE }));
    // The whole-response cache on too, as in production.
    stack = await startStack({
      http: true,
      config: { serverApiKey: DEMO_KEYS.premium.key, trustedDocumentsPath: manifest, responseCacheEnabled: true },
    });
  });

  afterAll(async () => {
    await stack.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const anonymous = (headers: Record<string, string>): ReturnType<HttpStack['post']> =>
    stack.post({ documentId: PAGE_HASH, variables: { id: FIXTURE_IDS.shop } }, { key: null, headers });

  it('ignores no-cache from anonymous callers: the document costs its upstream requests once', async () => {
    const first = await anonymous({ 'cache-control': 'no-cache' });
    expect(first.body.errors).toBeUndefined();
    const needed = stack.simulator.requests.length;
    expect(needed).toBeGreaterThan(0);

    for (let i = 0; i < 5; i += 1) {
      const again = await anonymous({ 'cache-control': 'no-cache', pragma: 'no-cache' });
      expect(codes(again.body)).toEqual([]);
      expect(again.body.data).toEqual(first.body.data);
    }
    const together = await Promise.all(
      Array.from({ length: 10 }, () => anonymous({ 'cache-control': 'no-cache, no-store' })),
    );
    for (const answer of together) expect(answer.body.data).toEqual(first.body.data);
    expect(stack.simulator.requests.length).toBe(needed);
  });

  it('still lets a caller with its own key bypass the cache', async () => {
    stack.simulator.reset();
    await stack.post({ documentId: PAGE_HASH, variables: { id: FIXTURE_IDS.shop } }, { key: DEMO_KEYS.premium.key });
    const afterWarm = stack.simulator.requests.length;
    await stack.post(
      { documentId: PAGE_HASH, variables: { id: FIXTURE_IDS.shop } },
      { key: DEMO_KEYS.premium.key, headers: { 'cache-control': 'no-cache' } },
    );
    expect(stack.simulator.requests.length).toBeGreaterThan(afterWarm);
  });
});
