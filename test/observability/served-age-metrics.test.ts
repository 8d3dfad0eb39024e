/**
 * The economy's metric events as `GET /metrics` shows them (src/observability/metrics.ts):
 * every served upstream answer is one observation of `statev_served_data_age_seconds` in
 * its kind's series (the same lines, buckets, counts and sums as a prom-client histogram
 * observed once per answer with a label object, though it is counted outside prom-client),
 * every operation one observation of `statev_graphql_operation_duration_seconds` (counted
 * the same way), and every cache lookup one count of `statev_cache_events_total`, added once
 * however often the metrics are read.
 */
import { Histogram, Registry } from 'prom-client';
import { GatewayMetrics } from '../../src/observability/metrics';
import type { CacheKind } from '../../src/upstream/endpoints';

/** The lines of one metric family in a Prometheus text, without its comments. */
function family(text: string, name: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(name));
}

describe('served-age and cache-event metrics', () => {
  /** A prom-client histogram of the same name, labels and buckets, observed the plain way. */
  function referenceHistogram(): { registry: Registry; histogram: Histogram<'kind'> } {
    const registry = new Registry();
    const histogram = new Histogram({
      name: 'statev_served_data_age_seconds',
      help: 'reference',
      labelNames: ['kind'],
      buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600],
      registers: [registry],
    });
    return { registry, histogram };
  }

  it('observes every served answer once, in the series of its kind', async () => {
    const metrics = new GatewayMetrics({ defaultMetrics: false });
    const events = metrics.economyEvents();
    // A reference histogram, observed the plain way: one call with a label object per answer.
    const reference = referenceHistogram();
    const kinds: CacheKind[] = ['lists', 'details', 'options', 'stock', 'activity', 'bankAccounts'];
    let served = 0;
    // Before any observation: the family's comments only, as prom-client writes it.
    expect(family(await metrics.text(), 'statev_served_data_age_seconds')).toEqual([]);
    for (let i = 0; i < 1000; i += 1) {
      const kind = kinds[(i * 5) % kinds.length] as CacheKind;
      const ageSeconds = ((i * 7919) % 400_000) / 1000 + (i % 3 === 0 ? 0 : i * 3.7); // 0 to over 3600 s: every bucket, +Inf too
      events.served?.(kind, ageSeconds);
      reference.histogram.observe({ kind }, ageSeconds);
      served += 1;
    }
    // The bounds themselves (counted in the bucket they bound), zero and fractions of ms.
    for (const ageSeconds of [0, 1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 3600.001, 0.001, 1e6]) {
      events.served?.('lists', ageSeconds);
      reference.histogram.observe({ kind: 'lists' }, ageSeconds);
      served += 1;
    }
    metrics.servedFromResponseCache(2.5);
    reference.histogram.observe({ kind: 'response' }, 2.5);

    const text = await metrics.text();
    const lines = family(text, 'statev_served_data_age_seconds');
    expect(lines).toEqual(family(await reference.registry.metrics(), 'statev_served_data_age_seconds'));
    expect(text).toContain('# TYPE statev_served_data_age_seconds histogram');
    const counts = lines
      .filter((line) => line.startsWith('statev_served_data_age_seconds_count'))
      .map((line) => Number(line.split(' ').at(-1)));
    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(served + 1);
    // A second read adds nothing; the other metrics are in the same text.
    const again = await metrics.text();
    expect(family(again, 'statev_served_data_age_seconds')).toEqual(lines);
    expect(again).toContain('statev_graphql_operations_total');
  });

  it('writes a series from its first observation on, in the order first observed', async () => {
    const metrics = new GatewayMetrics({ defaultMetrics: false });
    const events = metrics.economyEvents();
    const reference = referenceHistogram();
    // The response series exists from the start but has not been observed: not written yet.
    events.served?.('stock', 61);
    reference.histogram.observe({ kind: 'stock' }, 61);
    expect(family(await metrics.text(), 'statev_served_data_age_seconds')).toEqual(
      family(await reference.registry.metrics(), 'statev_served_data_age_seconds'),
    );
    metrics.servedFromResponseCache(0.25);
    reference.histogram.observe({ kind: 'response' }, 0.25);
    events.served?.('lists', 7);
    reference.histogram.observe({ kind: 'lists' }, 7);
    const lines = family(await metrics.text(), 'statev_served_data_age_seconds');
    expect(lines).toEqual(family(await reference.registry.metrics(), 'statev_served_data_age_seconds'));
    expect(lines.filter((line) => line.includes('_count'))).toEqual([
      'statev_served_data_age_seconds_count{kind="stock"} 1',
      'statev_served_data_age_seconds_count{kind="response"} 1',
      'statev_served_data_age_seconds_count{kind="lists"} 1',
    ]);
  });

  it('refuses an age that is not a finite number, as prom-client does', () => {
    const metrics = new GatewayMetrics({ defaultMetrics: false });
    const events = metrics.economyEvents();
    const reference = referenceHistogram();
    expect(() => reference.histogram.observe({ kind: 'lists' }, Number.NaN)).toThrow(TypeError);
    expect(() => events.served?.('lists', Number.NaN)).toThrow(TypeError);
    expect(() => events.served?.('lists', Number.POSITIVE_INFINITY)).toThrow(TypeError);
  });

  it('observes every operation once in the latency histogram of its outcome, as prom-client would', async () => {
    const metrics = new GatewayMetrics({ defaultMetrics: false });
    const registry = new Registry();
    const reference = new Histogram({
      name: 'statev_graphql_operation_duration_seconds',
      help: 'GraphQL operation latency by outcome, seconds.',
      labelNames: ['outcome'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    });
    const outcomes = ['success', 'partial', 'error', 'rejected'] as const;
    for (let i = 0; i < 500; i += 1) {
      const outcome = outcomes[(i * 3) % outcomes.length] ?? 'success';
      // 0 to 7.5 s in steps of a third of a ms, the bounds (1, 5, 10 ms ...) among them.
      const durationMs = (i * i * 0.3) % 7500;
      metrics.operation(outcome, durationMs);
      reference.observe({ outcome }, durationMs / 1000);
    }
    for (const durationMs of [1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 0]) {
      metrics.operation('success', durationMs);
      reference.observe({ outcome: 'success' }, durationMs / 1000);
    }
    const name = 'statev_graphql_operation_duration_seconds';
    const text = await metrics.text();
    expect(family(text, name)).toEqual(family(await registry.metrics(), name));
    expect(text).toContain(`# TYPE ${name} histogram`);
    expect(family(text, `${name}_count`).map((line) => Number(line.split(' ').at(-1)))).toEqual([
      // success first (i = 0), then error (i = 1: 3 % 4), partial, rejected; 125 each, success 12 more.
      137, 125, 125, 125,
    ]);
  });

  it('counts every cache lookup once, whenever the metrics are read', async () => {
    const metrics = new GatewayMetrics({ defaultMetrics: false });
    const events = metrics.economyEvents();
    for (let i = 0; i < 5; i += 1) events.cache?.('hit');
    events.cache?.('miss');
    const first = family(await metrics.registry.metrics(), 'statev_cache_events_total');
    expect(first).toEqual([
      'statev_cache_events_total{outcome="hit"} 5',
      'statev_cache_events_total{outcome="miss"} 1',
    ]);
    events.cache?.('hit');
    events.cache?.('stale');
    expect(family(await metrics.registry.metrics(), 'statev_cache_events_total')).toEqual([
      'statev_cache_events_total{outcome="hit"} 6',
      'statev_cache_events_total{outcome="miss"} 1',
      'statev_cache_events_total{outcome="stale"} 1',
    ]);
    expect(metrics.cacheOutcomes()).toEqual({ hit: 6, miss: 1, stale: 1 });
  });
});
