/**
 * The latency and age histograms count observations in plain arrays (CountingHistogram)
 * instead of prom-client's `Histogram`, which hashed a label object on every observe:
 * `/metrics` must read the same, line for line, as prom-client wrote them.
 */
import { Histogram, Registry } from 'prom-client';
import type { RegistryContentType } from 'prom-client';
import { CountingHistogram } from '../../src/observability/counting-histogram';

const BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** The same observations on prom-client's histogram and on a CountingHistogram, each on a registry of its own. */
function both(observations: ReadonlyArray<readonly [string, number]>): {
  theirs: Registry<RegistryContentType>;
  ours: Registry<RegistryContentType>;
} {
  const theirs = new Registry<RegistryContentType>();
  const ours = new Registry<RegistryContentType>();
  const help = 'Latency by "outcome", seconds \\ with a backslash.';
  const histogram = new Histogram({
    name: 'x_seconds',
    help,
    labelNames: ['outcome'],
    buckets: BUCKETS,
    registers: [theirs],
  });
  const counting = new CountingHistogram('x_seconds', help, 'outcome', BUCKETS, ours);
  for (const [outcome, value] of observations) {
    histogram.observe({ outcome }, value);
    counting.observe(outcome, value);
  }
  return { theirs, ours };
}

describe('a counting histogram', () => {
  const observations = [
    ['success', 0.0004],
    ['rejected', 0.003],
    ['success', 0.005],
    ['success', 7],
    ['partial', 0.5],
    ['success', 2.4999],
    ['with "quotes"\nand a line', 1],
    ['rejected', 0.1234],
  ] as const;

  it('reads as prom-client writes its histogram, in the Prometheus and the OpenMetrics text', async () => {
    const { theirs, ours } = both(observations);
    expect(await ours.metrics()).toBe(await theirs.metrics());
    theirs.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    ours.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });

  it('gives the same values as JSON, and is reset with the registry', async () => {
    const { theirs, ours } = both(observations);
    const values = async (registry: Registry<RegistryContentType>): Promise<unknown> =>
      (await registry.getMetricsAsJSON()).map(({ name, type, values: lines }) => ({
        name,
        type,
        lines: lines.map((line) => ({ ...line, exemplar: undefined })),
      }));
    expect(await values(ours)).toEqual(await values(theirs));
    theirs.resetMetrics();
    ours.resetMetrics();
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });

  it('refuses a value that is not a finite number, as prom-client does', () => {
    const counting = new CountingHistogram('y_seconds', 'y', 'kind', BUCKETS, new Registry());
    expect(() => counting.observe('a', Number.NaN)).toThrow(TypeError);
    expect(() => counting.labels('a').observe(Number.POSITIVE_INFINITY)).toThrow(TypeError);
  });
});
