/**
 * `npm run doctest`: runs the shell and JavaScript blocks of README.md, docs/*.md and
 * examples/* /README.md as a reader would, page by page, each page against a demo of its own
 * (the built `node dist/src/demo.js` on two free ports, with no cache file and a vault and
 * payments file in a temporary folder), in the order the page gives them, and checks what the
 * page shows (exit status 0, plus the markers' `expect` and `expect-json`). The markers are
 * described in scripts/doctest-blocks.ts and CONTRIBUTING.md. Prints one line per page and
 * exits 1 when a block fails or a marker is malformed.
 *
 *   npm run doctest                         # builds, then every page, two at a time
 *   npm run doctest -- --no-build docs/example.md README.md
 *   npm run doctest -- --verbose            # every block's output
 *
 * A reader's page is one terminal session: what a sh block exports (e.g. VAULT_MASTER_KEY)
 * the next sh block of the page sees. In sh blocks `127.0.0.1:4000` / `localhost:4000` (and
 * `ws://` forms) become the page demo's gateway, `:4010` its simulator; `statev-gateway` and
 * `statev-simulator` are the built commands (`node dist/src/main.js`, as the package installs
 * them); a line `[NAME=value ...] [npm ci &&] npm run demo` starts (or restarts, with those
 * settings) the page's demo instead of running npm. JavaScript blocks are written next to the
 * repository's node_modules (.doctest/, removed afterwards) and run with node: `ts` blocks are
 * transpiled by TypeScript first, blocks with `import` or top-level `await` run as ES modules.
 * Every process a page starts is in a process group of its own, stopped by its id.
 */
import { randomBytes } from 'node:crypto';
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import ts from 'typescript';
import { DEMO_LINE, readDocPages, unsafeToRun } from './doctest-blocks';
import { listenerPort } from './listener-port';
import type { DocBlock, DocPage } from './doctest-blocks';

const root = resolve(__dirname, '..');
const jsDir = join(root, '.doctest');

interface Outcome {
  page: string;
  run: number;
  skipped: number;
  drift: number;
  failures: string[];
  log: string[];
  seconds: number;
}

/** A started process in a group of its own, with its output collected. */
class Proc {
  readonly child: ChildProcess;
  output = '';
  stdout = '';
  exitCode: number | null = null;
  signal: NodeJS.Signals | null = null;
  readonly exited: Promise<void>;
  stopping = false;

  constructor(command: string, args: string[], env: NodeJS.ProcessEnv) {
    this.child = spawn(command, args, { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (chunk: Buffer) => {
      this.output += chunk.toString();
      this.stdout += chunk.toString();
    });
    this.child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.exited = new Promise((done) =>
      this.child.on('exit', (code, signal) => {
        this.exitCode = code;
        this.signal = signal;
        done();
      }),
    );
  }

  get running(): boolean {
    return this.exitCode === null && this.signal === null;
  }

  /** SIGTERM to the group, SIGKILL after `graceMs`; resolves when the leader has exited. */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    const pid = this.child.pid;
    if (pid === undefined) return;
    const signal = (name: NodeJS.Signals): void => {
      try {
        process.kill(-pid, name);
      } catch {
        // the group is gone
      }
    };
    signal('SIGTERM');
    const timer = setTimeout(() => signal('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
    signal('SIGKILL'); // anything the leader left behind in its group
  }

  /** Resolves true when the output holds `text`, false when the process exits or the time runs out. */
  async waitFor(text: string, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      if (this.output.includes(text)) return true;
      if (!this.running) return this.output.includes(text);
      await new Promise((done) => setTimeout(done, 100));
    }
    return false;
  }
}

function tail(text: string, lines = 25): string {
  return text
    .trimEnd()
    .split('\n')
    .slice(-lines)
    .map((line) => `      | ${line}`)
    .join('\n');
}

function jsonPath(value: unknown, path: string): unknown {
  let current: unknown = value;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

function parseJson(stdout: string): unknown {
  try {
    return JSON.parse(stdout);
  } catch {
    // the last line that parses (a block may print more than its answer)
    for (const line of stdout.trim().split('\n').reverse()) {
      try {
        return JSON.parse(line);
      } catch {
        // next
      }
    }
    return undefined;
  }
}

/**
 * How `actual` differs in shape from the answer a page shows: every key of a shown object is
 * there with a value of the same type (null shown: anything), a shown array's elements match
 * the first elements of the actual one (a page may trim a list, not lengthen it). Values are
 * not compared: the demo's data moves (live mode), the page's keys and types must not.
 */
function shapeProblems(shown: unknown, actual: unknown, path = '$'): string[] {
  if (shown === null) return [];
  const kind = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);
  if (kind(shown) !== kind(actual)) return [`${path}: the page shows ${kind(shown)}, the answer has ${kind(actual)}`];
  if (Array.isArray(shown)) {
    const list = actual as unknown[];
    if (list.length < shown.length)
      return [`${path}: the page shows ${shown.length} elements, the answer has ${list.length}`];
    return shown.flatMap((element, i) => shapeProblems(element, list[i], `${path}[${i}]`));
  }
  if (typeof shown === 'object') {
    const object = actual as Record<string, unknown>;
    return Object.entries(shown as Record<string, unknown>).flatMap(([key, value]) =>
      key in object ? shapeProblems(value, object[key], `${path}.${key}`) : [`${path}: the answer has no ${key}`],
    );
  }
  return [];
}

/** The problems of a block's outcome against its markers (empty when it is as the page shows). */
function check(block: DocBlock, proc: Proc): string[] {
  const problems: string[] = [];
  for (const text of block.markers.expect) if (!proc.output.includes(text)) problems.push(`the output lacks "${text}"`);
  if (block.markers.shape !== undefined) {
    const value = parseJson(proc.stdout);
    if (value === undefined) problems.push('stdout is not JSON');
    else problems.push(...shapeProblems(JSON.parse(block.markers.shape), value).slice(0, 10));
  }
  if (block.markers.expectJson.length) {
    const value = parseJson(proc.stdout);
    if (value === undefined) problems.push('stdout is not JSON');
    else
      for (const path of block.markers.expectJson) {
        const absent = path.startsWith('!');
        const found = jsonPath(value, absent ? path.slice(1) : path);
        const present = found !== undefined && found !== null && !(Array.isArray(found) && found.length === 0);
        if (absent && found !== undefined)
          problems.push(`stdout has ${path.slice(1)}: ${JSON.stringify(found).slice(0, 300)}`);
        if (!absent && !present) problems.push(`stdout has no ${path}`);
      }
  }
  return problems;
}

/** The page's run: its demo, environment file, temporary folder and the processes it started. */
class PageRun {
  readonly tmp = mkdtempSync(join(tmpdir(), 'doctest-'));
  readonly envFile = join(this.tmp, 'exported.sh');
  /** The page's demo vault and its master key (what `npm run demo` keeps in `.data/demo-vault.json` and `.data/demo-vault-key`): blocks naming those paths get these. */
  readonly vaultFile = join(this.tmp, 'demo-vault.json');
  readonly vaultKeyFile = join(this.tmp, 'demo-vault-key');
  readonly masterKey = randomBytes(32).toString('base64');
  readonly procs: Proc[] = [];
  demo: Proc | undefined;
  demoKey = '';
  private keyWritten = false;
  port = 0;
  simPort = 0;

  constructor(
    readonly page: DocPage,
    readonly bin: string,
    readonly verbose: boolean,
  ) {}

  baseEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    return {
      ...process.env,
      PATH: `${this.bin}:${process.env.PATH ?? ''}`,
      CACHE_FILE: 'off',
      VAULT_FILE: this.vaultFile,
      VAULT_MASTER_KEY: this.masterKey,
      PAYMENTS_FILE: join(this.tmp, 'payments.json'),
      ...extra,
    };
  }

  /**
   * Starts the page's demo on two free ports (again on two others, up to three times, when one
   * was taken between the pick and the demo's listen) and waits for its `/healthz`: undefined when
   * it answers, else what went wrong.
   */
  async startDemo(env: Record<string, string>): Promise<string | undefined> {
    const key = JSON.stringify(env);
    if (this.demo?.running && key === this.demoKey) return undefined;
    let problem: string | undefined;
    for (let attempt = 0; attempt < 3; attempt++) {
      problem = await this.startDemoOnce(env, key);
      if (!problem?.includes('already in use')) return problem;
    }
    return problem;
  }

  private async startDemoOnce(env: Record<string, string>, key: string): Promise<string | undefined> {
    if (this.demo) await this.demo.stop();
    this.port = await listenerPort();
    this.simPort = await listenerPort();
    this.demoKey = key;
    this.demo = new Proc(
      'node',
      ['dist/src/demo.js'],
      this.baseEnv({ ...this.page.demoEnv, ...env, PORT: String(this.port), SIMULATOR_PORT: String(this.simPort) }),
    );
    this.procs.push(this.demo);
    for (let i = 0; i < 300; i++) {
      if (!this.demo.running) return `the demo exited:\n${tail(this.demo.output)}`;
      try {
        const answer = await fetch(`http://127.0.0.1:${this.port}/healthz`);
        if (answer.ok) return undefined;
      } catch {
        // not listening yet
      }
      await new Promise((done) => setTimeout(done, 100));
    }
    return `the demo did not answer /healthz within 30 s:\n${tail(this.demo.output)}`;
  }

  /** `text` with the demo's ports and its vault's paths made this page's; `$DOCTEST_TMP` (in an `env` marker, say) is the page's own temporary folder. */
  ports(text: string): string {
    if (!this.keyWritten) {
      writeFileSync(this.vaultKeyFile, `${this.masterKey}\n`, { mode: 0o600 });
      this.keyWritten = true;
    }
    return text
      .split('$DOCTEST_TMP')
      .join(this.tmp)
      .split('.data/demo-vault.json')
      .join(this.vaultFile)
      .split('.data/demo-vault-key')
      .join(this.vaultKeyFile)
      .replace(/\b(127\.0\.0\.1|localhost):4000\b/g, `127.0.0.1:${this.port}`)
      .replace(/\b(127\.0\.0\.1|localhost):4010\b/g, `127.0.0.1:${this.simPort}`);
  }

  /** Writes the block's program; returns the command that runs it, or a problem. */
  async prepare(block: DocBlock, index: number): Promise<{ command: string; args: string[] } | string> {
    const unsafe = unsafeToRun(block);
    if (unsafe) return unsafe;
    let code = block.code;
    for (const { from, to } of block.markers.replace) {
      if (!code.includes(from)) return `doctest: replace: the block has no "${from}"`;
      code = code.split(from).join(to);
    }
    if (['sh', 'bash', 'shell'].includes(block.lang)) {
      const lines: string[] = [];
      for (const line of code.split('\n')) {
        const demo = DEMO_LINE.exec(line);
        if (!demo) {
          lines.push(line);
          continue;
        }
        const env: Record<string, string> = {};
        for (const word of demo[1]!.trim().split(/\s+/).filter(Boolean)) {
          const at = word.indexOf('=');
          env[word.slice(0, at)] = word.slice(at + 1);
        }
        const problem = await this.startDemo(env);
        if (problem) return problem;
        lines.push(`# (the page's demo: gateway on 127.0.0.1:${this.port}, simulator on 127.0.0.1:${this.simPort})`);
      }
      if (!this.demo) {
        const problem = await this.startDemo({});
        if (problem) return problem;
      }
      // `npm run cli -- <command>` (a checkout's way to run the statev-gateway bin): the built
      // bin itself, so that two pages at a time never build dist/ under each other's demos.
      const commands = lines.join('\n').replace(/\bnpm run (?:-s |--silent )?cli --(?=\s)/g, 'statev-gateway');
      const script = join(this.tmp, `block-${index}.sh`);
      writeFileSync(
        script,
        [
          `[ -f ${JSON.stringify(this.envFile)} ] && . ${JSON.stringify(this.envFile)}`,
          `trap 'export -p > ${JSON.stringify(this.envFile)}' EXIT`,
          // The block's own env markers win over what the page's earlier blocks exported.
          ...Object.entries(block.markers.env).map(
            ([name, value]) => `export ${name}='${this.ports(value).replace(/'/g, `'\\''`)}'`,
          ),
          `cd ${JSON.stringify(root)}`,
          'set -eo pipefail',
          this.ports(commands),
          '',
        ].join('\n'),
      );
      return { command: 'bash', args: [script] };
    }
    if (!this.demo) {
      const problem = await this.startDemo({});
      if (problem) return problem;
    }
    let source = this.ports(code);
    if (block.lang === 'ts' || block.lang === 'typescript') {
      source = ts.transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      }).outputText;
    }
    // CommonJS when the block require()s, else an ES module (import, top-level await).
    const esm = block.lang === 'mjs' || !/\brequire\(/.test(source);
    mkdirSync(jsDir, { recursive: true });
    const file = join(
      jsDir,
      `${block.page.replace(/[^\w]+/g, '-')}-${block.line}.${block.lang === 'cjs' ? 'cjs' : esm ? 'mjs' : 'cjs'}`,
    );
    writeFileSync(file, source);
    return { command: 'node', args: [file] };
  }

  async run(): Promise<Outcome> {
    const started = Date.now();
    const outcome: Outcome = {
      page: this.page.page,
      run: 0,
      skipped: 0,
      drift: 0,
      failures: [...this.page.errors],
      log: [],
      seconds: 0,
    };
    const background: { block: DocBlock; proc: Proc }[] = [];
    try {
      for (const [index, block] of this.page.blocks.entries()) {
        const where = `${block.page}:${block.line}`;
        if (block.markers.skip !== undefined) {
          outcome.skipped++;
          if (/^known drift\b/i.test(block.markers.skip)) outcome.drift++;
          continue;
        }
        outcome.run++;
        const prepared = await this.prepare(block, index);
        if (typeof prepared === 'string') {
          outcome.failures.push(`${where}: ${prepared}`);
          break;
        }
        const proc = new Proc(
          prepared.command,
          prepared.args,
          this.baseEnv(
            Object.fromEntries(Object.entries(block.markers.env).map(([name, value]) => [name, this.ports(value)])),
          ),
        );
        this.procs.push(proc);
        if (block.markers.background) {
          background.push({ block, proc });
          const until = block.markers.background.until;
          if (until && !(await proc.waitFor(until, block.markers.timeoutSeconds * 1000))) {
            outcome.failures.push(
              `${where}: the background block did not print "${until}" within ${block.markers.timeoutSeconds} s${proc.running ? '' : ` (it exited with ${proc.exitCode ?? proc.signal})`}:\n${tail(proc.output)}`,
            );
            break;
          }
          continue;
        }
        const timer = setTimeout(() => void proc.stop(2000), block.markers.timeoutSeconds * 1000);
        await proc.exited;
        clearTimeout(timer);
        if (this.verbose) outcome.log.push(`  ${where} (${prepared.command}):\n${tail(proc.output, 200)}`);
        const problems = proc.stopping
          ? [`did not finish within ${block.markers.timeoutSeconds} s`]
          : proc.exitCode !== 0
            ? [`exited with ${proc.exitCode ?? proc.signal}`]
            : check(block, proc);
        if (problems.length) {
          outcome.failures.push(`${where}: ${problems.join('; ')}:\n${tail(proc.output)}`);
          break; // later blocks of the page build on this one
        }
      }
      for (const { block, proc } of background) {
        const where = `${block.page}:${block.line}`;
        if (this.verbose) outcome.log.push(`  ${where} (background):\n${tail(proc.output, 200)}`);
        // A server, subscription or live query: it runs until the reader stops it.
        if (!proc.running)
          outcome.failures.push(
            `${where}: the background block exited (with ${proc.exitCode ?? proc.signal}) before the page ended:\n${tail(proc.output)}`,
          );
        else {
          const problems = check(block, proc);
          if (problems.length) outcome.failures.push(`${where}: ${problems.join('; ')}:\n${tail(proc.output)}`);
        }
      }
    } finally {
      // The blocks' processes first, then the demo they talk to.
      for (const proc of this.procs.filter((p) => p !== this.demo).reverse()) await proc.stop(3000);
      if (this.demo) await this.demo.stop();
      rmSync(this.tmp, { recursive: true, force: true });
    }
    outcome.seconds = (Date.now() - started) / 1000;
    return outcome;
  }
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      'no-build': { type: 'boolean', default: false },
      jobs: { type: 'string', default: '2' },
      verbose: { type: 'boolean', default: false },
    },
  });
  const started = Date.now();
  if (!values['no-build']) {
    const build = spawnSync('npm', ['run', '-s', 'build'], { cwd: root, stdio: 'inherit' });
    if (build.status !== 0) return 1;
  }
  const pages = readDocPages(root).filter((page) => positionals.length === 0 || positionals.includes(page.page));
  // statev-gateway and statev-simulator as the package installs them: the built bins.
  const bin = mkdtempSync(join(tmpdir(), 'doctest-bin-'));
  for (const [name, file] of [
    ['statev-gateway', 'dist/src/main.js'],
    ['statev-simulator', 'dist/src/simulator/main.js'],
  ] as const) {
    writeFileSync(join(bin, name), `#!/bin/sh\nexec node ${JSON.stringify(join(root, file))} "$@"\n`);
    chmodSync(join(bin, name), 0o755);
  }
  const queue = [...pages];
  const outcomes: Outcome[] = [];
  const stopping = new Set<PageRun>();
  const worker = async (): Promise<void> => {
    for (let page = queue.shift(); page; page = queue.shift()) {
      const run = new PageRun(page, bin, values.verbose ?? false);
      stopping.add(run);
      const outcome = await run.run();
      stopping.delete(run);
      outcomes.push(outcome);
      const drift = outcome.drift ? ` (${outcome.drift} known drift)` : '';
      console.log(
        `${outcome.page}: ${outcome.run} blocks run, ${outcome.skipped} skipped${drift}${outcome.failures.length ? ', FAILED' : ''} (${outcome.seconds.toFixed(1)} s)`,
      );
      for (const line of outcome.log) console.log(line);
      for (const failure of outcome.failures) console.log(`  ${failure}`);
    }
  };
  // Stopped (CI's cleanup, Ctrl+C): no further page; the pages running stop their processes.
  let interrupted = false;
  const onSignal = (): void => {
    interrupted = true;
    queue.length = 0;
    for (const run of stopping) for (const proc of run.procs) void proc.stop(1000);
  };
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  try {
    await Promise.all(Array.from({ length: Math.max(1, Number(values.jobs)) }, worker));
  } finally {
    rmSync(bin, { recursive: true, force: true });
    rmSync(jsDir, { recursive: true, force: true });
  }
  const failed = outcomes.filter((outcome) => outcome.failures.length > 0);
  const sum = (key: 'run' | 'skipped' | 'drift'): number => outcomes.reduce((n, outcome) => n + outcome[key], 0);
  console.log(
    `doctest: ${outcomes.length} pages, ${sum('run')} blocks run, ${sum('skipped')} skipped (${sum('drift')} known drift), ${failed.length} pages failed, ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
  return failed.length || interrupted ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
