/**
 * An alert delivery as the outbox (alert-outbox.ts) stores it and as the administration
 * graph lists it, and what an attempt's answer means for it. Pure: no I/O, no secret shown.
 */
import type { WrappedKey } from '../vault/envelope';
import type { WebhookAnswer } from '../upstream/webhook-post';
import type { AlertTarget } from './alert-event';

/** Where a delivery stands. */
export type AlertDeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED';

/** One delivery as stored (times in ms since the epoch); its MAC is stored beside it. */
export interface AlertDeliveryRecord {
  /** The event's id: the delivery's id and the `webhook-id`. */
  readonly id: string;
  /** The rule that fired. */
  readonly ruleId: string;
  /** The target's kind. */
  readonly kind: AlertTarget['kind'];
  /** The endpoint's lane: a hash of its URL. */
  readonly lane: string;
  /** The URL with its secret part elided. */
  readonly url: string;
  /** The target (URL and secret), sealed. */
  readonly target: { readonly dataKey: WrappedKey; readonly box: string };
  /** The body. */
  readonly payload: string;
  /** Where it stands. */
  readonly status: AlertDeliveryStatus;
  /** Attempts made so far. */
  readonly attempts: number;
  /** The last attempt's HTTP status, or null. */
  readonly lastStatusCode: number | null;
  /** Why the last attempt had no status (a refused URL, a timeout), or null. Never the URL. */
  readonly lastProblem: string | null;
  /** When it was enqueued. */
  readonly createdAt: number;
  /** When the 24 h of attempts began (enqueue, or the last `redeliver`). */
  readonly windowFrom: number;
  /** When the next attempt is due, or null (DELIVERED, FAILED). */
  readonly nextAt: number | null;
  /** When it was last attempted, or null. */
  readonly lastAttemptAt: number | null;
}

/** A delivery as the administration graph lists it (no secret). */
export interface AlertDeliveryView {
  /** The event's id (the `webhook-id`). */
  readonly id: string;
  /** `alert:<ruleId>`. */
  readonly source: string;
  /** The URL, its secret part an ellipsis. */
  readonly url: string;
  /** Where it stands. */
  readonly status: AlertDeliveryStatus;
  /** Attempts made so far. */
  readonly attempts: number;
  /** The last attempt's HTTP status, or null. */
  readonly lastStatusCode: number | null;
  /** When the next attempt is due, or null (DELIVERED, FAILED). */
  readonly nextAttemptAt: Date | null;
  /** When it was enqueued. */
  readonly createdAt: Date;
}

/** What an answer means: DELIVERED (2xx), FAILED (a refused URL; a Discord 4xx other than 429) or RETRY. */
export function outcome(kind: AlertTarget['kind'], answer: WebhookAnswer): AlertDeliveryStatus | 'RETRY' {
  if (answer.status >= 200 && answer.status < 300) return 'DELIVERED';
  if (answer.status === 0 && answer.problem?.startsWith('refused')) return 'FAILED';
  if (kind === 'DISCORD' && answer.status >= 400 && answer.status < 500 && answer.status !== 429) return 'FAILED';
  return 'RETRY';
}

/** A delivery as the administration graph lists it: no target, no secret. */
export function view(record: AlertDeliveryRecord): AlertDeliveryView {
  return {
    id: record.id,
    source: `alert:${record.ruleId}`,
    url: record.url,
    status: record.status,
    attempts: record.attempts,
    lastStatusCode: record.lastStatusCode,
    nextAttemptAt: record.nextAt === null ? null : new Date(record.nextAt),
    createdAt: new Date(record.createdAt),
  };
}
