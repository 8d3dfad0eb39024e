/**
 * One memo of key hashes: a StateV key is hashed (`keyId`, the HMAC with KEY_HASH_SECRET) in
 * src/pipeline/key-in-use.ts and nowhere else, for a request's key (the request steps) as for
 * the keys no request carries (the payment desk's vault characters, webhooks, alert rules,
 * the console's key checks: `hashedKey`). A source scan: a second place that hashes a key,
 * i.e. a second memo, fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const SRC = join(__dirname, '../../src');

/** Every TypeScript file under `folder`. */
function filesOf(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? filesOf(join(folder, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(folder, entry.name)]
        : [],
  );
}

/** The files of src/ (relative, with `/`) whose code matches `pattern`, comments left out. */
function filesMatching(pattern: RegExp): string[] {
  return filesOf(SRC)
    .filter((file) => {
      const code = readFileSync(file, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '');
      return pattern.test(code);
    })
    .map((file) => relative(SRC, file).split('\\').join('/'))
    .sort();
}

describe('one memo of key hashes', () => {
  it('only key-in-use.ts calls keyId (and the cache file, for a fixed tag that is no key)', () => {
    expect(filesMatching(/(?<!function )\bkeyId\(/)).toEqual([
      // `keyId` of a constant text: the tag that tells whether a cache file was written under this secret.
      'economy/cache/cache-file.ts',
      'pipeline/key-in-use.ts',
    ]);
  });

  it('an HMAC is made only by keyId itself and by the vault (master key ids, tokens, records: no StateV key)', () => {
    expect(filesMatching(/\bcreateHmac\(/)).toEqual([
      'economy/key-id.ts',
      'vault/envelope.ts',
      'vault/record-mac.ts',
      'vault/token-format.ts',
    ]);
  });

  it('no other hash of a key: only the upstream client’s fallback for a caller outside the economy', () => {
    expect(filesMatching(/\bcreateHash\([^)]*\)\s*\.update\([^)]*apiKey/)).toEqual(['upstream/client.ts']);
  });
});
