/**
 * The body of an alert sent to a signed webhook (Standard Webhooks, as payment events are):
 * `{"type": "alert.stock_below", "timestamp": …, "data": {…}}`, with the event's
 * facts in the upstream's words. The `webhook-id` header is the event's idempotency id, the
 * same on every attempt and replica, so a receiver drops repeats.
 */
import type { AlertEvent, AlertKindName } from './alert-event';

/** The event type of each alert kind. */
export const ALERT_EVENT_TYPES: Readonly<Record<AlertKindName, string>> = {
  STOCK_BELOW: 'alert.stock_below',
  TRANSACTION_ADDED: 'alert.transaction_added',
  OUTBID: 'alert.outbid',
  RENT_OVERDUE: 'alert.rent_overdue',
};

/** The JSON body of an event for a webhook; `consoleUrl` is the console's address, or null. */
export function alertWebhookBody(event: AlertEvent, consoleUrl: string | null): string {
  const { kind, ...facts } = event.facts;
  return JSON.stringify({
    type: ALERT_EVENT_TYPES[kind],
    timestamp: event.detectedAt,
    data: { eventId: event.eventId, ruleId: event.ruleId, character: event.character, kind, ...facts, consoleUrl },
  });
}
