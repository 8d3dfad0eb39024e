/**
 * Delivery of alerts from the outbox: Discord's 429 waited out for its `retry_after` (body
 * or header) and never sooner, a 404 FAILED at once with its status, a 5xx backed off, a
 * signed webhook that verifies with the `standardwebhooks` package, a duplicate event id
 * enqueued once, a restart (a new outbox over the same file) delivering what was pending,
 * the Discord URL sealed in the file and never in an error, and the administration graph's
 * `deliveries` and `redeliver` over both outboxes. Discord is an undici MockAgent; time is
 * the outbox's injected clock (no timers run: the test calls `deliverDue`).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import type { MockAgent } from 'undici';
import { createAlertOutbox } from '../../src/alerts/alert-outbox';
import type { AlertOutbox } from '../../src/alerts/alert-outbox';
import { FileAlertOutboxStore } from '../../src/alerts/alert-outbox.store';
import { retryDelayMs } from '../../src/upstream/delivery-lanes';
import type { WebhookAnswer } from '../../src/upstream/webhook-post';
import { until } from '../support';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/observability/logger';
import { AdminService } from '../../src/admin/admin-service';
import type { AdminServiceParts } from '../../src/admin/admin-service';
import type { PaymentStore } from '../../src/domains/payments/payment-request.store';
import { DISCORD_TOKEN, DISCORD_URL, MASTER_KEY, T0, anEvent, anOutbox, discordStandIn } from './alert-helpers';
import type { Received } from './alert-helpers';

const DISCORD = { kind: 'DISCORD', url: DISCORD_URL } as const;

describe('the alerts outbox', () => {
  const clock = { now: T0 };
  let agent: MockAgent;
  let received: Received[];
  let answers: Array<{ statusCode: number; data?: string; responseOptions?: { headers: Record<string, string> } }>;
  let errors: string[];
  let folder: string;
  const opened: AlertOutbox[] = [];

  beforeEach(async () => {
    clock.now = T0;
    answers = [];
    errors = [];
    ({ agent, received } = discordStandIn(() => answers.shift() ?? { statusCode: 204 }));
    folder = await mkdtemp(join(tmpdir(), 'alerts-outbox-'));
  });

  afterEach(async () => {
    for (const outbox of opened.splice(0)) await outbox.close();
    await agent.close();
    await rm(folder, { recursive: true, force: true });
  });

  async function outbox(file: string | null = null): Promise<AlertOutbox> {
    const made = await anOutbox(clock, { dispatcher: agent, errors, store: await FileAlertOutboxStore.open(file) });
    opened.push(made);
    return made;
  }

  /** An outbox over a file, with a delivery that failed once (a 5xx): pending. */
  async function pendingInFile(eventId: string): Promise<{ file: string; first: AlertOutbox }> {
    const file = join(folder, 'vault.json.alerts-outbox.json');
    const first = await outbox(file);
    answers.push({ statusCode: 502 });
    await first.enqueue(anEvent(eventId), DISCORD);
    await first.deliverDue();
    return { file, first };
  }

  it('posts a Discord body and marks it DELIVERED on a 2xx', async () => {
    const alerts = await outbox();
    await alerts.enqueue(anEvent('alr_1:water'), DISCORD);
    await alerts.deliverDue();
    expect(received).toHaveLength(1);
    expect(received[0]?.path).toBe(`/api/webhooks/112233/${DISCORD_TOKEN}`);
    expect(JSON.parse(received[0]?.body ?? '')).toMatchObject({
      allowed_mentions: { parse: [] },
      embeds: [{ title: 'Low stock: Water', url: 'https://gateway.example/console/' }],
    });
    const [delivery] = await alerts.deliveries(50);
    expect(delivery).toMatchObject({
      id: 'alr_1:water',
      source: 'alert:alr_1',
      url: 'https://discord.com/api/webhooks/112233/…',
      status: 'DELIVERED',
      attempts: 1,
      lastStatusCode: 204,
      nextAttemptAt: null,
    });
  });

  it('waits out a 429 for its retry_after, never sooner', async () => {
    const alerts = await outbox();
    answers.push({
      statusCode: 429,
      data: JSON.stringify({ message: 'You are being rate limited.', retry_after: 2.5, global: false }),
      responseOptions: { headers: { 'content-type': 'application/json' } },
    });
    await alerts.enqueue(anEvent('evt-429'), DISCORD);
    await alerts.deliverDue();
    expect(await alerts.deliveries(1)).toMatchObject([
      { status: 'PENDING', attempts: 1, lastStatusCode: 429, nextAttemptAt: new Date(T0 + 2500) },
    ]);
    clock.now = T0 + 2499;
    await alerts.deliverDue();
    expect(received).toHaveLength(1);
    clock.now = T0 + 2500;
    await alerts.deliverDue();
    expect(received).toHaveLength(2);
    expect(await alerts.deliveries(1)).toMatchObject([{ status: 'DELIVERED', attempts: 2 }]);
  });

  it('waits out a 429 for its Retry-After header when the body does not say', async () => {
    const alerts = await outbox();
    answers.push({ statusCode: 429, data: 'slow down', responseOptions: { headers: { 'retry-after': '7' } } });
    await alerts.enqueue(anEvent('evt-429h'), DISCORD);
    await alerts.deliverDue();
    expect(await alerts.deliveries(1)).toMatchObject([{ status: 'PENDING', nextAttemptAt: new Date(T0 + 7000) }]);
    clock.now = T0 + 6999;
    await alerts.deliverDue();
    expect(received).toHaveLength(1);
  });

  it('fails a Discord 404 at once, keeping its status; backs off a 5xx', async () => {
    const alerts = await outbox();
    answers.push({ statusCode: 404, data: '{"message": "Unknown Webhook", "code": 10015}' }, { statusCode: 503 });
    await alerts.enqueue(anEvent('evt-404'), DISCORD);
    await alerts.deliverDue();
    expect(await alerts.deliveries(1)).toMatchObject([
      { status: 'FAILED', attempts: 1, lastStatusCode: 404, nextAttemptAt: null },
    ]);
    clock.now += 86_400_000;
    await alerts.deliverDue();
    expect(received).toHaveLength(1);
    await alerts.enqueue(anEvent('evt-503'), { kind: 'DISCORD', url: 'https://discord.com/api/webhooks/9/other' });
    await alerts.deliverDue();
    const delivery = (await alerts.deliveries(50)).find((each) => each.id === 'evt-503');
    expect(delivery).toMatchObject({
      status: 'PENDING',
      lastStatusCode: 503,
      nextAttemptAt: new Date(clock.now + retryDelayMs(1)),
    });
    // The failure message names the delivery and the elided URL, never the token.
    expect(errors.join('\n')).toContain('evt-404');
    expect(errors.join('\n')).not.toContain(DISCORD_TOKEN);
  });

  it("signs a webhook with the rule's secret (Standard Webhooks), the event id as webhook-id", async () => {
    const alerts = await outbox();
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    await alerts.enqueue(anEvent('alr_1:f1:water:1'), { kind: 'WEBHOOK', url: 'https://hooks.example/in', secret });
    await alerts.deliverDue();
    const [request] = received;
    if (!request) throw new Error('nothing received');
    expect(request.headers['webhook-id']).toBe('alr_1:f1:water:1');
    // The receiver checks the timestamp against its own clock: the outbox's clock is now-ish.
    const payload = new Webhook(secret).verify(request.body, request.headers) as {
      type: string;
      data: Record<string, unknown>;
    };
    expect(payload).toMatchObject({
      type: 'alert.stock_below',
      data: { eventId: 'alr_1:f1:water:1', ruleId: 'alr_1', item: 'Water', amount: 3, threshold: 10 },
    });
    expect(() =>
      new Webhook(`whsec_${randomBytes(24).toString('base64')}`).verify(request.body, request.headers),
    ).toThrow();
  });

  it.each([
    ['TRANSACTION_ADDED', 'alert.transaction_added'],
    ['OUTBID', 'alert.outbid'],
    ['RENT_OVERDUE', 'alert.rent_overdue'],
  ])('names a %s event %s', async (kind, type) => {
    const alerts = await outbox();
    await alerts.enqueue(anEvent(`evt-${kind}`, { kind } as never), {
      kind: 'WEBHOOK',
      url: 'https://hooks.example/in',
      secret: `whsec_${randomBytes(24).toString('base64')}`,
    });
    await alerts.deliverDue();
    expect(JSON.parse(received[0]?.body ?? '')).toMatchObject({ type });
  });

  it('enqueues an event id once', async () => {
    const alerts = await outbox();
    await alerts.enqueue(anEvent('evt-dup'), DISCORD);
    await alerts.enqueue(anEvent('evt-dup', { amount: 1 }), {
      kind: 'DISCORD',
      url: 'https://discord.com/api/webhooks/1/another',
    });
    await alerts.deliverDue();
    await alerts.deliverDue();
    expect(received).toHaveLength(1);
    expect(received[0]?.path).toContain(DISCORD_TOKEN);
    expect(await alerts.deliveries(50)).toHaveLength(1);
  });

  it('delivers after a restart what was pending, the Discord URL sealed in the file', async () => {
    const { file } = await pendingInFile('evt-restart');
    const text = await readFile(file, 'utf8');
    expect(text).toContain('evt-restart');
    expect(text).not.toContain(DISCORD_TOKEN);
    expect(text).not.toContain('112233/Tok');
    // A new outbox over the same file (as after a kill -9: the file is what was written).
    const second = await outbox(file);
    clock.now += retryDelayMs(1);
    await second.deliverDue();
    expect(received).toHaveLength(2);
    expect(received[1]?.path).toContain(DISCORD_TOKEN);
    expect(await second.deliveries(1)).toMatchObject([{ status: 'DELIVERED', attempts: 2 }]);
  });

  it('never sends a delivery whose stored record was edited', async () => {
    const { file, first } = await pendingInFile('evt-edit');
    await first.close();
    opened.splice(opened.indexOf(first), 1);
    const stored = JSON.parse(await readFile(file, 'utf8')) as { deliveries: Record<string, string> };
    const store = await FileAlertOutboxStore.open(file);
    await store.put('evt-edit', (stored.deliveries['evt-edit'] ?? '').replace('"attempts":1', '"attempts":0'));
    const second = await anOutbox(clock, { dispatcher: agent, errors, store });
    opened.push(second);
    clock.now += 86_400_000;
    await second.deliverDue();
    expect(received).toHaveLength(1);
    expect(errors.join('\n')).toContain('MAC does not verify');
  });

  it('lists alert deliveries beside payment webhooks in the administration graph, and redelivers either', async () => {
    const alerts = await outbox();
    answers.push({ statusCode: 404 });
    await alerts.enqueue(anEvent('evt-admin'), DISCORD);
    await alerts.deliverDue();
    const outboxEntry = {
      id: 'msg_1',
      webhookId: 'whk_1',
      url: 'https://shop.example/hooks?key=x',
      payload: '{}',
      attempts: 2,
      firstAt: T0 - 1000,
      nextAt: T0 + 5000,
    };
    const payments = {
      outbox: () => Promise.resolve([outboxEntry]),
      putOutbox: () => Promise.resolve(),
    } as unknown as PaymentStore;
    const admin = new AdminService({
      payments,
      alerts,
      masterKey: MASTER_KEY,
      now: () => clock.now,
    } as unknown as AdminServiceParts);
    const listed = await admin.deliveries(50);
    expect(listed.map((each) => [each.id, each.source, each.url, each.status, each.lastStatusCode])).toEqual([
      ['evt-admin', 'alert:alr_1', 'https://discord.com/api/webhooks/112233/…', 'FAILED', 404],
      ['msg_1', 'webhook:whk_1', 'https://shop.example/hooks?…', 'PENDING', null],
    ]);
    expect(JSON.stringify(listed)).not.toContain(DISCORD_TOKEN);
    // A FAILED alert goes again.
    clock.now += 60_000;
    expect(await admin.redeliver('evt-admin')).toMatchObject({
      id: 'evt-admin',
      status: 'PENDING',
      nextAttemptAt: new Date(clock.now),
    });
    await alerts.deliverDue();
    expect(received).toHaveLength(2);
    expect(await alerts.deliveries(1)).toMatchObject([{ status: 'DELIVERED', attempts: 2, lastStatusCode: 204 }]);
    await expect(admin.redeliver('evt-none')).rejects.toMatchObject({ extensions: { code: 'NOT_FOUND' } });
  });

  it('is made from the configuration: none without a vault, else its file beside the vault', async () => {
    const settings = {
      vaultFile: join(folder, 'vault.json'),
      redisUrl: null,
      redisPrefix: 'statev:',
      publicUrl: null,
      webhookAllowHosts: [],
      webhookTimeoutMs: 10_000,
    };
    expect(await createAlertOutbox({ ...settings, vaultMasterKey: null })).toBeNull();
    const posted: string[] = [];
    const post = (url: string): Promise<WebhookAnswer> => {
      posted.push(url);
      return Promise.resolve({ status: 204, problem: null });
    };
    const made = await createAlertOutbox({ ...settings, vaultMasterKey: MASTER_KEY }, { now: () => clock.now, post });
    if (!made) throw new Error('no outbox');
    opened.push(made);
    await made.enqueue(anEvent('evt-config'), DISCORD);
    expect(await readFile(join(folder, 'vault.json.alerts-outbox.json'), 'utf8')).toContain('evt-config');
    // Started: the enqueue starts a round at once.
    await until(() => posted.length === 1, 'the first attempt');
    expect(posted).toEqual([DISCORD_URL]);
  });

  it("keeps a Discord URL out of the log when a target or createAlert's variables are logged", () => {
    const lines: string[] = [];
    const logger = createLogger(
      'info',
      new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(chunk.toString()), done()) }),
    );
    logger.info(
      {
        target: { kind: 'DISCORD', url: DISCORD_URL },
        variables: { input: { url: DISCORD_URL } },
        alert: { target: { url: DISCORD_URL } },
      },
      'alert',
    );
    expect(lines.join('')).toContain('[redacted]');
    expect(lines.join('')).not.toContain(DISCORD_TOKEN);
  });
});
