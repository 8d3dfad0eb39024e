/**
 * The lint rule of eslint.config.mjs for tests that need redis-server or Chromium: a test
 * file that starts either outside describeWithRedis / describeWithBrowser fails `npm run
 * lint` (such a file fails on a machine without them instead of skipping). ESLint runs as
 * `npm run lint` runs it, on a probe text given as this file's content (`--stdin`).
 */
import { spawn } from 'node:child_process';
import { join, relative } from 'node:path';

const root = join(__dirname, '..', '..');

interface LintMessage {
  line: number;
  ruleId: string | null;
  message: string;
}

/** Lints `text` as if it were this test file; resolves to ESLint's messages. */
function lint(text: string): Promise<LintMessage[]> {
  return new Promise((resolve, reject) => {
    const eslint = spawn(
      process.execPath,
      [
        join(root, 'node_modules', 'eslint', 'bin', 'eslint.js'),
        '--format',
        'json',
        '--stdin',
        '--stdin-filename',
        relative(root, __filename),
      ],
      { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    eslint.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    eslint.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    eslint.once('error', reject);
    eslint.once('close', () => {
      try {
        const [file] = JSON.parse(out) as { messages: LintMessage[] }[];
        resolve(file?.messages ?? []);
      } catch {
        reject(new Error(`eslint printed no JSON: ${out.slice(0, 500)} ${err.slice(0, 500)}`));
      }
    });
    eslint.stdin.end(text);
  });
}

/** Each line that should be reported ends with a `// reported` comment. */
const PROBE = `import { spawn } from 'node:child_process';
import { chromium } from 'playwright-core'; // reported
import type { Browser } from 'playwright-core';
import { describeWithBrowser, describeWithRedis, launchTestBrowser, startTestRedis, useBrowser } from '../support';
import type { TestRedis } from '../support';

let redis: TestRedis | undefined;
beforeAll(async () => {
  redis = await startTestRedis(); // reported
});
afterAll(() => redis?.stop());

describeWithRedis('inside the helper', () => {
  beforeAll(async () => {
    redis = await startTestRedis({ own: true });
  });
});

describe('nested', () => {
  describeWithBrowser('inside the helper', () => {
    let browser: Browser | undefined;
    beforeAll(async () => {
      browser = await launchTestBrowser();
    });
    afterAll(() => browser?.close());
  });
  describeWithBrowser('with the hook helper', () => {
    const browser = useBrowser();
    it('opens a page', async () => (await browser.newPage()).close());
  });
});

const outside = useBrowser(); // reported

it('starts them by hand', async () => {
  const browser = await launchTestBrowser(); // reported
  await browser.close();
  spawn('redis-server', ['--port', '0']); // reported
  await (await chromium.launch()).close();
});
`;

it('reports every Redis or browser start outside describeWithRedis / describeWithBrowser, and nothing inside them', async () => {
  const messages = await lint(PROBE);
  const expected = PROBE.split('\n').flatMap((line, index) => (line.endsWith('// reported') ? [index + 1] : []));
  expect(expected).toHaveLength(5);
  expect(messages.filter((m) => m.ruleId === null)).toEqual([]); // no parsing error
  const reported = messages.filter(
    (m) => m.ruleId === 'no-restricted-syntax' || m.ruleId === '@typescript-eslint/no-restricted-imports',
  );
  expect(reported.map((m) => m.line)).toEqual(expected);
  // The top-level beforeAll that started Redis outside the helper: the message says what to do.
  expect(reported[1]?.message).toMatch(/inside describeWithRedis/);
}, 60_000);
