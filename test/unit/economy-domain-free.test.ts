/**
 * The economy knows no domain's data: the rules about particular endpoints (a company's
 * option slots: which reads writes change, what a slot write invalidates) live with their
 * domain (`src/domains/factories/factory-option.endpoint-rules.ts`) and reach the economy
 * as `EndpointRules`. This test fails when such knowledge comes back into `src/economy/`:
 * an endpoint picked by name, or a word of the option slots. (The Redis invalidation
 * message still calls a write's scope `factoryId`, its field name on the wire.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(__dirname, '..', '..');

/** What the economy must not say, each with why. */
const FORBIDDEN: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bENDPOINTS\b/, 'an endpoint picked by name (a rule of its domain: EndpointRules)'],
  [/factoryOption/i, 'the option-slot endpoints'],
  [/OPTION_SLOTS?/, 'the option-slot settings'],
  [/\boptions?[ -]slots?\b/i, 'option slots'],
  [/optionKeys|optionsWritten|cachedOptions|writtenFactoryId/, "the option slots' former rules"],
];

/** Every .ts file below `folder`, relative to the project. */
function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [relative(root, path)] : [];
  });
}

const files = sources(join(root, 'src', 'economy'));

it('reads the economy', () => {
  expect(files.length).toBeGreaterThan(20);
  expect(files).toContain('src/economy/read-path.ts');
});

it('keeps src/economy/ free of the option slots and of endpoints picked by name', () => {
  const found: string[] = [];
  for (const file of files) {
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .forEach((line, index) => {
        for (const [pattern, what] of FORBIDDEN)
          if (pattern.test(line)) found.push(`${file}:${index + 1}: ${what}: ${line.trim()}`);
      });
  }
  expect(found).toEqual([]);
});

it('finds what it looks for (the check can fail)', () => {
  const sample = [
    'if (endpoint === ENDPOINTS.factoryOption) {',
    '// an unset option slot',
    'optionKeys(keyId, factoryId)',
  ];
  expect(sample.map((line) => FORBIDDEN.some(([pattern]) => pattern.test(line)))).toEqual([true, true, true]);
  expect(FORBIDDEN.some(([pattern]) => pattern.test('const scope = this.rules.writeScope(endpoint, body);'))).toBe(
    false,
  );
});
