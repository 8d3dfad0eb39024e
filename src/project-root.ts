import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The project root: the nearest folder above this file with a package.json. The same
 * from `src/` (tests) and `dist/src/` (built), so `examples/` is found from both.
 */
export function projectRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}
