/**
 * The two web clients in a real browser (Debian's Chromium driven by playwright-core):
 * (a) the GraphiQL playground loads and runs a nested query with a key typed into its
 *     Headers editor, without a single request to any host but the gateway;
 * (a') the playground runs a subscription over graphql-ws (its UMD build, served offline);
 * (b) the example company site renders a company from ONE keyless live query by hash over
 *     Server-Sent Events (public-site mode).
 * Screenshots go to test/artifacts/ (copied to docs/ for the docs pages).
 *
 * Without Chromium (`CHROMIUM_PATH`, default /usr/bin/chromium) the tests are skipped, or
 * fail when REQUIRE_BROWSER is set (test/support/browser.ts). No browser is ever downloaded.
 */
import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page, Request } from 'playwright-core';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { describeWithBrowser, ManualClock, useBrowser, useStacks } from '../support';

const ARTIFACTS = join(__dirname, '../artifacts');
const SITE_MANIFEST = join(__dirname, '../../examples/company-site/generated/persisted-documents.json');
const VIEWPORT = { width: 1100, height: 700 };

/** From the fixtures: character 1's 24/7 shop and two items of its counter (Wasser at 4.50). */
const SHOP_NAME = 'Max 24/7 Vinewood';
const COUNTER_ITEM = 'Sandwich';
const COUNTER_PRICE = '4.50';

jest.setTimeout(60_000);

/**
 * Aborts every request to a host other than the gateway's and records it. Only http(s)
 * and ws(s) requests count; browser-internal schemes (data:, blob:, chrome:, …) are not
 * network requests to another host.
 */
async function confineToGateway(context: BrowserContext, gatewayUrl: string): Promise<string[]> {
  const gatewayHost = new URL(gatewayUrl).host;
  const foreign: string[] = [];
  const isForeign = (url: string): boolean => {
    const parsed = new URL(url);
    return ['http:', 'https:', 'ws:', 'wss:'].includes(parsed.protocol) && parsed.host !== gatewayHost;
  };
  await context.route('**/*', async (route) => {
    const url = route.request().url();
    if (isForeign(url)) {
      foreign.push(url);
      await route.abort();
      return;
    }
    await route.continue();
  });
  context.on('page', (page) => {
    page.on('websocket', (socket) => {
      if (isForeign(socket.url())) foreign.push(socket.url());
    });
  });
  return foreign;
}

describeWithBrowser('in Chromium', () => {
  const browser = useBrowser();
  let context: BrowserContext | undefined;

  beforeAll(() => {
    mkdirSync(ARTIFACTS, { recursive: true });
  });

  afterEach(async () => {
    await context?.close();
    context = undefined;
  });
  // Registered after the context's afterEach: the page closes before its gateway.
  const stacks = useStacks();

  async function newPage(gatewayUrl: string): Promise<{ page: Page; foreign: string[] }> {
    context = await browser.newContext({ viewport: VIEWPORT });
    context.setDefaultTimeout(15_000);
    const foreign = await confineToGateway(context, gatewayUrl);
    return { page: await context.newPage(), foreign };
  }

  it('the playground runs a nested query with a key from its Headers editor, loading nothing from other hosts', async () => {
    const stack = await stacks.start({ http: true });
    const { page, foreign } = await newPage(stack.gateway.url);

    const query = '{\n  factories {\n    name\n    counter { items { item price } }\n  }\n}\n';
    const response = await page.goto(`${stack.gateway.url}/graphql?query=${encodeURIComponent(query)}`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-type']).toMatch(/text\/html/);

    // The Headers tab of the editor tools; its CodeMirror editor becomes the visible one.
    await page.getByRole('button', { name: 'Headers' }).click();
    const headersEditor = page.locator('.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror');
    await headersEditor.click();
    await page.keyboard.press('ControlOrMeta+A');
    // insertText, not type(): CodeMirror would auto-close the typed braces and quotes.
    await page.keyboard.insertText(JSON.stringify({ Authorization: `Bearer ${DEMO_KEYS.premium.key}` }));

    const answer = page.waitForResponse(
      (r) =>
        r.url().startsWith(stack.endpoint) &&
        r.request().method() === 'POST' &&
        (r.request().postData() ?? '').includes('factories'),
    );
    await page.locator('.graphiql-execute-button').click();
    const graphqlResponse = await answer;
    expect(graphqlResponse.request().headers()['authorization']).toBe(`Bearer ${DEMO_KEYS.premium.key}`);
    const body = (await graphqlResponse.json()) as { data?: { factories?: { name: string }[] }; errors?: unknown[] };
    expect(body.errors).toBeUndefined();
    expect(body.data?.factories?.map((f) => f.name)).toContain(SHOP_NAME);

    await page.locator('.graphiql-response', { hasText: COUNTER_ITEM }).waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'playground.png'), scale: 'css' });

    // shouldPersistHeaders: the key is entered once; a new visit (same browser profile) has it.
    await page.waitForFunction(
      `(localStorage.getItem('graphiql:headers') || '').includes(${JSON.stringify(DEMO_KEYS.premium.key)})`,
    );
    const again = await page.context().newPage();
    await again.goto(`${stack.gateway.url}/graphql`);
    await again.getByRole('button', { name: 'Headers' }).click();
    await again
      .locator('.graphiql-editor-tool .graphiql-editor:not(.hidden)', { hasText: DEMO_KEYS.premium.key })
      .waitFor();

    expect(foreign).toEqual([]);
  });

  it('the playground runs a subscription over graphql-ws with the key of its Headers editor', async () => {
    const clock = new ManualClock();
    const stack = await stacks.start({ http: true, gateway: { now: clock.now, pollClock: clock } });
    const { page, foreign } = await newPage(stack.gateway.url);
    const subscription = `subscription {\n  inventoryChanged(factoryId: "${FIXTURE_IDS.shop}") {\n    changes { item delta }\n  }\n}\n`;
    await page.goto(`${stack.gateway.url}/graphql?query=${encodeURIComponent(subscription)}`);
    await page.getByRole('button', { name: 'Headers' }).click();
    await page.locator('.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror').click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.insertText(JSON.stringify({ Authorization: `Bearer ${DEMO_KEYS.premium.key}` }));

    const joined = once(stack.gateway.subscriptions.hub.activity, 'joined');
    await page.locator('.graphiql-execute-button').click();
    await joined;
    stack.simulator.change({ kind: 'stock', factoryId: FIXTURE_IDS.shop, item: 'Wasser', delta: -2 });
    clock.advance(60_000);
    await page.locator('.graphiql-response', { hasText: '"delta": -2' }).waitFor();
    expect(foreign).toEqual([]);
  });

  it('the company site renders a company from one keyless live query by hash', async () => {
    const stack = await stacks.start({
      http: true,
      config: { serverApiKey: DEMO_KEYS.premium.key, trustedDocumentsPath: SITE_MANIFEST, serveExamples: true },
    });
    const { page, foreign } = await newPage(stack.gateway.url);
    const graphqlRequests: Request[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/graphql')) graphqlRequests.push(request);
    });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));

    await page.goto(`${stack.gateway.url}/examples/company-site/?id=${FIXTURE_IDS.shop}`);
    await page.locator('#company-name', { hasText: SHOP_NAME }).waitFor();
    await page.locator('#counter td', { hasText: COUNTER_PRICE }).first().waitFor();
    await page.locator('#counter td', { hasText: COUNTER_ITEM }).waitFor();
    expect(await page.locator('#company-state').textContent()).toBe('Open');
    expect(await page.locator('#message').isHidden()).toBe(true);

    // One GET of the stream, carrying only the trusted document's hash and the variables.
    expect(graphqlRequests).toHaveLength(1);
    const request = graphqlRequests[0];
    expect(request?.method()).toBe('GET');
    const headers = await request?.allHeaders();
    expect(headers?.['authorization']).toBeUndefined();
    const sent = new URL(request?.url() ?? 'http://invalid/').searchParams;
    expect(new URL(request?.url() ?? 'http://invalid/').pathname).toBe('/graphql/stream');
    expect(sent.get('query')).toBe('');
    expect(JSON.parse(sent.get('extensions') ?? 'null')).toEqual({
      persistedQuery: { version: 1, sha256Hash: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    expect(JSON.parse(sent.get('variables') ?? 'null')).toEqual({ id: FIXTURE_IDS.shop });
    expect(stack.simulator.requests.map((r) => r.keyLabel).every((label) => label === 'premium')).toBe(true);

    expect(pageErrors).toEqual([]);
    expect(foreign).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'company-site.png'), scale: 'css', fullPage: true });
  });

  it('the company site shows a clear message for an unknown company', async () => {
    const stack = await stacks.start({
      http: true,
      config: { serverApiKey: DEMO_KEYS.premium.key, trustedDocumentsPath: SITE_MANIFEST, serveExamples: true },
    });
    const { page } = await newPage(stack.gateway.url);
    await page.goto(`${stack.gateway.url}/examples/company-site/?id=${'0'.repeat(24)}`);
    await page.locator('#message.message--error').waitFor();
    expect(await page.locator('#company-name').textContent()).toBe('Company unavailable');
    expect(await page.locator('#company-state').isHidden()).toBe(true);
    expect(await page.locator('section.card:visible').count()).toBe(0);
    expect(await page.locator('#message').textContent()).toMatch(/no company with this id|could not be loaded/i);
  });
});
