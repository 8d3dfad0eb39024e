/**
 * The entry points as a newcomer meets them (`src/main.ts` and `src/demo.ts` as processes,
 * compiled, the way `npm start` and `npm run demo` run `dist/src/`; see test/support/compiled.ts):
 * - with a port already taken (held by this test), each prints one line naming the setting
 *   (`PORT`, `SIMULATOR_PORT`), the command with another port and how to find the holder, no
 *   stack trace, and exits with code 1;
 * - the demo keeps its upstream cache in `.data/demo-upstream-cache`, never in the real
 *   gateway's `.data/upstream-cache` (run in a temporary working directory);
 * - the demo shows everything at once: with `SIMULATOR_RATE_LIMIT=off` the
 *   gateway's budget is off too, so docs/example.md's query is complete; the curl it prints
 *   is the README's; the access token it prints works at once, from its own vault (master
 *   key generated into `.data/`, mode 0600); the company site reads with `demo-site-key`.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compiledEntry } from '../support/compiled';
import { outputUntilExit } from '../support/gateway-process';

const root = join(__dirname, '..', '..');

let holder: Server;
let busy: number;

beforeAll(async () => {
  holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  busy = (holder.address() as { port: number }).port;
});

afterAll(() => new Promise<void>((resolve) => holder.close(() => resolve())));

/** Starts an entry point with exactly this environment (plus PATH and HOME). */
function start(
  entry: 'main.ts' | 'demo.ts',
  env: Record<string, string>,
  cwd = root,
): ChildProcess & { stdout: NodeJS.ReadableStream; stderr: NodeJS.ReadableStream } {
  return spawn(process.execPath, [compiledEntry(entry)], {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      HOST: '127.0.0.1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * Runs an entry point until it exits. CACHE_FILE=off and a vault in a temporary folder with a
 * master key of its own: nothing is written into the project (the demo seeds its vault first).
 */
function run(
  entry: 'main.ts' | 'demo.ts',
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const vaultFile = join(mkdtempSync(join(tmpdir(), 'entry-vault-')), 'vault.json');
  return outputUntilExit(
    start(entry, {
      CACHE_FILE: 'off',
      VAULT_FILE: vaultFile,
      VAULT_MASTER_KEY: randomBytes(32).toString('base64'),
      ...env,
    }),
  );
}

/** The first sh block after `marker` in a Markdown file, its continued lines joined. */
function shBlock(file: string, marker: string): string {
  const text = readFileSync(join(root, file), 'utf8');
  const block = /```sh\n([\s\S]*?)```/.exec(text.slice(text.indexOf(marker)))?.[1] ?? '';
  return block.replace(/ *\\\n */g, ' ').trim();
}

/** POSTs a GraphQL body to the demo with a bearer credential (or none). */
async function post(
  origin: string,
  body: unknown,
  bearer: string | null,
): Promise<{ data?: Record<string, unknown> | null; errors?: unknown[]; extensions?: Record<string, unknown> }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
  const answer = await fetch(`${origin}/graphql`, { method: 'POST', headers, body: JSON.stringify(body) });
  return (await answer.json()) as {
    data?: Record<string, unknown> | null;
    errors?: unknown[];
    extensions?: Record<string, unknown>;
  };
}

/** What a newcomer meets in the demo's banner and first requests. */
async function showsEverythingAtOnce(stdout: string, origin: string, cwd: string): Promise<void> {
  // SIMULATOR_RATE_LIMIT=off: the gateway's budget follows, docs/example.md's page is complete.
  expect(stdout).toContain('Rate limit: off');
  expect(stdout).toContain('Gateway budget: off');
  const example = /--data '(.*)'$/.exec(shBlock('docs/example.md', 'Then the same query as `curl`'))?.[1] ?? '';
  const page = await post(origin, JSON.parse(example), 'demo-premium-key');
  expect(page.errors).toBeUndefined();
  expect(page.extensions?.upstream).toMatchObject({ requests: 20, cacheHits: 0 });
  // The printed curl is the README's, on this demo's port.
  const printed = /^ {2}(curl -s .*)$/m.exec(stdout)?.[1];
  expect(printed).toBe(shBlock('README.md', '<!-- readme-curl').replace('http://127.0.0.1:4000', origin));
  // The printed token works at once; the vault and its master key are the demo's own, in .data/.
  const token = /access token .*: (svg_\S+)$/m.exec(stdout)?.[1] ?? '';
  const viaToken = await post(origin, { query: '{ factories { name } }' }, token);
  expect(viaToken.errors).toBeUndefined();
  expect((viaToken.data?.factories as unknown[]).length).toBeGreaterThan(0);
  expect(statSync(join(cwd, '.data', 'demo-vault-key')).mode & 0o777).toBe(0o600);
  expect(existsSync(join(cwd, '.data', 'demo-vault.json'))).toBe(true);
  expect(stdout).toContain(
    'VAULT_FILE=.data/demo-vault.json VAULT_MASTER_KEY="$(cat .data/demo-vault-key)" npm run cli -- tokens list',
  );
  // The company site's keyless page reads with demo-site-key, not the premium key a reader spends.
  const manifest = JSON.parse(
    readFileSync(join(root, 'examples', 'company-site', 'generated', 'persisted-documents.json'), 'utf8'),
  ) as Record<string, string>;
  const documentId = Object.entries(manifest).find(([, text]) => text.startsWith('query CompanyPage('))?.[0];
  const simulator = /simulator \(upstream\): (\S+)\/req/.exec(stdout)?.[1];
  const site = await post(origin, { documentId, variables: { id: '64f1c2a9e4b0a1d2c3f40001' } }, null);
  expect((site.data?.factory as { name?: string } | null)?.name).toBe('Max 24/7 Vinewood');
  const log = (await (await fetch(`${simulator}/__sim/requests?keyLabel=site`)).json()) as { count: number };
  expect(log.count).toBeGreaterThan(0);
}

/** The one line an entry point prints for the busy port. */
const expectedLine = (setting: string, command: string): string =>
  `Port ${busy} (${setting}) on 127.0.0.1 is already in use: start on another port with ${setting}=${busy + 1} ${command}, or find the process holding it with lsof -i :${busy} (or ss -ltnp 'sport = :${busy}').\n`;

it('npm start, npm run demo (gateway) and npm run demo (simulator) each name the setting of the busy port in one line, without a stack trace, and exit 1', async () => {
  const [start, demoGateway, demoSimulator] = await Promise.all([
    run('main.ts', { PORT: String(busy), LOG_LEVEL: 'silent' }),
    run('demo.ts', { PORT: String(busy), SIMULATOR_PORT: '0', LOG_LEVEL: 'silent' }),
    run('demo.ts', { PORT: '0', SIMULATOR_PORT: String(busy), LOG_LEVEL: 'silent' }),
  ]);
  expect(start).toEqual({ code: 1, stdout: '', stderr: expectedLine('PORT', 'npm start') });
  expect(demoGateway).toEqual({ code: 1, stdout: '', stderr: expectedLine('PORT', 'npm run demo') });
  expect(demoSimulator).toEqual({ code: 1, stdout: '', stderr: expectedLine('SIMULATOR_PORT', 'npm run demo') });
}, 120_000);

it("the demo keeps its upstream cache in .data/demo-upstream-cache, apart from the real gateway's .data/upstream-cache, and shows everything at once", async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'demo-cache-'));
  const demo = start(
    'demo.ts',
    { PORT: '0', SIMULATOR_PORT: '0', LOG_LEVEL: 'silent', SIMULATOR_RATE_LIMIT: 'off' },
    cwd,
  );
  try {
    const exited = new Promise<number | null>((resolve) => demo.once('exit', (code) => resolve(code)));
    let stdout = '';
    await new Promise<void>((resolve, reject) => {
      demo.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('Ctrl+C stops both.')) resolve();
      });
      void exited.then((code) => reject(new Error(`the demo exited with ${code}: ${stdout}`)));
    });
    // One request first: once the demo has answered one, it also handles SIGTERM.
    const endpoint = /GraphQL endpoint:\s+(\S+)\/graphql/.exec(stdout)?.[1];
    expect((await fetch(`${endpoint}/healthz`)).status).toBe(200);
    await showsEverythingAtOnce(stdout, `${endpoint}`, cwd);
    demo.kill('SIGTERM'); // a graceful stop writes the cache file
    expect(await exited).toBe(0);
    expect(existsSync(join(cwd, '.data', 'demo-upstream-cache'))).toBe(true);
    expect(existsSync(join(cwd, '.data', 'upstream-cache'))).toBe(false);
  } finally {
    if (demo.exitCode === null && demo.signalCode === null) demo.kill('SIGKILL');
    rmSync(cwd, { recursive: true, force: true });
  }
}, 120_000);
