/**
 * CPU time of a child process, from `/proc/<pid>/stat` (Linux): user + system time, the
 * robust measure of what a request costs the server when the load generator shares the
 * cores (throughput is then capped by the generator; CPU per request is not). Elsewhere
 * the readings are null.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSecond: number | null = null;

/** The kernel's clock ticks per second (`getconf CLK_TCK`, 100 on Linux almost always). */
function clockTicks(): number {
  if (ticksPerSecond !== null) return ticksPerSecond;
  try {
    ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    ticksPerSecond = 100;
  }
  return ticksPerSecond;
}

/** User + system CPU time `pid` has used so far, ms, or null when unknown. */
export function cpuTimeMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: the fields after it follow its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    if (!Number.isFinite(utime) || !Number.isFinite(stime)) return null;
    return ((utime + stime) * 1000) / clockTicks();
  } catch {
    return null;
  }
}

/** Server CPU time per request over a window, ms: (CPU after − CPU before) / requests; null when unknown or no requests. */
export function cpuPerRequestMs(before: number | null, after: number | null, requests: number): number | null {
  if (before === null || after === null || requests <= 0) return null;
  return Math.round(((after - before) / requests) * 1000) / 1000;
}
