// Bundles the browser console (console/main.tsx, React and uPlot) with esbuild into
// dist/console/ (index.html, console.js, console.css): minified, no source map, nothing
// loaded from another host. `npm run build` runs it after tsc; `--outdir DIR` writes
// elsewhere. Files are written to a temporary folder first and renamed into place, so a
// gateway (or a test) reading them never sees half a file.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const flag = process.argv.indexOf('--outdir');
const outdir = resolve(flag >= 0 ? process.argv[flag + 1] : join(root, 'dist', 'console'));
mkdirSync(outdir, { recursive: true });
const staging = mkdtempSync(join(outdir, '.build-'));
try {
  await build({
    entryPoints: { console: join(root, 'console', 'main.tsx') },
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['chrome110', 'firefox110', 'safari16'],
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    outdir: staging,
    logLevel: 'warning',
    legalComments: 'none',
  });
  copyFileSync(join(root, 'console', 'index.html'), join(staging, 'index.html'));
  for (const file of ['console.js', 'console.css', 'index.html']) renameSync(join(staging, file), join(outdir, file));
} finally {
  rmSync(staging, { recursive: true, force: true });
}
