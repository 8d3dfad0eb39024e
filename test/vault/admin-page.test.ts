/**
 * examples/company-site/admin.html in Chromium: an admin edits the company's catalogue site
 * document holding only an access token (factory:<id>, write:siteDocument:catalogue): the
 * page loads the document, saves a new version (the gateway takes the secret from the
 * vault), and a token without the write grant is told which grant it lacks.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { MasterKeys, Vault } from '../../src/vault';
import { FileVaultStorage } from '../../src/vault/storage';
import { describeWithBrowser, useBrowser, useStack } from '../support';

jest.setTimeout(60_000);

describeWithBrowser('the catalogue admin page', () => {
  const browser = useBrowser();
  let admin: string;
  let readOnly: string;
  const stack = useStack(async () => {
    const vaultFile = join(mkdtempSync(join(tmpdir(), 'admin-page-')), 'vault.json');
    const masterKey = randomBytes(32).toString('base64');
    const vault = new Vault(new FileVaultStorage(vaultFile), MasterKeys.parse(masterKey));
    await vault.addKey('farm', DEMO_KEYS.premium.key, DEMO_KEYS.premium.secret);
    ({ token: admin } = await vault.createToken({
      characters: ['farm'],
      grants: [`factory:${FIXTURE_IDS.farm}`, 'write:siteDocument:catalogue'],
      expiresInMs: 3_600_000,
    }));
    ({ token: readOnly } = await vault.createToken({
      characters: ['farm'],
      grants: [`factory:${FIXTURE_IDS.farm}`],
      expiresInMs: 3_600_000,
    }));
    return {
      http: true,
      config: { serveExamples: true, vaultFile, vaultMasterKey: masterKey, upstreamRateLimit: null },
    };
  });

  /** Opens the admin page, signs in with the write token and waits for the editor. */
  const openEditor = async (page: Awaited<ReturnType<typeof browser.newPage>>): Promise<void> => {
    await page.goto(`${stack.gateway.url}/examples/company-site/admin.html?id=${FIXTURE_IDS.farm}`);
    await page.fill('#token', admin);
    await page.click('#load');
    await page.waitForSelector('#editor', { state: 'visible' });
  };

  it('loads and saves the catalogue with the token alone; a token without the write grant is told which it lacks', async () => {
    const page = await browser.newPage();
    try {
      await openEditor(page);
      expect(await page.textContent('#version')).toBe('not written yet');
      const catalogue = { items: [{ name: 'Weizen', price: 3.5 }] };
      await page.fill('#catalogue-json', JSON.stringify(catalogue));
      await page.click('#save');
      await page.waitForSelector('#message >> text=/^Saved: version 1\\./');

      const check = await stack.post(
        { query: `{ factory(id: "${FIXTURE_IDS.farm}") { siteDocument(name: "catalogue") { version value } } }` },
        { key: DEMO_KEYS.premium.key },
      );
      expect(check.body.data).toEqual({ factory: { siteDocument: { version: 1, value: catalogue } } });

      await page.fill('#token', readOnly);
      await page.click('#load');
      await page.waitForSelector('#message >> text=/^Signed in/');
      await page.click('#save');
      await page.waitForSelector('#message >> text=/could not be saved/');
      expect(await page.textContent('#message')).toContain('lacks the grant write:siteDocument:catalogue');
      expect(await page.content()).not.toContain(DEMO_KEYS.premium.secret);
    } finally {
      await page.close();
    }
  });

  it('says when to try again when the gateway answers RATE_LIMITED', async () => {
    const page = await browser.newPage();
    try {
      await openEditor(page);
      // The save meets a spent budget: the gateway's answer as it sends it (code and retry time).
      await page.route('**/graphql', async (route) => {
        if (!(route.request().postData() ?? '').includes('SaveCatalogue')) return route.continue();
        const error = {
          message: 'The StateV API rate limit for this key is reached (POST /factory/options).',
          extensions: { code: 'RATE_LIMITED', retryAfterSeconds: 42 },
        };
        return route.fulfill({
          status: 200,
          contentType: 'application/json',
          body: JSON.stringify({ errors: [error], data: null }),
        });
      });
      await page.fill('#catalogue-json', JSON.stringify({ items: [] }));
      await page.click('#save');
      await page.waitForSelector('#message >> text=/could not be saved/');
      expect(await page.textContent('#message')).toMatch(
        /rate limit .* is reached .*Try again in 42 s \(at \d{1,2}:\d{2}:\d{2}/,
      );
    } finally {
      await page.close();
    }
  });
});
