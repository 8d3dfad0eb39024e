/**
 * Resolvers keep to one source: a domain resolver or subscription sees one key's context;
 * the fan-out of an access token over several characters lives in
 * `src/graph/execution/per-character.ts`. This test fails when a resolver file
 * of `src/domains/` calls the several-keys helpers of `shared/owners.ts` again, or reads
 * `ctx.owners` (reading which character answered an object, `ownerOf`, as `Factory.owner`
 * does, is no fan-out). Payments included: every resolver file is covered, none is exempt.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(__dirname, '..', '..');

/** What a resolver must not say, each with why. */
const FORBIDDEN: ReadonlyArray<readonly [RegExp, string]> = [
  [
    /\b(owned|ownerContext|mergeAcrossKeys|findAcrossKeys|firstAcrossKeys|companyContext|asCompanyOwner|subscribeAsOwner|subscribeAcrossKeys)\(/,
    'a fan-out over the keys',
  ],
  [/\.owners\b/, "a look at the operation's keys"],
];

/** Every resolver and subscription file below `folder`, relative to the project. */
function resolverFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return resolverFiles(path);
    return /\.(resolver|subscription)\.ts$/.test(entry.name) ? [relative(root, path)] : [];
  });
}

const files = resolverFiles(join(root, 'src', 'domains'));

it('reads the domain resolvers', () => {
  expect(files.length).toBeGreaterThan(15);
  expect(files).toContain('src/domains/factories/factory.resolver.ts');
  expect(files).toEqual(
    expect.arrayContaining([
      'src/domains/payments/payment-request.resolver.ts',
      'src/domains/payments/payment-event.subscription.ts',
    ]),
  );
});

it('keeps the fan-out over several characters out of the domain resolvers', () => {
  const found: string[] = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const [pattern, why] of FORBIDDEN) if (pattern.test(text)) found.push(`${file}: ${why}`);
  }
  expect(found).toEqual([]);
});
