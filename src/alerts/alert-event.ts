/**
 * The seam between alert rules (which watch the pollers and decide that something happened)
 * and alert delivery (which posts it to Discord or a signed webhook from a restart-proof
 * outbox). Rules produce {@link AlertEvent}s and hand them to an {@link AlertSink}; delivery
 * implements the sink. Neither side reads the other's store.
 */

/** What a rule watches; the admin graph's `AlertKind`. */
export type AlertKindName = 'STOCK_BELOW' | 'TRANSACTION_ADDED' | 'OUTBID' | 'RENT_OVERDUE';

/** Where an alert goes. `url` is the clear URL (a Discord URL is a credential: never log it). */
export type AlertTarget =
  | { readonly kind: 'DISCORD'; readonly url: string }
  | {
      readonly kind: 'WEBHOOK';
      readonly url: string;
      /** Standard Webhooks secret, `whsec_…`. */ readonly secret: string;
    };

/** The facts of one event, in the upstream's words; amounts in the game's dollars, dates ISO 8601. */
export type AlertFacts =
  | {
      readonly kind: 'STOCK_BELOW';
      readonly factoryId: string;
      /** The company's name when the key's company list was cached (fresh) as the rule fired, else null: no request is spent on a name. */
      readonly factoryName: string | null;
      readonly store: 'STORE' | 'MACHINE' | 'COUNTER';
      readonly item: string;
      /** The amount now (0 when the item disappeared). */
      readonly amount: number;
      readonly threshold: number;
    }
  | {
      readonly kind: 'TRANSACTION_ADDED';
      readonly bankAccountId: string;
      readonly factoryName: string | null;
      readonly amount: number;
      readonly sender: string | null;
      readonly receiver: string | null;
      readonly reference: string | null;
      readonly at: string | null;
    }
  | {
      readonly kind: 'OUTBID';
      readonly auctionId: string;
      readonly auctionType: 'IMPORT' | 'EXPORT' | null;
      readonly item: string | null;
      readonly currentBid: number | null;
      readonly endsAt: string | null;
    }
  | {
      readonly kind: 'RENT_OVERDUE';
      readonly buildingId: string;
      readonly buildingName: string | null;
      readonly tenant: string;
      readonly lastPayDate: string;
      readonly days: number;
    };

/** One thing that happened, once: `eventId` is stable (the idempotency id) across retries, restarts and replicas. */
export interface AlertEvent {
  /** Stable and unique per rule and occurrence (e.g. `<ruleId>:<condition fingerprint>`), so a replay is a duplicate. */
  readonly eventId: string;
  /** The rule that fired (its vault record's id). */
  readonly ruleId: string;
  /** The vault character whose key watched. */
  readonly character: string;
  /** When the gateway saw it, ISO 8601. */
  readonly detectedAt: string;
  /** What happened, by kind. */
  readonly facts: AlertFacts;
}

/**
 * Takes events for delivery. `enqueue` resolves once the event is durably in the outbox (it
 * survives a `kill -9` from then on); enqueueing an `eventId` already there is a no-op.
 */
export interface AlertSink {
  /** Stores the event for delivery to `target`; resolves once it is durable. */
  enqueue(event: AlertEvent, target: AlertTarget): Promise<void>;
}
