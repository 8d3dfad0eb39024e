/**
 * The docs keep up with the code: every setting `src/config.ts` reads from the
 * environment has a row in docs/configuration.md.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/config';

const root = join(__dirname, '..', '..');

/** Every environment variable `src/config.ts` reads: those `loadConfig` asks for, plus those named in its source. */
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
  // Reads on a path the defaults do not take (e.g. only when another setting is set).
  const source = readFileSync(join(root, 'src', 'config.ts'), 'utf8');
  for (const pattern of [/\(env, '([A-Z][A-Z0-9_]*)'/g, /\benv\.([A-Z][A-Z0-9_]*)/g, /\benv\[['"]([A-Z][A-Z0-9_]*)['"]\]/g]) {
    for (const match of source.matchAll(pattern)) if (match[1]) asked.add(match[1]);
  }
  return [...asked].sort();
}

describe('docs/configuration.md', () => {
  it('has a table row for every setting src/config.ts reads', () => {
    const doc = readFileSync(join(root, 'docs', 'configuration.md'), 'utf8');
    const settings = settingsRead();
    expect(settings).toEqual(expect.arrayContaining(['PORT', 'STATEV_BASE_URL', 'CACHE_TTL_STOCK_SECONDS', 'REDIS_URL']));
    const undocumented = settings.filter((name) => !doc.includes(`| \`${name}\` |`));
    expect(undocumented).toEqual([]);
  });
});
