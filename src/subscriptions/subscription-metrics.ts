import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'prom-client';

/**
 * The subscription metrics on the gateway's registry. Labels are resource kinds,
 * transports and outcomes: never a key, an id or a path.
 */
export class SubscriptionMetrics {
  private readonly active: Gauge<'transport'>;
  private readonly pollerCount: Gauge<'role'>;
  private readonly intervalSeconds: Gauge<'resource'>;
  private readonly polls: Counter<'resource' | 'outcome'>;
  private readonly eventCount: Counter<'resource'>;
  private readonly rejected: Counter<'code'>;
  /** Refusals not yet added to {@link rejected}, by code (added whenever it is read: no label hashing per refusal of a burst). */
  private readonly rejectedCounts = new Map<string, number>();
  private readonly liveExecutionCount: Gauge;

  constructor(registry: Registry) {
    const registers = [registry];
    this.active = new Gauge({
      name: 'statev_subscriptions_active',
      help: 'Open subscriptions by transport (ws, sse).',
      labelNames: ['transport'],
      registers,
    });
    this.pollerCount = new Gauge({
      name: 'statev_subscription_pollers',
      help: 'Pollers of this replica: "leading" poll the upstream, "following" receive a leader replica\'s events through Redis.',
      labelNames: ['role'],
      registers,
    });
    this.intervalSeconds = new Gauge({
      name: 'statev_subscription_poll_interval_seconds',
      help: "The polling interval last scheduled for a resource kind, seconds: its freshness window, stretched when a key's polling budget is short.",
      labelNames: ['resource'],
      registers,
    });
    this.polls = new Counter({
      name: 'statev_subscription_polls_total',
      help: 'Polls by resource kind and outcome (changed, unchanged, failed); a fresh cached answer counts as a poll.',
      labelNames: ['resource', 'outcome'],
      registers,
    });
    this.eventCount = new Counter({
      name: 'statev_subscription_events_total',
      help: 'Change events found by polls, by resource kind (before fan-out to subscribers).',
      labelNames: ['resource'],
      registers,
    });
    this.liveExecutionCount = new Gauge({
      name: 'statev_live_query_executions',
      help: 'Distinct live queries executing, each shared by its subscribers (identical operations of one key); the subscribers count in statev_subscriptions_active.',
      registers,
    });
    const rejectedCounts = this.rejectedCounts;
    this.rejected = new Counter({
      name: 'statev_subscriptions_rejected_total',
      help: 'Subscriptions refused before they started, by error code.',
      labelNames: ['code'],
      registers,
      collect() {
        for (const [code, count] of rejectedCounts) this.inc({ code }, count);
        rejectedCounts.clear();
      },
    });
  }

  /** A subscription opened (+1) or closed (−1). */
  opened(transport: string, delta: 1 | -1): void {
    this.active.inc({ transport }, delta);
  }

  /** A shared live-query execution started (+1) or ended (−1). */
  liveExecutions(delta: 1 | -1): void {
    this.liveExecutionCount.inc(delta);
  }

  /** Sets `statev_subscription_pollers`: `leading` pollers poll the upstream, the other `total - leading` follow a leader replica. */
  pollers(total: number, leading: number): void {
    this.pollerCount.set({ role: 'leading' }, leading);
    this.pollerCount.set({ role: 'following' }, total - leading);
  }

  /** Sets `statev_subscription_poll_interval_seconds` of a resource kind to the interval last scheduled, in seconds. */
  interval(kind: string, seconds: number): void {
    this.intervalSeconds.set({ resource: kind }, seconds);
  }

  /** Counts one poll of a resource kind in `statev_subscription_polls_total` by outcome. */
  polled(kind: string, outcome: 'changed' | 'unchanged' | 'failed'): void {
    this.polls.inc({ resource: kind, outcome });
  }

  /** Adds `count` change events of a resource kind to `statev_subscription_events_total` (before fan-out to subscribers). */
  events(kind: string, count: number): void {
    this.eventCount.inc({ resource: kind }, count);
  }

  /** Counts a subscription refused before it started in `statev_subscriptions_rejected_total`, by error code. */
  refused(code: string): void {
    this.rejectedCounts.set(code, (this.rejectedCounts.get(code) ?? 0) + 1);
  }
}
