import { setFlagsFromString } from 'node:v8';

/**
 * Sets how far V8 lets the heap grow past what survived the last full collection
 * before it collects again: a factor of `1 + percent / 100` (`HEAP_GROWING_PERCENT`).
 *
 * Why: by default V8 picks a factor of up to 4 when collections look slow next to the
 * program (as under load on a busy 2-core machine), so a gateway holding 40 MB of live
 * data can hold 170 MB of heap, most of it garbage, before it collects. A fixed factor
 * keeps the resident size close to what is really in use, for a few more (incremental,
 * mostly concurrent) collections. Unlike `--max-old-space-size` it sets no ceiling, so a
 * full cache can never end in an out-of-memory crash. Measured in bench/README.md.
 *
 * The flag is read by V8 at every collection, so setting it after start takes effect
 * (`node --heap-growing-percent=N` does the same; `NODE_OPTIONS` does not accept it).
 *
 * @param percent - 0 leaves V8's own heuristics; otherwise 1 to 300
 */
export function applyHeapGrowth(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${Math.round(percent)}`);
}
