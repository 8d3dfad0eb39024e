/**
 * The example company site survives its visitors: 200 loads of the live page, one after
 * another, each closed once the company shows, on a gateway in public-site mode as the demo
 * runs it (the premium demo key as the server key, the site's trusted documents, examples
 * served). Every visitor's live query counts against the server key's
 * SUBSCRIPTIONS_MAX_PER_KEY (20) until it is released, so a load that left its stream
 * behind would refuse the 21st visitor after it. Every load gets the company, and
 * afterwards statev_subscriptions_active is back at 0.
 *
 * Twice: with plain Server-Sent Events requests of the page's own live document (what the
 * page's EventSource sends; always runs), and in Chromium (where present), a few pages at a
 * time in one browser context, each closed with `page.close()`.
 */
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { FIXTURE_IDS } from '../../src/simulator';
import { describeWithBrowser, examplePublicSiteConfig, useBrowser, useStack } from '../support';
import type { HttpStack } from '../support';
import { activeGauges, untilReleased } from '../subscriptions/streams';

const LOADS = 200;
/** Pages open at once in Chromium (well under SUBSCRIPTIONS_MAX_PER_KEY, so a leaked stream per load still shows). */
const LANES = 6;
const MANIFEST = join(__dirname, '..', '..', 'examples', 'company-site', 'generated', 'persisted-documents.json');

jest.setTimeout(180_000);

/** The hash of the page's live document in the site's manifest (as app.js finds it). */
function liveHash(): string {
  const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8')) as Record<string, string>;
  const entry = Object.entries(manifest).find(([, text]) => /^\s*query\s+LiveCompanyPage\b/.test(text));
  if (!entry) throw new Error('no LiveCompanyPage in the manifest');
  return entry[0];
}

/** The path of the page's EventSource request (graphql-sse's distinct connections mode, a GET). */
function livePath(id: string): string {
  const params = new URLSearchParams({
    query: '',
    extensions: JSON.stringify({ persistedQuery: { version: 1, sha256Hash: liveHash() } }),
    variables: JSON.stringify({ id }),
  });
  return `/graphql/stream?${params}`;
}

/** One visitor: opens the live stream, resolves with the first result, and closes the connection. */
function visit(
  stack: HttpStack,
  path: string,
): Promise<{ data?: { factory?: { name?: string } | null } | null; errors?: unknown[] }> {
  const origin = new URL(stack.gateway.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: origin.hostname,
      port: origin.port,
      path,
      headers: { accept: 'text/event-stream' },
    });
    req.once('error', reject);
    req.once('response', (response) => {
      if (response.statusCode !== 200) reject(new Error(`HTTP ${response.statusCode}`));
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
        const match = /event: next\ndata: (.*)\n\n/.exec(text);
        if (!match?.[1]) return;
        req.destroy();
        resolve(JSON.parse(match[1]) as { data?: { factory?: { name?: string } | null } | null; errors?: unknown[] });
      });
      response.once('end', () => reject(new Error(`the stream ended before a result: ${text}`)));
    });
    req.end();
  });
}

describe(`the example site's live document, ${LOADS} visitors over plain SSE`, () => {
  const stack = useStack({ http: true, config: { ...examplePublicSiteConfig(), serveExamples: true } });

  it('answers every visitor with the company and holds nothing afterwards', async () => {
    const path = livePath(FIXTURE_IDS.shop);
    const names = new Set<string>();
    for (let i = 0; i < LOADS; i += 1) {
      const result = await visit(stack, path);
      expect([i, result.errors]).toEqual([i, undefined]);
      names.add(String(result.data?.factory?.name));
    }
    expect(names.size).toBe(1);
    expect([...names][0]).not.toBe('undefined');
    await untilReleased(stack, `${LOADS} visitors`);
    expect(await activeGauges(stack)).toEqual({ ws: 0, sse: 0 });
  });
});

describeWithBrowser(`the example company site, ${LOADS} page loads in Chromium`, () => {
  const browser = useBrowser();
  const stack = useStack({ http: true, config: { ...examplePublicSiteConfig(), serveExamples: true } });

  it('shows the company on every load and holds nothing after the pages closed', async () => {
    const context = await browser.newContext();
    const pageErrors: string[] = [];
    // A few pages at a time (fewer than SUBSCRIPTIONS_MAX_PER_KEY), each lane loading and closing one after another.
    let next = 0;
    const lane = async (): Promise<void> => {
      for (let i = next++; i < LOADS; i = next++) {
        const page = await context.newPage();
        page.on('pageerror', (error) => pageErrors.push(error.message));
        await page.goto(`${stack.gateway.url}/examples/company-site/?id=${FIXTURE_IDS.shop}`);
        await page.waitForFunction("document.body.dataset.complete === 'true'", undefined, {
          timeout: 30_000,
          polling: 20,
        });
        expect([i, await page.locator('#company-name').textContent()]).not.toEqual([i, 'Loading…']);
        await page.close();
      }
    };
    try {
      await Promise.all(Array.from({ length: LANES }, lane));
    } finally {
      await context.close();
    }
    expect(pageErrors).toEqual([]);
    await untilReleased(stack, `${LOADS} page loads`);
    expect(await activeGauges(stack)).toEqual({ ws: 0, sse: 0 });
  });
});
