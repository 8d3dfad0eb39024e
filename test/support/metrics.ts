/**
 * Reading `GET /metrics` in tests: one metric's value out of Prometheus text.
 */

/** Sum of the samples of a metric whose labels include all of `labels`; null when there is none. */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number | null {
  let found = false;
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const sampleLabels = new Map<string, string>();
    for (const label of (match[3] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
      sampleLabels.set(label[1] ?? '', label[2] ?? '');
    if (Object.entries(labels).every(([key, value]) => sampleLabels.get(key) === value)) {
      found = true;
      sum += Number(match[4]);
    }
  }
  return found ? sum : null;
}
