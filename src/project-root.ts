import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The project root: the nearest folder above this file with a package.json. The same
 * from `src/` (tests), `dist/src/` (built) and an installed package
 * (`node_modules/statev-graphql-gateway/dist/src/`), so `examples/` is found from all three.
 */
export function projectRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/** The package's version, from the project root's package.json (`--version`). */
export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as { version?: unknown };
  return typeof manifest.version === 'string' ? manifest.version : 'unknown';
}
