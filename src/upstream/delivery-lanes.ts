/**
 * What every outbox of the gateway's own deliveries shares (payment webhooks, alerts): the
 * backoff between attempts, the 24 h window, the Standard Webhooks signature, and the
 * lanes. Each target (a webhook, a Discord channel) has its own lane: its due deliveries go
 * one after the other, and the lanes of different targets run side by side, so a receiver
 * that hangs or trickles holds up only its own deliveries. A lane stops at its first failed
 * attempt; the rest of its queue waits for the next round.
 */
import { Webhook } from 'standardwebhooks';

/** First retry delay, ms; doubled per failed attempt. */
const RETRY_BASE_MS = 5_000;
/** The longest delay between two attempts, ms. */
const RETRY_MAX_MS = 6 * 3_600_000;
/** How long a delivery is tried, ms. */
export const DELIVERY_WINDOW_MS = 24 * 3_600_000;

/** The delay before attempt `attempts + 1`, ms: 5 s × 2^(attempts − 1), at most 6 h. */
export function retryDelayMs(attempts: number): number {
  return Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.max(0, attempts - 1));
}

/** The Standard Webhooks headers of one attempt (`webhook-id`, `webhook-timestamp`, `webhook-signature`), signed with `secret` (`whsec_…`). */
export function signedWebhookHeaders(secret: string, id: string, at: Date, payload: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, payload),
    'user-agent': 'statev-gateway-webhooks',
  };
}

/** What a lane does with the deliveries of its target. */
export interface LaneWork<E> {
  /** The due deliveries of a lane, oldest first (read again after each pass, so what became due meanwhile goes too). */
  dueFor(lane: string): Promise<E[]>;
  /** True when this replica may make the attempt (one replica per attempt); false skips the delivery. */
  claim(entry: E): Promise<boolean>;
  /** One attempt: true when delivered (the lane goes on), false when it failed (the lane stops). */
  attempt(entry: E): Promise<boolean>;
}

/** The running lanes of one outbox (see the module comment). */
export class DeliveryLanes<E> {
  /** The running lane of each target (its id → the lane's end). */
  private readonly running = new Map<string, Promise<void>>();

  /**
   * @param work - what a lane does
   * @param onError - told of a lane that threw
   */
  constructor(
    private readonly work: LaneWork<E>,
    private readonly onError: (error: unknown) => void,
  ) {}

  /**
   * Starts a lane for each target of `due` with no lane running (a target whose lane still
   * runs is left to it); resolves when the lanes it started have ended.
   *
   * @param due - each target's due deliveries, oldest first
   */
  async run(due: ReadonlyMap<string, readonly E[]>): Promise<void> {
    const started: Array<Promise<void>> = [];
    for (const [lane, queue] of due) {
      if (this.running.has(lane) || queue.length === 0) continue;
      const running = this.lane(lane, queue)
        .catch((error: unknown) => this.onError(error))
        .finally(() => this.running.delete(lane));
      this.running.set(lane, running);
      started.push(running);
    }
    await Promise.all(started);
  }

  /** Resolves when every running lane has ended (each attempt is bounded by the poster's timeout). */
  async idle(): Promise<void> {
    await Promise.all(this.running.values());
  }

  private async lane(lane: string, first: readonly E[]): Promise<void> {
    for (let queue = first; queue.length > 0; queue = await this.work.dueFor(lane)) {
      let attempted = false;
      for (const entry of queue) {
        if (!(await this.work.claim(entry))) continue;
        attempted = true;
        if (!(await this.work.attempt(entry))) return;
      }
      if (!attempted) return; // another replica holds them all: the next round looks again
    }
  }
}
