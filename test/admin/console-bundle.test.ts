/**
 * The console's first load stays small: index.html, console.js and console.css as the build
 * writes them, gzipped, at most 250 KB together (the bench measures it over HTTP too). And the
 * overview's history keeps one sample a minute for the last hour.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { BudgetHistory, HISTORY_POINTS, SAMPLE_EVERY_MS } from '../../src/admin/budget-history';

jest.setTimeout(60_000);

const ROOT = join(__dirname, '..', '..');

describe('the browser console bundle', () => {
  it('is at most 250 KB gzipped (HTML, JS and CSS), with no source map and no outside address', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'console-build-'));
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-console.mjs'), '--outdir', outdir], {
      cwd: ROOT,
      stdio: 'pipe',
    });
    const files = ['index.html', 'console.js', 'console.css'].map((file) => readFileSync(join(outdir, file)));
    const gzipped = files.reduce((sum, body) => sum + gzipSync(body, { level: 9 }).length, 0);
    expect(gzipped).toBeLessThanOrEqual(250 * 1024);
    const html = files[0]?.toString('utf8') ?? '';
    expect(html).not.toMatch(/https?:\/\//);
    expect(files[1]?.toString('utf8')).not.toContain('sourceMappingURL');
  });
});

describe('the overview history', () => {
  const point = (at: number, usedInWindow: number) => ({ at, usedInWindow, upstream429s: 0, queued: 0 });

  it('keeps one sample a minute, the last hour, and forgets removed characters', () => {
    const history = new BudgetHistory();
    for (let minute = 0; minute < HISTORY_POINTS + 10; minute += 1) {
      history.record(
        new Map([
          ['shop', point(minute * SAMPLE_EVERY_MS, minute)],
          ['farm', point(minute * SAMPLE_EVERY_MS, 1)],
        ]),
      );
      // A second sample in the same minute replaces the first.
      history.record(
        new Map([
          ['shop', point(minute * SAMPLE_EVERY_MS + 1000, minute)],
          ['farm', point(minute * SAMPLE_EVERY_MS + 1000, 2)],
        ]),
      );
    }
    expect(history.of('shop')).toHaveLength(HISTORY_POINTS);
    expect(history.of('shop')[0]?.usedInWindow).toBe(10);
    expect(history.of('farm').every((each) => each.usedInWindow === 2)).toBe(true);
    history.record(new Map([['shop', point(HISTORY_POINTS * 2 * SAMPLE_EVERY_MS, 0)]]));
    expect(history.of('farm')).toEqual([]);
  });
});
