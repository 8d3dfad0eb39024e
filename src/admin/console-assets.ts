/**
 * The console's built files (`npm run build` bundles `console/` into `dist/console/`:
 * index.html, console.js, console.css), read once and served from memory under `/console/`.
 * Nothing is loaded from another host: the page's CSP allows only the gateway's own files.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { projectRoot } from '../project-root';

/** One served file. */
export interface ConsoleAsset {
  /** Its Content-Type. */
  readonly contentType: string;
  /** Its bytes. */
  readonly body: Buffer;
  /** The same, gzipped (sent to a browser that accepts gzip). */
  readonly gzipped: Buffer;
}

/** The files the build writes, by their path under `/console/`. */
const FILES: Readonly<Record<string, { readonly file: string; readonly contentType: string }>> = {
  '/console/': { file: 'index.html', contentType: 'text/html; charset=utf-8' },
  '/console/console.js': { file: 'console.js', contentType: 'text/javascript; charset=utf-8' },
  '/console/console.css': { file: 'console.css', contentType: 'text/css; charset=utf-8' },
};

/** Where the build writes the console: `dist/console/` of the project (or the installed package). */
export function consoleDirectory(): string {
  return join(projectRoot(), 'dist', 'console');
}

/**
 * Reads the console's files from `directory`; an empty map when they were not built (the
 * routes then answer a page saying so).
 */
export function loadConsoleAssets(directory = consoleDirectory()): ReadonlyMap<string, ConsoleAsset> {
  const assets = new Map<string, ConsoleAsset>();
  if (!existsSync(join(directory, 'index.html'))) return assets;
  for (const [path, { file, contentType }] of Object.entries(FILES)) {
    const location = join(directory, file);
    if (!existsSync(location)) continue;
    const body = readFileSync(location);
    assets.set(path, { contentType, body, gzipped: gzipSync(body, { level: 9 }) });
  }
  return assets;
}
