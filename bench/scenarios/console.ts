/**
 * console: the browser console with 50 characters in the vault. Measures its first load (the
 * page, script and style as a browser gets them, gzipped; target ≤ 250 KB), the overview's
 * query on /admin/graphql (budgets with their last hour and the cache), and, when Chromium is
 * at `CHROMIUM_PATH` (default /usr/bin/chromium), the time from navigation to the overview
 * showing all 50 characters (target ≤ 1 s). The administration graph must send no upstream
 * request: the simulator's request count is compared before and after.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MasterKeys, Vault } from '../../src/vault';
import { FileVaultStorage } from '../../src/vault/storage';
import type { Scenario } from '../lib/bench';
import { log, ROOT, round } from '../lib/bench';
import { simRequests } from '../lib/http';

const CHARACTERS = 50;
const FIRST_LOAD_TARGET_BYTES = 250 * 1024;
const INTERACTIVE_TARGET_MS = 1000;
const OVERVIEW = JSON.stringify({
  query:
    'query Overview { keyBudgets { character limit windowSeconds usedInWindow upstream429s queued history { at usedInWindow upstream429s queued } } cacheSummary { hits misses stale hitRatio } }',
});
/** Fresh generated simulator keys no other scenario uses. */
const key = (index: number): string => `sim-key-${950_001 + index}`;

export const consoleScenario: Scenario = {
  name: 'console',
  async run(bench) {
    const folder = mkdtempSync(join(tmpdir(), 'statev-bench-console-'));
    const vaultEnv = { VAULT_FILE: join(folder, 'vault.json'), VAULT_MASTER_KEY: randomBytes(32).toString('base64') };
    const vault = new Vault(new FileVaultStorage(vaultEnv.VAULT_FILE), MasterKeys.parse(vaultEnv.VAULT_MASTER_KEY));
    for (let index = 0; index < CHARACTERS; index += 1)
      await vault.addKey(`shop-${index + 1}`, key(index), `${key(index)}-secret`);
    const gateway = await bench.startGateway('gateway-console', vaultEnv);
    try {
      const upstreamBefore = (await simRequests(bench.sim.origin)).count;
      const signIn = (): string => {
        const link = execFileSync(process.execPath, [join(ROOT, 'dist', 'src', 'main.js'), 'console'], {
          env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...vaultEnv, PUBLIC_URL: gateway.origin },
          encoding: 'utf8',
        }).trim();
        return `${gateway.origin}${new URL(link).pathname}${new URL(link).search}`;
      };
      const redirect = await fetch(signIn(), { redirect: 'manual' });
      const cookie = (redirect.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      await redirect.arrayBuffer();

      // First load: what a browser downloads (gzip accepted), as sent.
      const files: Record<string, number> = {};
      for (const path of ['/console/', '/console/console.js', '/console/console.css']) {
        const response = await fetch(`${gateway.origin}${path}`, { headers: { cookie, 'accept-encoding': 'gzip' } });
        if (!response.ok) throw new Error(`console: GET ${path} answered ${response.status}`);
        // fetch decodes the body: the bytes on the wire are the Content-Length of the gzipped answer.
        files[path] = Number(response.headers.get('content-length') ?? 0);
        await response.arrayBuffer();
      }
      const firstLoadBytes = Object.values(files).reduce((sum, bytes) => sum + bytes, 0);

      // The overview's query, 20 times one after another.
      const timings: number[] = [];
      for (let round_ = 0; round_ < 20; round_ += 1) {
        const started = performance.now();
        const response = await fetch(`${gateway.origin}/admin/graphql`, {
          method: 'POST',
          headers: { cookie, origin: gateway.origin, 'content-type': 'application/json' },
          body: OVERVIEW,
        });
        const body = (await response.json()) as { data?: { keyBudgets?: unknown[] } };
        if (body.data?.keyBudgets?.length !== CHARACTERS)
          throw new Error(`console: the overview listed ${body.data?.keyBudgets?.length ?? 0} characters`);
        timings.push(performance.now() - started);
      }
      timings.sort((a, b) => a - b);

      // In Chromium when there is one: navigation to all 50 characters on screen.
      const chromium = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
      let interactiveMs: number | null = null;
      if (existsSync(chromium)) {
        const { chromium: launcher } = await import('playwright-core');
        const browser = await launcher.launch({
          executablePath: chromium,
          args: ['--headless', '--no-sandbox', '--disable-gpu'],
        });
        try {
          const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
          await page.goto(signIn());
          await page.waitForSelector('#cache-ratio');
          // Warm once (as a browser that opened the console before), then time one load.
          await page.goto(`${gateway.origin}/console/#overview`);
          await page
            .locator('article.budget')
            .nth(CHARACTERS - 1)
            .waitFor();
          const started = performance.now();
          await page.reload();
          await page
            .locator('article.budget')
            .nth(CHARACTERS - 1)
            .waitFor();
          interactiveMs = performance.now() - started;
        } finally {
          await browser.close();
        }
      }
      const upstreamRequests = (await simRequests(bench.sim.origin)).count - upstreamBefore;
      const result = {
        ok:
          firstLoadBytes <= FIRST_LOAD_TARGET_BYTES &&
          upstreamRequests === 0 &&
          (interactiveMs === null || interactiveMs <= INTERACTIVE_TARGET_MS),
        description: `the browser console with ${CHARACTERS} characters: first load (gzipped), the overview query, the overview in Chromium, upstream requests`,
        firstLoad: { bytes: firstLoadBytes, targetBytes: FIRST_LOAD_TARGET_BYTES, files },
        overviewQueryMs: {
          p50: round(timings[Math.floor(timings.length / 2)] ?? 0),
          max: round(timings.at(-1) ?? 0),
          of: timings.length,
        },
        overviewInteractiveMs: interactiveMs === null ? null : round(interactiveMs),
        interactiveTargetMs: INTERACTIVE_TARGET_MS,
        upstreamRequests,
      };
      log(
        `console: first load ${firstLoadBytes} B gzipped (target ≤ ${FIRST_LOAD_TARGET_BYTES}), overview query p50 ${result.overviewQueryMs.p50} ms, in Chromium ${result.overviewInteractiveMs ?? 'n/a'} ms, upstream requests ${upstreamRequests}`,
      );
      bench.record('console', result);
    } finally {
      await bench.stopServer(gateway);
      rmSync(folder, { recursive: true, force: true });
    }
  },
};
