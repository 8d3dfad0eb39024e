/**
 * A real browser for tests: Debian's Chromium (`apt-get install -y chromium`) at
 * `CHROMIUM_PATH` (default `/usr/bin/chromium`), driven by playwright-core; no browser is
 * ever downloaded. {@link describeWithBrowser} is `describe` when that file exists, else
 * `describe.skip` (see tools.ts); with REQUIRE_BROWSER set (`.ci/run`) a missing Chromium
 * fails the file instead.
 */
import { accessSync, constants } from 'node:fs';
import type { Browser } from 'playwright-core';
import { describeWithTool, toolUnavailable } from './tools';
import type { Tool } from './tools';

/** The Chromium binary the browser tests run: `CHROMIUM_PATH`, else Debian's `/usr/bin/chromium`. */
export function chromiumPath(): string {
  return process.env.CHROMIUM_PATH || '/usr/bin/chromium';
}

/** The browser tests: they need an executable Chromium at {@link chromiumPath}. */
export const BROWSER_TOOL: Tool = {
  label: 'browser',
  helper: 'describeWithBrowser',
  install: 'apt-get install -y chromium',
  requireVariable: 'REQUIRE_BROWSER',
  probeVariable: 'STATEV_TEST_BROWSER_MISSING',
  unavailableReason: () => {
    const path = chromiumPath();
    try {
      accessSync(path, constants.X_OK);
      return null;
    } catch {
      return `no Chromium at ${path}${process.env.CHROMIUM_PATH ? ' (CHROMIUM_PATH)' : ''}`;
    }
  },
};

/**
 * `describe` when Chromium is available; else `describe.skip`, so jest reports the tests
 * as skipped. With REQUIRE_BROWSER set, a missing Chromium is a failing test that says why.
 * Call {@link launchTestBrowser} only inside it (lint rejects it anywhere else).
 */
export function describeWithBrowser(name: string, body: () => void): void {
  describeWithTool(BROWSER_TOOL, name, body);
}

/**
 * Launches headless Chromium (no sandbox, no GPU, no background networking). Call it
 * inside {@link describeWithBrowser}; close the browser in `afterAll`.
 *
 * @throws Error when Chromium is missing
 */
export async function launchTestBrowser(): Promise<Browser> {
  const reason = toolUnavailable(BROWSER_TOOL);
  if (reason !== null)
    throw new Error(
      `Browser tests need Chromium: ${reason}. Start it inside describeWithBrowser, which skips the tests then (${BROWSER_TOOL.install} enables them).`,
    );
  // Loaded here, not at the top: most test files import the harness and never start a browser.
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: chromiumPath(),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}
