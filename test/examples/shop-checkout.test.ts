/**
 * examples/shop-checkout/ in Chromium: the page creates a payment request for an order,
 * shows the VBAN and the reference, and turns green by itself when the simulator books
 * the transfer (the pollers on a manual clock: one interval after the transfer).
 */
import type { Browser } from 'playwright-core';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { describeWithBrowser, launchTestBrowser, ManualClock, startStack } from '../support';
import type { HttpStack } from '../support';

jest.setTimeout(60_000);

describeWithBrowser('the shop-checkout example page', () => {
  let browser: Browser;
  let stack: HttpStack;
  let clock: ManualClock;

  beforeAll(async () => {
    clock = new ManualClock();
    stack = await startStack({
      http: true,
      config: { serveExamples: true },
      gateway: { now: clock.now, pollClock: clock },
    });
    browser = await launchTestBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  it('shows the VBAN and reference, and turns green when the transfer arrives', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${stack.gateway.url}/examples/shop-checkout/`);
      await page.fill('#key', DEMO_KEYS.premium.key);
      await page.fill('#factory', FIXTURE_IDS.shop);
      await page.fill('#account', FIXTURE_IDS.shopMainAccount);
      await page.fill('#amount', '250');
      const listening = new Promise((resolve) => stack.gateway.payments.activity.once('listening', resolve));
      // The account's poller has made its first poll (and scheduled the next) once it is joined.
      const polling = new Promise((resolve) => stack.gateway.subscriptions.hub.activity.once('joined', resolve));
      await page.click('button[type=submit]');
      await page.waitForSelector('#payment', { state: 'visible' });
      await listening;
      await polling;
      expect(await page.textContent('#vban')).toBe('4711002');
      const shown = (await page.textContent('#reference')) ?? '';
      expect(shown).toMatch(/^[2-9A-HJKMNP-Z]{4} [2-9A-HJKMNP-Z]{4}$/);
      expect(await page.getAttribute('body', 'class')).toBeNull();
      stack.simulator.change({
        kind: 'transaction',
        bankAccountId: FIXTURE_IDS.shopMainAccount,
        amount: 250,
        reference: `order ${shown.toLowerCase()}`,
        otherVban: '4799001',
      });
      const matched = new Promise((resolve) => stack.gateway.payments.activity.once('matched', resolve));
      clock.advance(60_000);
      await matched;
      await page.waitForSelector('body.paid');
      expect(await page.textContent('#status')).toBe('PAID');
    } finally {
      await page.close();
    }
  });
});
