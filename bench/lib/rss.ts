/**
 * Peak resident memory of a child process during a scenario, from `/proc/<pid>/status`
 * (Linux): the peak marker (VmHWM) is reset at the start through `/proc/<pid>/clear_refs`
 * where the kernel allows it, and VmRSS is sampled every 50 ms; the peak is the larger
 * of the two. Elsewhere the result is null.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { heapUsedMb } from './http';

function statusField(pid: number, field: 'VmRSS' | 'VmHWM'): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
    return match?.[1] === undefined ? null : Number(match[1]) * 1024;
  } catch {
    return null;
  }
}

/** Resident memory of `pid` now, MB, or null when unknown. */
export function currentRssMb(pid: number): number | null {
  const bytes = statusField(pid, 'VmRSS');
  return bytes === null ? null : bytes / 1024 / 1024;
}

/** Samples one process's RSS until {@link RssSampler.stop}. */
export class RssSampler {
  private maxBytes = 0;
  private readonly hwmReset: boolean;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly pid: number) {
    let reset = false;
    try {
      writeFileSync(`/proc/${pid}/clear_refs`, '5'); // 5: reset the peak RSS marker
      reset = true;
    } catch {
      reset = false;
    }
    this.hwmReset = reset;
    this.sample();
    this.timer = setInterval(() => this.sample(), 50);
  }

  private sample(): void {
    const rss = statusField(this.pid, 'VmRSS');
    if (rss !== null && rss > this.maxBytes) this.maxBytes = rss;
  }

  /** Stops sampling; the peak RSS in MB (null when /proc is not available). */
  stop(): number | null {
    clearInterval(this.timer);
    this.sample();
    const hwm = this.hwmReset ? statusField(this.pid, 'VmHWM') : null;
    const peak = Math.max(this.maxBytes, hwm ?? 0);
    return peak > 0 ? Math.round((peak / 1024 / 1024) * 10) / 10 : null;
  }
}

/**
 * Node flags for a bench-only gateway whose heap the bench can collect on demand:
 * `--expose-gc`, and a preloaded module that runs a full collection (`gc()`) on SIGUSR2
 * (a signal neither Node nor the gateway uses). Never part of `npm start`.
 */
export const GC_ON_SIGNAL_FLAGS: readonly string[] = [
  '--expose-gc',
  `--import=data:text/javascript,process.on('SIGUSR2',()=>globalThis.gc())`,
];

/**
 * Heap used (MB) of a gateway started with {@link GC_ON_SIGNAL_FLAGS}, after a full
 * collection: sends SIGUSR2, gives the event loop `settleMs` to run it, then reads
 * `nodejs_heap_size_used_bytes` from /metrics. What is left is what the process still
 * references, so a growing value across rounds is retention; RSS also keeps pages V8
 * and the allocator have not returned. Null when the signal or /metrics fails.
 */
export async function heapAfterGcMb(service: { pid: number; origin: string }, settleMs = 300): Promise<number | null> {
  try {
    process.kill(service.pid, 'SIGUSR2');
  } catch {
    return null;
  }
  await new Promise((resolve) => setTimeout(resolve, settleMs));
  return heapUsedMb(service.origin).catch(() => null);
}
