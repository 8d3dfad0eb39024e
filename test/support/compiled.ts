/**
 * `src/` as JavaScript, for the tests that start the gateway's entry points as processes (as
 * `npm start` and the installed bins run `dist/src/main.js`): every file transpiled on its own
 * with the project's compiler options, exactly as ts-node's transpile-only mode would in each
 * process, but once per change of the sources instead of in every process (through ts-node,
 * each start spent seconds of CPU transpiling the gateway again, many times per run).
 *
 * The output lives in `node_modules/.cache/statev-test-sources/<hash>/src/`, the hash taken over
 * the sources, tsconfig.json and the compiler's version, so an edit is never run stale. Inside the
 * project: the compiled files find its `node_modules` and its root (`package.json`, `examples/`)
 * as `dist/src/` does. Written to a temporary folder and renamed into place, so Jest's workers
 * building it at once never see half of it.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const CACHE = join(root, 'node_modules', '.cache', 'statev-test-sources');

let built: string | undefined;

/** Every `.ts` file under `src/` (declaration files aside: they emit nothing), relative and sorted. */
function sourceFiles(): string[] {
  return readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => file.split('\\').join('/'))
    .sort();
}

/**
 * Transpiles every `.ts` file under `src/` into `<out>/src/`, one by one, with tsconfig.json's
 * compiler options (`typescript`'s `transpileModule`, as ts-node's transpile-only mode does). Run
 * by a plain Node process: the compiler fails inside Jest's module registry, and loads faster outside it.
 */
const TRANSPILE = `
const ts = require('typescript');
const { mkdirSync, readFileSync, writeFileSync } = require('node:fs');
const { dirname, join } = require('node:path');
const [root, out, ...files] = process.argv.slice(1);
const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
const compilerOptions = { ...options, sourceMap: false, declaration: false, noEmit: false };
for (const file of files) {
  const fileName = join(root, 'src', file);
  const { outputText } = ts.transpileModule(readFileSync(fileName, 'utf8'), { compilerOptions, fileName });
  const target = join(out, 'src', file.replace(/\\.ts$/, '.js'));
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, outputText);
}
`;

/** Runs {@link TRANSPILE} on `files` into `out`. */
function transpile(files: readonly string[], out: string): void {
  const result = spawnSync(process.execPath, ['-e', TRANSPILE, root, out, ...files], { cwd: root, encoding: 'utf8' });
  if (result.status !== 0)
    throw new Error(`transpiling src/ failed: ${result.stderr.slice(-1500) || String(result.error)}`);
}

/**
 * The compiled `src/` folder, built first if the sources changed since the last build.
 *
 * @returns the absolute path of the folder holding the compiled `src/`
 */
function compiledRoot(): string {
  if (built !== undefined) return built;
  const files = sourceFiles();
  const hash = createHash('sha256');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  hash.update(String((require('typescript/package.json') as { version: string }).version));
  hash.update(readFileSync(join(root, 'tsconfig.json')));
  for (const file of files) hash.update(`\0${file}\0`).update(readFileSync(join(root, 'src', file)));
  const folder = join(CACHE, hash.digest('hex').slice(0, 16));
  if (!existsSync(folder)) {
    mkdirSync(CACHE, { recursive: true });
    const staging = join(CACHE, `.build-${process.pid}-${Date.now()}`);
    try {
      transpile(files, staging);
      // Builds of older sources are of no further use (those of the last hour may still be running).
      for (const old of readdirSync(CACHE)) {
        const path = join(CACHE, old);
        if (Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path, { recursive: true, force: true });
      }
      renameSync(staging, folder);
    } catch (error) {
      // Another worker renamed the same build into place first: use that one.
      if (!existsSync(folder)) throw error;
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  }
  built = folder;
  return folder;
}

/**
 * The compiled file of an entry point, to run with `node` (`process.execPath`), as the bins run `dist/src/`.
 *
 * @param entry - a file under `src/`, e.g. `main.ts` or `simulator/main.ts`
 * @returns the absolute path of its `.js` file
 */
export function compiledEntry(entry: string): string {
  return join(compiledRoot(), 'src', entry.replace(/\.ts$/, '.js'));
}
