/**
 * The docs keep up with the code: every setting of `src/config/index.ts` (its `SETTINGS` table,
 * which also makes `statev-gateway --help`) has a row in docs/configuration.md with the
 * same default, and the page has no row for a setting that does not exist.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SETTINGS, loadConfig } from '../../src/config';

const root = join(__dirname, '..', '..');

/** Every environment variable `loadConfig` asks for, the settings table's and the removed ones it refuses. */
function settingsRead(): string[] {
  const asked = new Set<string>();
  const env = new Proxy<Record<string, string | undefined>>(
    {},
    {
      get(_target, name) {
        if (typeof name === 'string') asked.add(name);
        return undefined;
      },
    },
  );
  loadConfig(env);
  return [...asked].sort();
}

/** The rows of the page's settings tables: variable → default column. */
function documentedRows(): Map<string, string> {
  const doc = readFileSync(join(root, 'docs', 'configuration.md'), 'utf8');
  const rows = new Map<string, string>();
  for (const match of doc.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \| ([^|]*) \|/gm))
    rows.set(match[1] ?? '', (match[2] ?? '').trim());
  return rows;
}

describe('docs/configuration.md', () => {
  const rows = documentedRows();

  it('has a table row for every setting src/config/index.ts reads', () => {
    const settings = settingsRead();
    expect(settings).toEqual(
      expect.arrayContaining(['PORT', 'STATEV_BASE_URL', 'CACHE_TTL_STOCK_SECONDS', 'REDIS_URL']),
    );
    expect(settings).toEqual(expect.arrayContaining(SETTINGS.map((definition) => definition.env)));
    expect(settings.filter((name) => !rows.has(name))).toEqual([]);
  });

  it('has no row for a setting src/config/index.ts does not read', () => {
    const read = new Set(settingsRead());
    expect([...rows.keys()].filter((name) => !read.has(name))).toEqual([]);
  });

  it('gives each setting the default the settings table has (as --help shows it)', () => {
    const defaults = loadConfig({});
    const disagree = SETTINGS.filter((definition) => {
      if (definition.redaction === 'secret') return false; // a secret's built-in value is not shown in --help
      const value = definition.value(defaults);
      const shown =
        value === null || (Array.isArray(value) && value.length === 0)
          ? 'none'
          : typeof value === 'object' && !Array.isArray(value)
            ? `\`${Object.values(value as object).join('/')}\``
            : `\`${String(value)}\``;
      return !(rows.get(definition.env) ?? '').startsWith(shown);
    }).map((definition) => `${definition.env}: ${rows.get(definition.env) ?? '(no row)'}`);
    expect(disagree).toEqual([]);
  });
});
