import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import type { ServerResponse } from 'node:http';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.md': 'text/markdown; charset=utf-8',
  '.graphql': 'text/plain; charset=utf-8',
};

/**
 * Serves a file below `root` for a URL path below `prefix` (e.g. `/examples/`), with
 * `index.html` for folders. Paths that leave `root` are refused. Resolves to false
 * when there is no such file, so the caller answers 404.
 */
export async function sendStaticFile(
  root: string,
  prefix: string,
  pathname: string,
  res: ServerResponse,
): Promise<boolean> {
  let relative: string;
  try {
    relative = decodeURIComponent(pathname.slice(prefix.length));
  } catch {
    return false;
  }
  const base = resolve(root);
  let file = resolve(base, normalize(relative).replace(/^([/\\])+/, ''));
  if (file !== base && !file.startsWith(base + sep)) return false;
  try {
    if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
    const body = await readFile(file);
    res.writeHead(200, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'content-length': body.length,
      'cache-control': 'no-cache',
    });
    res.end(body);
    return true;
  } catch {
    return false;
  }
}
