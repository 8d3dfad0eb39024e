/**
 * One job per file, held by a number: every file of src/economy/ has at most 250 lines,
 * every other TypeScript file of src/ at most 400. Data tables are excepted by name; files
 * still waiting for their split are listed by name too, each with its size today, so the
 * list can only shrink (a listed file that grows, or that fits, fails as well).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(__dirname, '..', '..');
const ECONOMY_LIMIT = 250;
const LIMIT = 400;

/** Data, not code: tables that are long because the data is. */
const DATA_TABLES = new Set(['src/simulator/fixtures.ts', 'src/config/settings-table.ts']);

/**
 * Over the limit today, split next (they belong to work in progress elsewhere): the file and
 * the most lines it may have until then.
 */
const PENDING = new Map<string, number>([
  // None left: add a file here (with its size) only with the split that will bring it under.
]);

/** Every .ts file below `folder`, as a path relative to the project. */
function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [relative(root, path)] : [];
  });
}

/** Lines as `wc -l` counts them. */
function lines(path: string): number {
  return readFileSync(join(root, path), 'utf8').split('\n').length - 1;
}

const files = sources(join(root, 'src')).map((path) => ({
  path,
  lines: lines(path),
  limit: path.startsWith('src/economy/') ? ECONOMY_LIMIT : LIMIT,
}));

it('reads the sources', () => {
  expect(files.length).toBeGreaterThan(100);
  expect(files.some((file) => file.path === 'src/economy/index.ts')).toBe(true);
});

it('keeps every file of src/economy/ at 250 lines or fewer, every other file of src/ at 400 or fewer', () => {
  const over = files.filter(
    (file) => !DATA_TABLES.has(file.path) && !PENDING.has(file.path) && file.lines > file.limit,
  );
  expect(over.map((file) => `${file.path}: ${file.lines} lines (at most ${file.limit})`)).toEqual([]);
});

it('lets the files waiting for their split shrink only, and drops each from the list once it fits', () => {
  for (const [path, most] of PENDING) {
    const file = files.find((candidate) => candidate.path === path);
    expect(file).toBeDefined();
    expect({ path, lines: file?.lines, fits: (file?.lines ?? 0) <= (file?.limit ?? 0) }).toEqual({
      path,
      lines: expect.any(Number),
      fits: false,
    });
    expect(file?.lines ?? Infinity).toBeLessThanOrEqual(most);
  }
});

it('excepts only data tables that exist and are over the limit', () => {
  for (const path of DATA_TABLES) expect({ path, lines: lines(path) > LIMIT }).toEqual({ path, lines: true });
});
