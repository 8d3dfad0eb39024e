/**
 * CONTRIBUTING.md's project layout keeps up with the tree: every path its layout block lists
 * and every path it names in backticks exists, and every folder of `src/` (at any depth) and of `test/` is named there (as an entry of the
 * layout, above one, or in its parent's description as `name/`).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';

const root = join(__dirname, '..', '..');
const text = readFileSync(join(root, 'CONTRIBUTING.md'), 'utf8');

/** Where a layout line's description starts: names stand left of it, descriptions from it on. */
const DESCRIPTION_COLUMN = 24;

/** One entry of the layout block: its path and the text that describes it. */
interface LayoutEntry {
  readonly path: string;
  description: string;
}

/** The entries of the fenced block under `## Project layout`, with their paths built from the indentation. */
function layoutEntries(): LayoutEntry[] {
  const section = text.split(/^## Project layout$/m)[1] ?? '';
  const block = /```\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const entries: LayoutEntry[] = [];
  const parents: { indent: number; path: string }[] = [];
  let last: LayoutEntry | undefined;
  for (const line of block.split('\n')) {
    const match = /^( *)(\S+)/.exec(line);
    if (!match) continue;
    const indent = (match[1] ?? '').length;
    const name = match[2] ?? '';
    if (indent >= DESCRIPTION_COLUMN || !/^[\w.@*-][\w./*-]*$/.test(name)) {
      if (last) last.description += ` ${line.trim()}`;
      continue;
    }
    while (parents.length > 0 && (parents[parents.length - 1] as { indent: number }).indent >= indent) parents.pop();
    const parent = parents[parents.length - 1]?.path ?? '';
    // A name like `eslint.config.mjs,` lists several files on one line: the first stands for them.
    const path = posix.join(parent, name.replace(/,$/, ''));
    last = { path, description: line.slice(indent + name.length).trim() };
    entries.push(last);
    if (name.endsWith('/')) parents.push({ indent, path: `${path}/` });
  }
  return entries;
}

/** Folders the project writes and git ignores (`.gitignore`): a path under one need not exist in a checkout. */
const OUTPUTS = readFileSync(join(root, '.gitignore'), 'utf8')
  .split('\n')
  .filter((line) => line.endsWith('/'));

/** A path and every folder above it: an entry `cli/gateway-cli.ts` names the folder `cli` too. */
function ancestors(path: string): string[] {
  const parts = path.split('/');
  return parts.map((_, index) => parts.slice(0, index + 1).join('/'));
}

/** The folders directly under `folder`, relative to the root. */
function topFolders(folder: string): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `${folder}/${entry.name}`)
    .filter((path) => !OUTPUTS.some((output) => `${path}/`.startsWith(output)));
}

/** Every folder under `src/`, relative to the root (`src/economy/cache`, …). */
function sourceFolders(folder: string): string[] {
  return topFolders(folder).flatMap((path) => [path, ...sourceFolders(path)]);
}

describe('CONTRIBUTING.md', () => {
  const entries = layoutEntries();

  it('reads a layout of at least the top-level folders', () => {
    const paths = entries.map((entry) => entry.path.replace(/\/$/, ''));
    expect(paths).toEqual(expect.arrayContaining(['src', 'test', 'src/economy', 'src/domains/payments']));
  });

  it('lists only paths that exist in its layout', () => {
    const missing = entries
      .map((entry) => entry.path)
      .filter((path) => !path.includes('*') && !existsSync(join(root, path)));
    expect(missing).toEqual([]);
  });

  it('names only paths that exist in backticks', () => {
    const named = [...text.matchAll(/`((?:src|test|bench|scripts|docs|examples|\.ci)\/[\w./-]*)`/g)].map(
      (match) => match[1] ?? '',
    );
    expect(named.length).toBeGreaterThan(5);
    const checked = named.filter((path) => !OUTPUTS.some((output) => `${path}/`.startsWith(output)));
    expect(checked.filter((path) => !existsSync(join(root, path)))).toEqual([]);
  });

  it('names every folder of src/ and of test/', () => {
    const listed = new Set(entries.flatMap((entry) => ancestors(entry.path.replace(/\/$/, ''))));
    const describedBy = new Map(entries.map((entry) => [entry.path.replace(/\/$/, ''), entry.description]));
    const unnamed = [...sourceFolders('src'), ...topFolders('test')].filter((folder) => {
      if (listed.has(folder)) return false;
      const parent = posix.dirname(folder);
      const name = posix.basename(folder);
      return !new RegExp(`(^|[\\s(,])${name}/`).test(describedBy.get(parent) ?? '');
    });
    expect(unnamed).toEqual([]);
  });
});
