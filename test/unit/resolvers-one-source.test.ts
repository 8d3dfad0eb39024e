/**
 * Resolvers keep to one source: a domain resolver or subscription sees one key's context;
 * the fan-out of an access token over several characters lives in
 * `src/graph/execution/per-character.ts`. This test fails when a resolver file
 * of `src/domains/` calls the several-keys helpers of `shared/owners.ts` again, or reads
 * `ctx.owners` (reading which character answered an object, `ownerOf`, as `Factory.owner`
 * does, is no fan-out). Payments (their own area, not yet moved) are listed by name, so the list
 * can only shrink.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(__dirname, '..', '..');

/** Still calling the owner lookups themselves: the file, to be moved to the wrapper next. */
const PENDING = new Set(['src/domains/payments/payment-request.resolver.ts', 'src/domains/payments/payment-event.subscription.ts']);

/** What a resolver must not say, each with why. */
const FORBIDDEN: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b(owned|ownerContext|mergeAcrossKeys|findAcrossKeys|firstAcrossKeys|companyContext|asCompanyOwner|subscribeAsOwner|subscribeAcrossKeys)\(/, 'a fan-out over the keys'],
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
});

it('keeps the fan-out over several characters out of the domain resolvers', () => {
  const found: string[] = [];
  for (const file of files) {
    if (PENDING.has(file)) continue;
    const text = readFileSync(join(root, file), 'utf8');
    for (const [pattern, why] of FORBIDDEN) if (pattern.test(text)) found.push(`${file}: ${why}`);
  }
  expect(found).toEqual([]);
});

it('lists as pending only files that still need it', () => {
  const done = [...PENDING].filter((file) => !FORBIDDEN.some(([pattern]) => pattern.test(readFileSync(join(root, file), 'utf8'))));
  expect(done).toEqual([]);
});
