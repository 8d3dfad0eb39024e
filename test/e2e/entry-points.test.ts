/**
 * The entry points as a newcomer meets them (`src/main.ts` and `src/demo.ts` as processes,
 * the way `npm start` and `npm run demo` run them, through ts-node):
 * - with a port already taken (held by this test), each prints one line naming the setting
 *   (`PORT`, `SIMULATOR_PORT`), the command with another port and how to find the holder, no
 *   stack trace, and exits with code 1;
 * - the demo keeps its upstream cache in `.data/demo-upstream-cache`, never in the real
 *   gateway's `.data/upstream-cache` (run in a temporary working directory).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/** Starts an entry point with exactly this environment (plus PATH, HOME and the project's tsconfig for ts-node). */
function start(entry: 'main.ts' | 'demo.ts', env: Record<string, string>, cwd = root): ChildProcess & { stdout: NodeJS.ReadableStream; stderr: NodeJS.ReadableStream } {
  return spawn(process.execPath, ['-r', require.resolve('ts-node/register/transpile-only'), join(root, 'src', entry)], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TS_NODE_PROJECT: join(root, 'tsconfig.json'), HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Runs an entry point until it exits. CACHE_FILE=off: nothing is written into the project. */
function run(entry: 'main.ts' | 'demo.ts', env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return outputUntilExit(start(entry, { CACHE_FILE: 'off', ...env }));
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
}, 60_000);

it('the demo keeps its upstream cache in .data/demo-upstream-cache, apart from the real gateway\'s .data/upstream-cache', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'demo-cache-'));
  const demo = start('demo.ts', { PORT: '0', SIMULATOR_PORT: '0', LOG_LEVEL: 'silent' }, cwd);
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
    demo.kill('SIGTERM'); // a graceful stop writes the cache file
    expect(await exited).toBe(0);
    expect(existsSync(join(cwd, '.data', 'demo-upstream-cache'))).toBe(true);
    expect(existsSync(join(cwd, '.data', 'upstream-cache'))).toBe(false);
  } finally {
    if (demo.exitCode === null && demo.signalCode === null) demo.kill('SIGKILL');
    rmSync(cwd, { recursive: true, force: true });
  }
}, 60_000);
