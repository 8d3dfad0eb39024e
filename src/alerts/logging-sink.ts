/**
 * The sink of a gateway started without a delivery outbox: each event is logged (its id,
 * rule, kind and facts; never the target URL, a Discord URL being a credential) and kept in
 * memory, once per event id.
 */
import type { Logger } from 'pino';
import type { AlertEvent, AlertKindName, AlertSink, AlertTarget } from './alert-event';

/** Logs events instead of delivering them; an event id already taken is a no-op, as in the outbox. */
export class LoggingAlertSink implements AlertSink {
  /** The events taken, oldest first (tests read them). */
  readonly events: Array<{ readonly event: AlertEvent; readonly target: AlertTarget }> = [];
  private readonly ids = new Set<string>();

  /** @param logger - where each event is logged (none: kept only) */
  constructor(private readonly logger?: Logger) {}

  /** See {@link AlertSink.enqueue}. */
  enqueue(event: AlertEvent, target: AlertTarget): Promise<void> {
    if (this.ids.has(event.eventId)) return Promise.resolve();
    this.ids.add(event.eventId);
    this.events.push({ event, target });
    const kind: AlertKindName = event.facts.kind;
    this.logger?.info(
      { eventId: event.eventId, rule: event.ruleId, kind, facts: event.facts, target: target.kind },
      'alert (no delivery outbox: logged only)',
    );
    return Promise.resolve();
  }
}
