/**
 * The economy's metric events as `GET /metrics` shows them (src/observability/metrics.ts):
 * every served upstream answer is one observation of `statev_served_data_age_seconds` in
 * its kind's series (the same buckets, counts and sums as a histogram observed once per
 * answer with a label object), and every cache lookup one count of
 * `statev_cache_events_total`, added once however often the metrics are read.
 */
import { Histogram, Registry } from 'prom-client';
import { GatewayMetrics } from '../../src/observability/metrics';
import type { CacheKind } from '../../src/upstream/endpoints';

/** The lines of one metric family in a Prometheus text, without its comments. */
function family(text: string, name: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(name));
}

describe('served-age and cache-event metrics', () => {
  it('observes every served answer once, in the series of its kind', async () => {
    const metrics = new GatewayMetrics({ defaultMetrics: false });
    const events = metrics.economyEvents();
    // A reference histogram, observed the plain way: one call with a label object per answer.
    const registry = new Registry();
    const reference = new Histogram({
      name: 'statev_served_data_age_seconds',
      help: 'reference',
      labelNames: ['kind'],
      buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600],
      registers: [registry],
    });
    const kinds: CacheKind[] = ['lists', 'details', 'options', 'stock', 'activity', 'bankAccounts'];
    let served = 0;
    for (let i = 0; i < 1000; i += 1) {
      const kind = kinds[i % kinds.length] as CacheKind;
      const ageSeconds = ((i * 7919) % 400_000) / 100; // 0 to 3999.99 s: every bucket, +Inf too
      events.served?.(kind, ageSeconds);
      reference.observe({ kind }, ageSeconds);
      served += 1;
    }
    metrics.servedFromResponseCache(2.5);
    reference.observe({ kind: 'response' }, 2.5);

    const text = await metrics.registry.metrics();
    const lines = family(text, 'statev_served_data_age_seconds');
    expect(lines).toEqual(family(await registry.metrics(), 'statev_served_data_age_seconds'));
    const counts = lines
      .filter((line) => line.startsWith('statev_served_data_age_seconds_count'))
      .map((line) => Number(line.split(' ').at(-1)));
    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(served + 1);
    // A second read adds nothing.
    expect(family(await metrics.registry.metrics(), 'statev_served_data_age_seconds')).toEqual(lines);
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
