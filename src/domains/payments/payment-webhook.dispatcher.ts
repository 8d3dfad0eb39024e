/**
 * Webhooks of payment events (`statev-gateway webhooks add`): each status change of a
 * company's requests is POSTed to the webhook's https URL, signed as the Standard
 * Webhooks specification says (the `standardwebhooks` package: `webhook-id`,
 * `webhook-timestamp`, `webhook-signature`), from an outbox in the payment store, so a
 * delivery survives a restart. At least once: a failed attempt (no 2xx, or no whole answer
 * within `WEBHOOK_TIMEOUT_MS`, 10 s) is retried with exponential backoff (5 s, 10 s, 20 s…
 * at most 6 h apart) for 24 h; the `webhook-id` stays the same, for receivers to drop repeats.
 *
 * Each webhook has its own queue (a lane, src/upstream/delivery-lanes.ts, shared with the
 * alerts' outbox): its due deliveries go one after the other, and the lanes of different
 * webhooks run side by side, so a receiver that hangs or trickles holds up only its own
 * events. A lane whose attempt fails stops until the next tick (the rest of its queue is
 * tried then). Deliveries go to the webhook's current URL under the
 * outbound URL rules (src/upstream/outbound-url.ts), and outbox entries are authenticated by
 * the store (an edited entry is never sent).
 *
 * The company's accounts are polled with the key the vault holds for the webhook's
 * character, so no client has to stay connected.
 */
import { createHash } from 'node:crypto';
import { DELIVERY_WINDOW_MS, DeliveryLanes, retryDelayMs, signedWebhookHeaders } from '../../upstream/delivery-lanes';
import { webhookPoster } from '../../upstream/webhook-post';
import type { WebhookPoster } from '../../upstream/webhook-post';
import { toPaymentRequest } from './payment-request.resolver';
import type { PaymentCaller } from './payment-desk.types';
import type { PaymentDesk } from './payment-request.service';
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

/** The message id of an event for a webhook: the same on every replica, so it is enqueued once. */
function messageId(webhookId: string, event: StoredEvent): string {
  const paid = event.request.transfers.length;
  return `msg_${createHash('sha256').update(`${webhookId}|${event.request.reference}|${event.kind}|${paid}`).digest('hex').slice(0, 24)}`;
}

/** Options of {@link WebhookDispatcher}. */
export interface WebhookDispatcherOptions {
  /** Sends a POST (default: a `webhookPoster` with no host allowed beyond the rules and a 10 s timeout). */
  post?: WebhookPoster;
  /** The time, ms. */
  now?: () => number;
  /** Told of a delivery given up after 24 h, and of failures of the outbox itself. */
  onError?: (error: unknown) => void;
}

/** See the module comment. */
export class WebhookDispatcher {
  private readonly post: WebhookPoster;
  private readonly now: () => number;
  private stopEvents: (() => void) | null = null;
  private timer: NodeJS.Timeout | undefined;
  /** One lane per webhook. */
  private readonly lanes: DeliveryLanes<OutboxEntry>;
  private lastResume = 0;

  constructor(
    private readonly desk: PaymentDesk,
    private readonly targets: () => readonly WebhookTarget[],
    private readonly options: WebhookDispatcherOptions = {},
  ) {
    this.post = options.post ?? webhookPoster({ allowHosts: [], timeoutMs: 10_000 });
    this.now = options.now ?? (() => Date.now());
    this.lanes = new DeliveryLanes<OutboxEntry>(
      {
        dueFor: (webhookId) => this.dueFor(webhookId),
        // One attempt per replica-wide attempt number.
        claim: (entry) => this.desk.store.markSeen(entry.webhookId, 'attempt', `${entry.id}#${entry.attempts}`),
        attempt: async (entry) => {
          const target = this.targets().find((each) => each.id === entry.webhookId);
          return target ? this.attempt(target, entry) : false;
        },
      },
      (error) => this.options.onError?.(error),
    );
  }

  /**
   * Queues the deliveries of a transfer's status change with the change itself (see
   * `PaymentDesk.outboxWith`), enqueues the other events of every webhook's company as
   * they are published, and delivers what is due every second.
   */
  start(): void {
    this.desk.outboxWith((event) => this.entries(event));
    this.stopEvents = this.desk.store.onEvent(
      (event) => void this.enqueue(event).catch((error: unknown) => this.options.onError?.(error)),
    );
    this.timer = setInterval(() => void this.tick(), 1000);
    this.timer.unref();
  }

  /** The outbox entries of an event: one per webhook of its company and character, due now. */
  entries(event: StoredEvent): OutboxEntry[] {
    const now = this.now();
    const payload = JSON.stringify({
      type: `payment.${event.kind.toLowerCase()}`,
      timestamp: new Date(event.observedAt).toISOString(),
      data: toPaymentRequest(event.request),
    });
    return this.targets()
      .filter((target) => target.factoryId === event.request.factoryId && target.caller.keyId === event.request.owner)
      .map((target) => ({
        id: messageId(target.id, event),
        webhookId: target.id,
        url: target.url,
        payload,
        attempts: 0,
        firstAt: now,
        nextAt: now,
      }));
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
   * Reads the outbox once and starts a lane for each webhook with due deliveries and no lane
   * running; resolves when the lanes it started have ended (a webhook whose lane still runs
   * is left to it). In a lane, 2xx removes a delivery from the outbox; anything else
   * schedules its next attempt (or gives up 24 h after it was enqueued) and ends the lane.
   */
  async deliverDue(): Promise<void> {
    const targets = new Map(this.targets().map((target) => [target.id, target]));
    const now = this.now();
    const due = new Map<string, OutboxEntry[]>();
    for (const entry of await this.desk.store.outbox()) {
      if (entry.nextAt > now) continue;
      if (!targets.has(entry.webhookId)) {
        await this.desk.store.removeOutbox(entry.id); // the webhook was removed
        continue;
      }
      const queue = due.get(entry.webhookId) ?? [];
      queue.push(entry);
      due.set(entry.webhookId, queue);
    }
    for (const queue of due.values()) queue.sort((a, b) => a.firstAt - b.firstAt);
    await this.lanes.run(due);
  }

  /** Stops enqueuing and delivering (the outbox stays for the next start); waits for the running lanes (each attempt is bounded by the timeout). */
  async close(): Promise<void> {
    this.stopEvents?.();
    clearInterval(this.timer);
    await this.lanes.idle();
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

  /** The due entries of one webhook, oldest first. */
  private async dueFor(webhookId: string): Promise<OutboxEntry[]> {
    const now = this.now();
    return (await this.desk.store.outbox())
      .filter((entry) => entry.webhookId === webhookId && entry.nextAt <= now)
      .sort((a, b) => a.firstAt - b.firstAt);
  }

  /** One attempt: true when delivered; else the next attempt is scheduled (or the delivery given up). */
  private async attempt(target: WebhookTarget, entry: OutboxEntry): Promise<boolean> {
    const answer = await this.post(
      target.url,
      signedWebhookHeaders(target.secret, entry.id, new Date(this.now()), entry.payload),
      entry.payload,
    );
    if (answer.status >= 200 && answer.status < 300) {
      await this.desk.store.removeOutbox(entry.id);
      return true;
    }
    const attempts = entry.attempts + 1;
    const nextAt = this.now() + retryDelayMs(attempts);
    const last = answer.status ? `status ${answer.status}` : (answer.problem ?? 'no answer');
    if (nextAt - entry.firstAt > DELIVERY_WINDOW_MS) {
      await this.desk.store.removeOutbox(entry.id);
      this.options.onError?.(
        new Error(
          `Webhook ${entry.webhookId}: gave up delivering ${entry.id} after ${attempts} attempts in 24 h (last: ${last}).`,
        ),
      );
      return false;
    }
    await this.desk.store.putOutbox({ ...entry, attempts, nextAt } satisfies OutboxEntry);
    if (answer.problem?.startsWith('refused'))
      this.options.onError?.(new Error(`Webhook ${entry.webhookId}: ${answer.problem}`));
    return false;
  }
}
