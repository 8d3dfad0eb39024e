/**
 * Delivery of alert events from a restart-proof outbox (the {@link AlertSink} the rules
 * hand their events to). `enqueue` writes the delivery to the store (a file beside the
 * vault, or Redis: alert-outbox.store.ts) before it resolves, once per `eventId`; then it
 * is delivered at least once, with backoff (5 s, 10 s, 20 s… at most 6 h apart) for 24 h,
 * through restarts and a `kill -9`.
 *
 * - DISCORD: a Discord webhook body (discord-body.ts, `allowed_mentions` empty). A 429 is
 *   tried again after its `retry_after` (body) or `Retry-After` (header), never sooner; any
 *   other 4xx is FAILED at once with its status kept; a 5xx or no answer backs off.
 * - WEBHOOK: Standard Webhooks (alert-webhook-body.ts), signed with the rule's own secret,
 *   `webhook-id` the event's id; anything but a 2xx backs off, as payment webhooks do.
 * - A URL the outbound rules refuse (src/upstream/outbound-url.ts: after DNS and on connect;
 *   redirects are never followed) is FAILED at once.
 *
 * Each endpoint has its own lane (src/upstream/delivery-lanes.ts, shared with payment
 * webhooks), so one slow or failing target never delays another. Every attempt updates the
 * delivery (attempts, last status, next attempt), which stays listed after it is DELIVERED or
 * FAILED (the newest finished ones are kept); `redeliver` makes any of them due again.
 *
 * The target is a credential (a Discord URL holds its token): it is stored sealed with the
 * vault's envelope (AES-256-GCM under a data key wrapped by `VAULT_MASTER_KEY`), shown with
 * its secret part as an ellipsis, and never put in an error, a log line or a metric. Each
 * stored delivery carries a MAC (`RecordMac`): an edited one is never sent.
 */
import { createHash } from 'node:crypto';
import type { GatewayConfig } from '../config';
import { MasterKeys, RecordMac } from '../vault';
import { newDataKey, open, seal } from '../vault/envelope';
import { DELIVERY_WINDOW_MS, DeliveryLanes, retryDelayMs, signedWebhookHeaders } from '../upstream/delivery-lanes';
import { elideUrl } from '../upstream/outbound-url';
import { webhookPoster } from '../upstream/webhook-post';
import type { WebhookAnswer, WebhookPoster } from '../upstream/webhook-post';
import { outcome, view } from './alert-delivery';
import type { AlertDeliveryRecord, AlertDeliveryStatus, AlertDeliveryView } from './alert-delivery';
import type { AlertEvent, AlertSink, AlertTarget } from './alert-event';
import { alertOutboxStore } from './alert-outbox.store';
import type { AlertOutboxStore } from './alert-outbox.store';
import { alertWebhookBody } from './alert-webhook-body';
import { discordBody } from './discord-body';

/** The MAC kind of a stored delivery. */
const RECORD_KIND = 'alert-delivery';
/** Finished (DELIVERED, FAILED) deliveries kept for the list; the oldest beyond are removed. */
const FINISHED_KEPT = 1000;
/** What an event id may be: it is a header value and a store key. */
const EVENT_ID = /^[\x21-\x7e]{1,200}$/;

/** Options of {@link AlertOutbox}. */
export interface AlertOutboxOptions {
  /** `VAULT_MASTER_KEY`: seals the targets and signs the records. */
  readonly masterKey: string;
  /** Sends a POST under the outbound URL rules (a `webhookPoster`). */
  readonly post: WebhookPoster;
  /** `PUBLIC_URL`: the alerts link to its `/console/`; null for no link. */
  readonly publicUrl: string | null;
  /** The time, ms. */
  readonly now?: () => number;
  /** Told of deliveries given up, records refused and failures of the outbox itself (never with a URL or secret). */
  readonly onError?: (error: Error) => void;
}

/** See the module comment. */
export class AlertOutbox implements AlertSink {
  private readonly master: MasterKeys;
  private readonly mac: RecordMac;
  private readonly now: () => number;
  private readonly consoleUrl: string | null;
  private readonly lanes: DeliveryLanes<AlertDeliveryRecord>;
  private readonly refused = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  /**
   * @param store - where deliveries live (see {@link alertOutboxStore})
   * @param options - see {@link AlertOutboxOptions}
   */
  constructor(
    private readonly store: AlertOutboxStore,
    private readonly options: AlertOutboxOptions,
  ) {
    this.master = MasterKeys.parse(options.masterKey);
    this.mac = new RecordMac(this.master);
    this.now = options.now ?? (() => Date.now());
    this.consoleUrl = options.publicUrl
      ? new URL('console/', options.publicUrl.endsWith('/') ? options.publicUrl : `${options.publicUrl}/`).href
      : null;
    this.lanes = new DeliveryLanes<AlertDeliveryRecord>(
      {
        dueFor: async (lane) => (await this.due()).filter((record) => record.lane === lane),
        claim: (record) => this.store.claim(`${record.id}#${record.windowFrom}#${record.attempts}`),
        attempt: (record) => this.attempt(record),
      },
      (error) => this.report(error),
    );
  }

  /**
   * Stores the delivery of an event to a target (resolves once it is written); an `eventId`
   * already in the outbox is a no-op.
   *
   * @throws Error when the event id is not 1-200 printable ASCII characters, or the store fails
   */
  async enqueue(event: AlertEvent, target: AlertTarget): Promise<void> {
    if (!EVENT_ID.test(event.eventId))
      throw new Error('An alert event id is 1-200 printable ASCII characters without spaces.');
    if ((await this.store.get(event.eventId)) !== null) return;
    const now = this.now();
    const dataKey = newDataKey();
    const context = `alert-target:${event.eventId}`;
    const record: AlertDeliveryRecord = {
      id: event.eventId,
      ruleId: event.ruleId,
      kind: target.kind,
      lane: createHash('sha256').update(`alert-lane\0${target.url}`).digest('hex').slice(0, 32),
      url: elideUrl(target.url, target.kind === 'DISCORD'),
      target: {
        dataKey: this.master.wrap(dataKey, context),
        box: seal(dataKey, Buffer.from(JSON.stringify(target), 'utf8'), context),
      },
      payload:
        target.kind === 'DISCORD'
          ? JSON.stringify(discordBody(event, this.consoleUrl))
          : alertWebhookBody(event, this.consoleUrl),
      status: 'PENDING',
      attempts: 0,
      lastStatusCode: null,
      lastProblem: null,
      createdAt: now,
      windowFrom: now,
      nextAt: now,
      lastAttemptAt: null,
    };
    if ((await this.store.add(record.id, this.signed(record))) && this.timer) void this.tick();
  }

  /** Delivers what is due every second (and at once after an enqueue or a redeliver) until {@link close}. */
  start(): void {
    this.timer = setInterval(() => void this.tick(), 1000);
    this.timer.unref();
  }

  /** Stops delivering (the outbox stays for the next start); waits for the running lanes, then closes the store. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.lanes.idle();
    await this.store.close();
  }

  /**
   * Reads the outbox once, forgets the oldest finished deliveries beyond those kept, and
   * starts a lane for each endpoint with due deliveries and no lane running; resolves when
   * the lanes it started have ended.
   */
  async deliverDue(): Promise<void> {
    const records = await this.records();
    const finished = records
      .filter((record) => record.status !== 'PENDING')
      .sort((a, b) => (b.lastAttemptAt ?? 0) - (a.lastAttemptAt ?? 0));
    if (finished.length > FINISHED_KEPT)
      await this.store.remove(finished.slice(FINISHED_KEPT).map((record) => record.id));
    const due = new Map<string, AlertDeliveryRecord[]>();
    for (const record of this.dueOf(records)) due.set(record.lane, [...(due.get(record.lane) ?? []), record]);
    await this.lanes.run(due);
  }

  /** Every delivery, newest first (at most `first`). */
  async deliveries(first: number): Promise<AlertDeliveryView[]> {
    return (await this.records())
      .sort((a, b) => b.createdAt - a.createdAt)
      .slice(0, first)
      .map(view);
  }

  /** Makes a delivery due now, whatever its status, with 24 h of attempts again; null when there is none of that id. */
  async redeliver(id: string): Promise<AlertDeliveryView | null> {
    const record = await this.record(id);
    if (!record) return null;
    const now = this.now();
    const again: AlertDeliveryRecord = { ...record, status: 'PENDING', nextAt: now, windowFrom: now };
    await this.store.put(id, this.signed(again));
    if (this.timer) void this.tick();
    return view(again);
  }

  private async tick(): Promise<void> {
    try {
      await this.deliverDue();
    } catch (error) {
      this.report(error);
    }
  }

  private async due(): Promise<AlertDeliveryRecord[]> {
    return this.dueOf(await this.records());
  }

  /** The pending deliveries due now, oldest first. */
  private dueOf(records: readonly AlertDeliveryRecord[]): AlertDeliveryRecord[] {
    const now = this.now();
    return records
      .filter((record) => record.status === 'PENDING' && record.nextAt !== null && record.nextAt <= now)
      .sort((a, b) => a.createdAt - b.createdAt);
  }

  /** One attempt (of a delivery still as it was read): true when delivered. */
  private async attempt(read: AlertDeliveryRecord): Promise<boolean> {
    const record = await this.record(read.id);
    if (
      !record ||
      record.status !== 'PENDING' ||
      record.attempts !== read.attempts ||
      record.windowFrom !== read.windowFrom
    )
      return true; // changed meanwhile (another replica)
    let target: AlertTarget;
    try {
      const context = `alert-target:${record.id}`;
      target = JSON.parse(
        open(this.master.unwrap(record.target.dataKey, context), record.target.box, context).toString('utf8'),
      ) as AlertTarget;
    } catch {
      await this.save(
        record,
        { status: 0, problem: 'its sealed target does not open with VAULT_MASTER_KEY' },
        'FAILED',
      );
      return false;
    }
    const headers =
      target.kind === 'WEBHOOK'
        ? signedWebhookHeaders(target.secret, record.id, new Date(this.now()), record.payload)
        : { 'content-type': 'application/json', 'user-agent': 'statev-gateway-alerts' };
    const answer = await this.options.post(target.url, headers, record.payload);
    return (await this.save(record, answer, outcome(record.kind, answer))) === 'DELIVERED';
  }

  /** Stores an attempt's outcome: DELIVERED, FAILED, or PENDING with the next attempt (FAILED past the 24 h). */
  private async save(
    record: AlertDeliveryRecord,
    answer: WebhookAnswer,
    next: AlertDeliveryStatus | 'RETRY',
  ): Promise<AlertDeliveryStatus> {
    const now = this.now();
    const attempts = record.attempts + 1;
    let status: AlertDeliveryStatus = next === 'RETRY' ? 'PENDING' : next;
    let nextAt: number | null = null;
    if (next === 'RETRY') {
      // A 429 says how long to wait: never sooner than that.
      nextAt =
        now +
        (answer.status === 429 && answer.retryAfterMs != null
          ? Math.max(answer.retryAfterMs, 1)
          : retryDelayMs(attempts));
      if (nextAt - record.windowFrom > DELIVERY_WINDOW_MS) [status, nextAt] = ['FAILED', null];
    }
    const problem = answer.status ? null : (answer.problem ?? 'no answer');
    await this.store.put(
      record.id,
      this.signed({
        ...record,
        status,
        attempts,
        nextAt,
        lastStatusCode: answer.status || null,
        lastProblem: problem,
        lastAttemptAt: now,
      }),
    );
    if (status === 'FAILED') {
      this.report(
        new Error(
          `Alert delivery ${record.id} (rule ${record.ruleId}, ${record.url}) FAILED after ${attempts} attempts (last: ${answer.status ? `status ${answer.status}` : problem}).`,
        ),
      );
    }
    return status;
  }

  /** The record with its MAC, as stored. */
  private signed(record: AlertDeliveryRecord): string {
    return JSON.stringify({ ...record, mac: this.mac.sign(RECORD_KIND, record) });
  }

  /** Every delivery whose MAC verifies. */
  private async records(): Promise<AlertDeliveryRecord[]> {
    return (await this.store.all()).flatMap(([id, text]) => this.opened(id, text) ?? []);
  }

  private async record(id: string): Promise<AlertDeliveryRecord | null> {
    const text = await this.store.get(id);
    return text === null ? null : this.opened(id, text);
  }

  /** A stored text as a record when its MAC verifies; else null, reported once. */
  private opened(id: string, text: string): AlertDeliveryRecord | null {
    try {
      const { mac, ...record } = JSON.parse(text) as AlertDeliveryRecord & { mac?: unknown };
      if (this.mac.verify(RECORD_KIND, record, mac)) return record;
    } catch {
      // refused below
    }
    if (!this.refused.has(id)) {
      this.refused.add(id);
      this.report(
        new Error(
          `Alert delivery ${JSON.stringify(id.slice(0, 200))} in ${this.store.where} was refused: its MAC does not verify (left as it is, never sent).`,
        ),
      );
    }
    return null;
  }

  private report(error: unknown): void {
    this.options.onError?.(error instanceof Error ? error : new Error(String(error)));
  }
}

/** What {@link createAlertOutbox} reads of the configuration. */
export type AlertOutboxSettings = Pick<
  GatewayConfig,
  'vaultMasterKey' | 'vaultFile' | 'redisUrl' | 'redisPrefix' | 'publicUrl' | 'webhookAllowHosts' | 'webhookTimeoutMs'
>;

/**
 * The alerts' outbox of a running gateway, started (delivering every second), or null
 * without a vault (`VAULT_MASTER_KEY`): its store beside the vault, its POSTs under the
 * outbound URL rules (`WEBHOOK_ALLOW_HOSTS`) within `WEBHOOK_TIMEOUT_MS` (or `options.post`). `close` stops it.
 */
export async function createAlertOutbox(
  config: AlertOutboxSettings,
  options: Partial<Pick<AlertOutboxOptions, 'onError' | 'now' | 'post'>> = {},
): Promise<AlertOutbox | null> {
  if (config.vaultMasterKey === null) return null;
  const outbox = new AlertOutbox(await alertOutboxStore(config), {
    masterKey: config.vaultMasterKey,
    post: webhookPoster({ allowHosts: config.webhookAllowHosts, timeoutMs: config.webhookTimeoutMs }),
    publicUrl: config.publicUrl,
    ...options,
  });
  outbox.start();
  return outbox;
}
