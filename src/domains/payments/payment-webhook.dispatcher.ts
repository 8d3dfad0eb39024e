/**
 * Webhooks of payment events (`statev-gateway webhooks add`): each status change of a
 * company's requests is POSTed to the webhook's https URL, signed as the Standard
 * Webhooks specification says (the `standardwebhooks` package: `webhook-id`,
 * `webhook-timestamp`, `webhook-signature`), from an outbox in the payment store, so a
 * delivery survives a restart. At least once: a failed attempt (no 2xx, or no answer
 * within 10 s) is retried with exponential backoff (5 s, 10 s, 20 s… at most 6 h
 * apart) for 24 h; the `webhook-id` stays the same, for receivers to drop repeats.
 *
 * The company's accounts are polled with the key the vault holds for the webhook's
 * character, so no client has to stay connected.
 */
import { createHash } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { postWebhook } from '../../upstream/webhook-post';
import { toPaymentRequest } from './payment-request.resolver';
import type { PaymentCaller, PaymentDesk } from './payment-request.service';
import type { OutboxEntry, StoredEvent } from './payment-request.store';

/** A webhook as the dispatcher needs it. */
export interface WebhookTarget {
  /** `whk_…`. */
  readonly id: string;
  /** The company whose events it gets. */
  readonly factoryId: string;
  /** Where they go. */
  readonly url: string;
  /** The signing secret (`whsec_…`). */
  readonly secret: string;
  /** The vault key that polls (and whose hash owns the requests). */
  readonly caller: PaymentCaller;
}

/** First retry delay, ms; doubled per failed attempt. */
const RETRY_BASE_MS = 5_000;
/** The longest delay between two attempts, ms. */
const RETRY_MAX_MS = 6 * 3_600_000;
/** How long delivery is tried, ms. */
export const DELIVERY_WINDOW_MS = 24 * 3_600_000;

/** Sends one signed POST; resolves with the status (0 when there was no answer). */
export type WebhookPost = (url: string, headers: Record<string, string>, body: string) => Promise<number>;

/** The delay before attempt `attempts + 1`, ms: 5 s × 2^(attempts − 1), at most 6 h. */
export function retryDelayMs(attempts: number): number {
  return Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.max(0, attempts - 1));
}

/** The message id of an event for a webhook: the same on every replica, so it is enqueued once. */
function messageId(webhookId: string, event: StoredEvent): string {
  const paid = event.request.transfers.length;
  return `msg_${createHash('sha256').update(`${webhookId}|${event.request.reference}|${event.kind}|${paid}`).digest('hex').slice(0, 24)}`;
}

/** Options of {@link WebhookDispatcher}. */
export interface WebhookDispatcherOptions {
  /** Sends a POST (default: `postWebhook`, undici on the global dispatcher). */
  post?: WebhookPost;
  /** The time, ms. */
  now?: () => number;
  /** Told of a delivery given up after 24 h, and of failures of the outbox itself. */
  onError?: (error: unknown) => void;
}

/** See the module comment. */
export class WebhookDispatcher {
  private readonly post: WebhookPost;
  private readonly now: () => number;
  private stopEvents: (() => void) | null = null;
  private timer: NodeJS.Timeout | undefined;
  private delivering: Promise<void> | null = null;
  private lastResume = 0;

  constructor(
    private readonly desk: PaymentDesk,
    private readonly targets: () => readonly WebhookTarget[],
    private readonly options: WebhookDispatcherOptions = {},
  ) {
    this.post = options.post ?? postWebhook;
    this.now = options.now ?? (() => Date.now());
  }

  /**
   * Queues the deliveries of a transfer's status change with the change itself (see
   * `PaymentDesk.outboxWith`), enqueues the other events of every webhook's company as
   * they are published, and delivers what is due every second.
   */
  start(): void {
    this.desk.outboxWith((event) => this.entries(event));
    this.stopEvents = this.desk.store.onEvent((event) => void this.enqueue(event).catch((error: unknown) => this.options.onError?.(error)));
    this.timer = setInterval(() => void this.tick(), 1000);
    this.timer.unref();
  }

  /** The outbox entries of an event: one per webhook of its company and character, due now. */
  entries(event: StoredEvent): OutboxEntry[] {
    const now = this.now();
    const payload = JSON.stringify({ type: `payment.${event.kind.toLowerCase()}`, timestamp: new Date(event.observedAt).toISOString(), data: toPaymentRequest(event.request) });
    return this.targets()
      .filter((target) => target.factoryId === event.request.factoryId && target.caller.keyId === event.request.owner)
      .map((target) => ({ id: messageId(target.id, event), webhookId: target.id, url: target.url, payload, attempts: 0, firstAt: now, nextAt: now }));
  }

  /** Puts an event into the outbox of each webhook of its company (once across replicas), unless it was queued with its change already. */
  async enqueue(event: StoredEvent): Promise<void> {
    if (event.outboxed) return;
    for (const entry of this.entries(event)) {
      if (!(await this.desk.store.markSeen(entry.webhookId, 'outbox', entry.id))) continue;
      await this.desk.store.putOutbox(entry);
    }
  }

  /**
   * Attempts every due delivery once: 2xx removes it from the outbox; anything else
   * schedules the next attempt, or gives up 24 h after it was enqueued. One run at a time.
   */
  deliverDue(): Promise<void> {
    this.delivering ??= this.deliver().finally(() => (this.delivering = null));
    return this.delivering;
  }

  /** Stops enqueuing and delivering (the outbox stays for the next start). */
  async close(): Promise<void> {
    this.stopEvents?.();
    clearInterval(this.timer);
    await this.delivering;
  }

  private async tick(): Promise<void> {
    try {
      // Keep polling the webhooks' companies with their vault keys (a minute apart is enough: the desk remembers what it watches).
      if (this.now() - this.lastResume >= 60_000) {
        this.lastResume = this.now();
        for (const target of this.targets()) await this.desk.resume(target.caller);
      }
      await this.deliverDue();
    } catch (error) {
      this.options.onError?.(error);
    }
  }

  private async deliver(): Promise<void> {
    const secrets = new Map(this.targets().map((target) => [target.id, target.secret]));
    for (const entry of await this.desk.store.outbox()) {
      const now = this.now();
      if (entry.nextAt > now) continue;
      const secret = secrets.get(entry.webhookId);
      if (!secret) {
        await this.desk.store.removeOutbox(entry.id); // the webhook was removed
        continue;
      }
      // One attempt per replica-wide attempt number.
      if (!(await this.desk.store.markSeen(entry.webhookId, 'attempt', `${entry.id}#${entry.attempts}`))) continue;
      const status = await this.post(entry.url, signedHeaders(secret, entry, new Date(now)), entry.payload);
      if (status >= 200 && status < 300) {
        await this.desk.store.removeOutbox(entry.id);
        continue;
      }
      const attempts = entry.attempts + 1;
      const nextAt = this.now() + retryDelayMs(attempts);
      if (nextAt - entry.firstAt > DELIVERY_WINDOW_MS) {
        await this.desk.store.removeOutbox(entry.id);
        this.options.onError?.(new Error(`Webhook ${entry.webhookId}: gave up delivering ${entry.id} after ${attempts} attempts in 24 h (last status ${status || 'none'}).`));
        continue;
      }
      await this.desk.store.putOutbox({ ...entry, attempts, nextAt } satisfies OutboxEntry);
    }
  }
}

/** The Standard Webhooks headers of one attempt. */
function signedHeaders(secret: string, entry: OutboxEntry, at: Date): Record<string, string> {
  const signature = new Webhook(secret).sign(entry.id, at, entry.payload);
  return {
    'content-type': 'application/json',
    'webhook-id': entry.id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature,
    'user-agent': 'statev-gateway-webhooks',
  };
}
