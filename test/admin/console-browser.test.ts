/**
 * The browser console at /console/ in Chromium, against the simulator: sign-in with the
 * one-time link, then each page's main flow (overview, keys, tokens, webhook deliveries,
 * alerts, payments, site documents), the messages for bad input (a wrong key with what the
 * StateV API answered, a grant for a company not owned, invalid JSON where it breaks, a version
 * conflict, RATE_LIMITED with its retry time, an ended session), no
 * serious or critical axe violation on any page at 1280×800 and 390×844, and no request to
 * any other origin than the gateway's.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { BrowserContext, Page } from 'playwright-core';
import { consoleCommand } from '../../src/cli/console-cli';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { describeWithBrowser, useBrowser, useStack } from '../support';
import { testVault } from './admin-helpers';
import { transferFingerprint } from '../../src/domains/payments/payment-request.store';
import type { TestVault } from './admin-helpers';

jest.setTimeout(120_000);

const ROOT = join(__dirname, '..', '..');
const SHOTS = join(ROOT, 'test', 'artifacts', 'console');
const PAGES = ['overview', 'keys', 'tokens', 'deliveries', 'alerts', 'payments', 'documents'] as const;
/** `UPDATE_DOCS_SCREENSHOTS=1` also replaces the console's pictures in docs/ (docs/console.md shows them). */
const docsShot = async (page: Page, name: string, fullPage = false): Promise<void> => {
  if (process.env.UPDATE_DOCS_SCREENSHOTS)
    await page.screenshot({ path: join(ROOT, 'docs', `console-${name}.png`), fullPage });
};

const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;

describeWithBrowser('the browser console', () => {
  const browser = useBrowser();
  let vault: TestVault;
  const stack = useStack(async () => {
    // The console's files as `npm run build` writes them (a fresh clone has not built them).
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-console.mjs')], { cwd: ROOT, stdio: 'pipe' });
    vault = await testVault();
    return {
      http: true,
      config: { vaultFile: vault.vaultFile, vaultMasterKey: vault.masterKey, upstreamRateLimit: null },
    };
  });

  /** A context at one size, its requests recorded; signed in with a fresh one-time link. */
  const signedIn = async (viewport: {
    width: number;
    height: number;
  }): Promise<{ context: BrowserContext; page: Page; requests: string[] }> => {
    const context = await browser.newContext({ viewport });
    const requests: string[] = [];
    context.on('request', (request) => requests.push(request.url()));
    const page = await context.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    const printed = await consoleCommand(['console'], {
      VAULT_MASTER_KEY: vault.masterKey,
      VAULT_FILE: vault.vaultFile,
      PORT: '4000',
    });
    const code = new URL(printed.stdout.trim()).searchParams.get('code') ?? '';
    await page.goto(`${stack.origin}/console/sign-in?code=${encodeURIComponent(code)}`);
    await page.waitForSelector('#cache-ratio');
    return { context, page, requests };
  };

  const open = async (page: Page, name: (typeof PAGES)[number]): Promise<void> => {
    await page.goto(`${stack.origin}/console/#${name}`);
    await page.waitForSelector(`h2#${name === 'deliveries' ? 'deliveries' : name}-title`);
    await page.waitForLoadState('networkidle');
  };

  it.each(VIEWPORTS)(
    'every page at %o: no serious or critical axe violation, no request to another origin',
    async (viewport) => {
      const { context, page, requests } = await signedIn(viewport);
      try {
        mkdirSync(SHOTS, { recursive: true });
        for (const name of PAGES) {
          await open(page, name);
          const results = await new AxeBuilder({ page }).analyze();
          const serious = results.violations.filter(
            (violation) => violation.impact === 'serious' || violation.impact === 'critical',
          );
          expect({
            page: name,
            violations: serious.map(
              (violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
            ),
          }).toEqual({ page: name, violations: [] });
          await page.screenshot({ path: join(SHOTS, `${name}-${viewport.width}.png`), fullPage: true });
          if (name === 'overview' && viewport.width === 1280) await docsShot(page, 'overview');
          if (name === 'keys' && viewport.width === 390) await docsShot(page, 'keys-phone');
        }
        expect(requests.length).toBeGreaterThan(0);
        expect(requests.filter((url) => !url.startsWith(`${stack.origin}/`))).toEqual([]);
      } finally {
        await context.close();
      }
    },
  );

  it('keys: a wrong key is refused with what the StateV API answered; a good one is added with its companies', async () => {
    const { context, page } = await signedIn(VIEWPORTS[0]);
    try {
      await open(page, 'keys');
      await page.fill('#key-name', 'wrong');
      await page.fill('#key-key', 'not-a-real-key');
      await page.click('button:has-text("Add key")');
      const refusal = await page.waitForSelector('form [role="alert"]');
      expect(await refusal.textContent()).toMatch(/key|API/i);
      expect(await page.inputValue('#key-key')).toBe('');

      await page.fill('#key-name', 'other');
      await page.fill('#key-key', DEMO_KEYS.other.key);
      await page.fill('#key-secret', DEMO_KEYS.other.secret);
      await page.click('button:has-text("Add key")');
      await page.waitForSelector('form [role="status"] >> text=/Key "other" stored/');
      await page.waitForSelector(`#characters >> text=${FIXTURE_IDS.otherFactory}`);
      expect(await page.inputValue('#key-key')).toBe('');
      expect(await page.content()).not.toContain(DEMO_KEYS.other.secret);

      // A spent budget: the gateway's RATE_LIMITED answer, with when to try again.
      await page.route('**/admin/graphql', async (route) => {
        if (!(route.request().postData() ?? '').includes('AddKey')) return route.continue();
        const error = {
          message: 'The StateV API rate limit for this key is reached.',
          extensions: { code: 'RATE_LIMITED', retryAfterSeconds: 42 },
        };
        return route.fulfill({
          status: 200,
          contentType: 'application/json',
          body: JSON.stringify({ errors: [error], data: null }),
        });
      });
      await page.fill('#key-name', 'later');
      await page.fill('#key-key', DEMO_KEYS.basic.key);
      await page.click('button:has-text("Add key")');
      const limited = await page.waitForSelector('form [role="alert"] >> text=/Try again/');
      expect(await limited.textContent()).toMatch(/rate limit .*Try again in 42 s \(at /);
      await page.unroute('**/admin/graphql');

      await page.click('button:has-text("Remove other")');
      await page.waitForSelector('[role="status"] >> text=/Key "other" removed/');
    } finally {
      await context.close();
    }
  });

  it('tokens: a grant for a company not owned is refused; a token is created from the picker, shown once, copied and revoked', async () => {
    const { context, page } = await signedIn(VIEWPORTS[0]);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.origin });
    try {
      // The picker lists the companies addVaultKey's check found: add the key here first.
      await open(page, 'keys');
      await page.fill('#key-name', 'shop');
      await page.fill('#key-key', DEMO_KEYS.premium.key);
      await page.click('button:has-text("Add key")');
      await page.waitForSelector('form [role="status"] >> text=/stored/');

      await open(page, 'tokens');
      await page.check('label.check:has-text("shop") input');
      await page.fill('#token-more', `factory:${FIXTURE_IDS.otherFactory}`);
      await page.click('button:has-text("Create token")');
      const refused = await page.waitForSelector('form [role="alert"]');
      expect(await refused.textContent()).toContain('does not own');

      await page.fill('#token-more', '');
      await page.check(`label.check:has-text("factory:${FIXTURE_IDS.shop}") input`);
      await page.fill('#token-origin', 'https://shop.example');
      await page.fill('#token-expires', '1h');
      await page.click('button:has-text("Create token")');
      await page.waitForSelector('form [role="status"] >> text=/created/');
      const token = await page.inputValue('#token-created');
      expect(token).toMatch(/^svg_/);
      await page.click('.secret-once button:has-text("Copy")');
      await page.waitForSelector('.secret-once >> text=Copied.');
      await page.locator('.secret-once').scrollIntoViewIfNeeded();
      await docsShot(page, 'tokens');
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe(token);

      const row = page.locator('#tokens tbody tr').filter({ hasText: `factory:${FIXTURE_IDS.shop}` });
      await row.locator('button:has-text("Revoke")').click();
      await row.locator('text=/revoked/').waitFor();
      // Shown once: a reload lists the token without it.
      await page.reload();
      await page.waitForSelector('#tokens tbody tr');
      expect(await page.content()).not.toContain(token);
    } finally {
      await context.close();
    }
  });

  it('payments: a request is listed by status (the key was added in the console, which knows its companies); an unmatched transfer is assigned to it', async () => {
    const created = await stack.post(
      {
        query: `mutation { createPaymentRequest(input: { factoryId: "${FIXTURE_IDS.shop}", bankAccountId: "${FIXTURE_IDS.shopMainAccount}", amount: 25, note: "console test" }) { reference } }`,
      },
      { key: DEMO_KEYS.premium.key },
    );
    const reference =
      (created.body.data as { createPaymentRequest: { reference: string } } | null)?.createPaymentRequest.reference ??
      '';
    expect(reference).not.toBe('');
    const { context, page } = await signedIn(VIEWPORTS[0]);
    try {
      await open(page, 'payments');
      await page.waitForSelector(`#payment-requests >> text=${reference}`);
      await page.selectOption('#payments-status', 'PAID');
      await page.waitForSelector('#payment-requests >> text=No payment request.');
      await page.selectOption('#payments-status', 'PENDING');
      await page.waitForSelector(`#payment-requests >> text=${reference}`);
      await page.waitForSelector('#unmatched-transfers tbody tr');
      // An unmatched transfer of the company, assigned by hand to the open request.
      const store = stack.gateway.payments.store;
      const owner =
        (
          await Promise.all(
            (await store.owners()).map(async (each) => ((await store.get(each, reference)) ? each : null)),
          )
        ).find((each) => each !== null) ?? '';
      const transfer = { amount: 11, senderVban: '4799001', reference: 'no code here', timestamp: Date.now() };
      expect(
        await store.recordTransfer(owner, FIXTURE_IDS.shopMainAccount, transferFingerprint(transfer), 1, {
          kind: 'unmatched',
          factoryId: FIXTURE_IDS.shop,
          transfer,
        }),
      ).toBe(true);
      await page.reload();
      const row = page.locator('#unmatched-transfers tbody tr', { hasText: 'no code here' });
      await row.locator('select').selectOption(reference);
      await row.getByRole('button', { name: 'Assign' }).click();
      await page.waitForSelector(`text=Assigned to ${reference}: now PARTIALLY_PAID`);
      // The page reads its lists again before it says so: the assigned transfer has left the list.
      expect(await page.locator('#unmatched-transfers', { hasText: 'no code here' }).count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it('webhooks: a waiting delivery is listed and redelivered; alerts answer in the page', async () => {
    const now = Date.now();
    await stack.gateway.payments.store.putOutbox({
      id: 'msg_console_test',
      webhookId: 'whk_test',
      url: 'http://127.0.0.1:9/hook?secret=x',
      payload: '{}',
      attempts: 2,
      firstAt: now,
      nextAt: now + 3_600_000,
    });
    const { context, page } = await signedIn(VIEWPORTS[0]);
    try {
      await open(page, 'deliveries');
      await page.waitForSelector('#deliveries >> text=webhook:whk_test');
      expect(await page.textContent('#deliveries')).not.toContain('secret=x');
      await page.click('button:has-text("Redeliver msg_console_test")');
      await page.waitForSelector('[role="status"] >> text=/is due now/');

      await open(page, 'alerts');
      await page.selectOption('#alert-kind', 'OUTBID');
      await page.fill('#alert-url', 'http://127.0.0.1:9/discord');
      await page.click('button:has-text("Create alert")');
      // Until alerts exist the gateway refuses every rule; the page says so either way.
      const answer = await page.waitForSelector('form [role="alert"], form [role="status"]');
      expect(await answer.textContent()).toMatch(/not available yet|created/);
    } finally {
      await context.close();
    }
  });

  it.each(VIEWPORTS)(
    'site documents at %o: a new document is checked, saved with its version, shown in conflict and deleted',
    async (viewport) => {
      const name = `hours-${viewport.width}`;
      const { context, page, requests } = await signedIn(viewport);
      try {
        // The picker lists the companies addVaultKey's check found; writes need the key's secret.
        await open(page, 'keys');
        await page.fill('#key-name', 'docs');
        await page.fill('#key-key', DEMO_KEYS.premium.key);
        await page.fill('#key-secret', DEMO_KEYS.premium.secret);
        await page.click('button:has-text("Add key")');
        await page.waitForSelector('form [role="status"] >> text=/stored/');

        await open(page, 'documents');
        await page.selectOption('#documents-company', `docs|${FIXTURE_IDS.shop}`);
        await page.click('button:has-text("Show documents")');
        await page.waitForSelector('#site-documents');
        await page.waitForSelector('#documents-capacity >> text=/Free slots/');

        await page.fill('#documents-new-name', name);
        await page.click('button:has-text("New document")');
        await page.waitForSelector(`h3#editor-title >> text=${name}: new`);
        // Invalid JSON: where it breaks, and nothing is sent.
        await page.fill('#document-json', '{\n  "open": "9-18",\n  "closed": [sunday]\n}');
        const problem = await page.textContent('#document-json-check');
        expect(problem).toMatch(/^Not valid JSON at line 3, column 14: /);
        expect(await page.getAttribute('#document-json', 'aria-invalid')).toBe('true');
        await page.click('form.editor button:has-text("Save")');
        await page.waitForSelector('[role="alert"] >> text=Not saved: the text is not JSON');

        await page.fill('#document-json', '{"open": "9-18", "closed": ["sunday"]}');
        expect(await page.textContent('#document-json-check')).toMatch(
          /^Valid JSON\. 35 bytes as stored \(canonical JSON\): about 2 slots/,
        );
        await page.click('form.editor button:has-text("Save")');
        await page.waitForSelector(`[role="status"] >> text=Saved: ${name} is version 1`);
        await page.waitForSelector(`#site-documents tr:has-text("${name}") >> text=35 bytes`);
        if (viewport.width === 1280) await docsShot(page, 'documents', true);

        // Someone else saves version 2 behind the page: the page's save is a conflict, not an overwrite.
        const behind = await stack.post(
          {
            query: `mutation ($input: SetSiteDocumentInput!) { setSiteDocument(input: $input) { document { version } } }`,
            variables: {
              input: { factoryId: FIXTURE_IDS.shop, name, value: { open: '10-16' }, expectedVersion: 1 },
            },
          },
          { key: DEMO_KEYS.premium.key, headers: { 'x-api-secret': DEMO_KEYS.premium.secret } },
        );
        expect(behind.body.errors).toBeUndefined();
        await page.fill('#document-json', '{"open": "8-20"}');
        await page.click('form.editor button:has-text("Save")');
        const conflict = await page.waitForSelector('.conflict[role="alert"]');
        expect(await conflict.textContent()).toContain(`${name} is at version 2 now, not version 1`);
        const results = await new AxeBuilder({ page }).analyze();
        expect(
          results.violations
            .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
            .map((violation) => violation.id),
        ).toEqual([]);
        mkdirSync(SHOTS, { recursive: true });
        await page.screenshot({ path: join(SHOTS, `documents-conflict-${viewport.width}.png`), fullPage: true });
        // Nothing wider than the screen: the list scrolls sideways in its own region.
        expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(viewport.width);
        await page.click('button:has-text("Reload version 2")');
        await page.waitForSelector(`h3#editor-title >> text=${name}: version 2`);
        expect(JSON.parse(await page.inputValue('#document-json'))).toEqual({ open: '10-16' });

        if (viewport.width === 1280) {
          // A spent budget on the public graph: RATE_LIMITED with when to try again.
          await page.route('**/graphql', async (route) => {
            if (!(route.request().postData() ?? '').includes('SaveSiteDocument')) return route.continue();
            const error = {
              message: 'The StateV API rate limit for this key is reached.',
              extensions: { code: 'RATE_LIMITED', retryAfterSeconds: 42 },
            };
            return route.fulfill({
              status: 200,
              contentType: 'application/json',
              body: JSON.stringify({ errors: [error] }),
            });
          });
          await page.click('form.editor button:has-text("Save")');
          const limited = await page.waitForSelector('[role="alert"] >> text=/Try again/');
          expect(await limited.textContent()).toMatch(/rate limit .*Try again in 42 s \(at /);
          await page.unroute('**/graphql');
        }

        await page.click(`button:has-text("Delete ${name}")`);
        await page.waitForSelector(`[role="status"] >> text=Deleted ${name}`);
        await page.waitForSelector(`#site-documents >> text=${name}`, { state: 'detached' });
        expect(requests.filter((url) => !url.startsWith(`${stack.origin}/`))).toEqual([]);
        expect(await page.content()).not.toMatch(/svg_[A-Za-z0-9]{10}/);
      } finally {
        await context.close();
      }
    },
  );

  it('an ended session shows how to sign in again', async () => {
    const { context, page } = await signedIn(VIEWPORTS[1]);
    try {
      await context.clearCookies();
      await page.reload();
      await page.waitForSelector('h2#signed-out-title');
      expect(await page.textContent('main')).toContain('statev-gateway console');
      const results = await new AxeBuilder({ page }).analyze();
      expect(
        results.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical'),
      ).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
