/**
 * Sources, tests, scripts, the benchmark and the docs explain themselves: none cites an
 * issue number (`issue 14`, `#14`, `items 4 and 8`), which a reader of the code cannot follow.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(__dirname, '..', '..');
const SKIPPED = new Set(['node_modules', 'generated', 'artifacts', 'results', 'dist']);
const TEXT = /\.(ts|mjs|js|md|graphql)$/;
const REFERENCE = /\bissues?\s+#?\d+|(?:^|[\s(])#\d{1,5}\b|\bitems?\s+\d+(?:\s*(?:,|and)\s*\d+)*\s*(?:of|\))/i;

function files(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED.has(entry.name)) return [];
    const path = join(folder, entry.name);
    return entry.isDirectory() ? files(path) : TEXT.test(entry.name) ? [path] : [];
  });
}

describe('issue references', () => {
  it('cites no issue number in src, test, bench, scripts, docs, README.md or CONTRIBUTING.md', () => {
    const paths = [
      ...['src', 'test', 'bench', 'scripts', 'docs'].flatMap((folder) => files(join(root, folder))),
      join(root, 'README.md'),
      join(root, 'CONTRIBUTING.md'),
    ];
    expect(paths.length).toBeGreaterThan(100);
    // This file is left out: it spells the forbidden forms to test them.
    const cited = paths
      .filter((path) => path !== __filename)
      .flatMap((path) =>
        readFileSync(path, 'utf8')
          .split('\n')
          .flatMap((line, index) =>
            REFERENCE.test(line) ? [`${relative(root, path)}:${index + 1}: ${line.trim()}`] : [],
          ),
      );
    expect(cited).toEqual([]);
  });

  it('recognises the forms it forbids', () => {
    for (const line of [
      'Hostile upstreams (issue 14, items 4, 8 and 9)',
      'see #12',
      'Issue 7: a write',
      '(items 4 and 8 of the review)',
    ])
      expect(REFERENCE.test(line)).toBe(true);
    for (const line of ['color: #fff', 'limit 1..25', 'the first 25 items', 'option slot 3'])
      expect(REFERENCE.test(line)).toBe(false);
  });
});
