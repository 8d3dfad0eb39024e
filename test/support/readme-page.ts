import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The README company page: the first GraphQL block of docs/example.md (the page the README
 * points to), so tests measure the page the docs show.
 *
 * @throws Error when docs/example.md has no GraphQL block
 */
export function readmePage(): string {
  const text = readFileSync(join(__dirname, '..', '..', 'docs', 'example.md'), 'utf8');
  const block = /```graphql\n([\s\S]*?)```/.exec(text)?.[1];
  if (block === undefined) throw new Error('docs/example.md has no ```graphql block');
  return block;
}
