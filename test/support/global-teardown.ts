/**
 * Jest's `globalTeardown`: kills every child process a test started and never stopped (the
 * children folder of global-setup.ts still lists it), then fails the run naming who started
 * it. Without it such a child kept Jest from ever exiting when it ran the file in band, in
 * its own process (as it does a single file, with --runInBand, or with one worker); in a
 * worker, the child would outlive the run unnoticed.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CHILDREN_VARIABLE } from './tools';

export default function globalTeardown(): void {
  const folder = process.env[CHILDREN_VARIABLE];
  if (!folder) return;
  const left: string[] = [];
  for (const name of readdirSync(folder)) {
    const pid = Number(name);
    const who = readFileSync(join(folder, name), 'utf8');
    try {
      process.kill(pid, 'SIGKILL');
      left.push(`${who} (pid ${pid})`);
    } catch {
      // Already gone: it exited without the test's stop().
    }
  }
  rmSync(folder, { recursive: true, force: true });
  if (left.length > 0)
    throw new Error(`Test files left child processes running (killed now); stop them in afterAll:\n${left.join('\n')}`);
}
