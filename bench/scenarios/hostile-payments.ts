/**
 * The hostile scenario's payment attacks, hooked into
 * bench/scenarios/hostile.ts:
 *
 * - `payment-requests-burst`: one premium key sends 1,500 `createPaymentRequest` for one
 *   company, 8 at a time, against the gateway: the first `PAYMENT_OPEN_REQUESTS_MAX` (1,000)
 *   are stored, the rest refused with CONFLICT before any upstream request; `/healthz` and
 *   the event loop measured by the scenario as for every attack.
 * - `payment-store-50000`: in the bench process, a file store holding 50,000 requests (25
 *   companies at the bound: 1,000 open and 1,000 closed each), then 20 polls of a 25-transfer
 *   page, a create and an expiry sweep: the event-loop time (active time of
 *   `performance.eventLoopUtilization`) of each, target under 50 ms; RSS growth reported.
 * - `webhook-slow-receivers`: in the bench process, three webhooks of one company, one whose
 *   receiver hangs, one that answers 200 and sends a byte every 2 s, one healthy; six events
 *   in a row: how long after each the healthy receiver got it (target ≤ 1 s).
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { newReference } from '../../src/domains/payments/payment-reference';
import { PaymentDesk } from '../../src/domains/payments/payment-request.service';
import { FilePaymentStore } from '../../src/domains/payments/payment-request.file-store';
import { REQUEST_MAC } from '../../src/domains/payments/payment-request.store';
import type { StoredRequest } from '../../src/domains/payments/payment-request.store';
import { PaymentStatus } from '../../src/domains/payments/payment-request.type';
import { WebhookDispatcher } from '../../src/domains/payments/payment-webhook.dispatcher';
import { FIXTURE_IDS } from '../../src/simulator';
import { webhookPoster } from '../../src/upstream/webhook-post';
import { RecordMac } from '../../src/vault';
import { PREMIUM_KEY, round } from '../lib/bench';
import { graphqlHeaders } from '../lib/http';
import type { Service } from '../lib/processes';

/** What one attack reports besides the timings (as hostile.ts's). */
type Outcome = Record<string, unknown> & { internalErrors: number };

/** One attack (as hostile.ts's). */
interface PaymentAttack {
  name: string;
  description: string;
  run: (gateway: Service) => Promise<Outcome>;
}

/** Event-loop time one poll, create or sweep may take at 50,000 stored requests, ms. */
const STORE_TARGET_MS = 50;
/** How much later than the event the healthy webhook may get it, ms. */
const WEBHOOK_TARGET_MS = 1000;

const CREATE = 'mutation($i: CreatePaymentRequestInput!) { createPaymentRequest(input: $i) { reference } }';

async function requestBurst(gateway: Service, count: number): Promise<Outcome> {
  const codes: Record<string, number> = {};
  let internalErrors = 0;
  let next = 0;
  const body = JSON.stringify({
    query: CREATE,
    variables: { i: { factoryId: FIXTURE_IDS.shop, bankAccountId: FIXTURE_IDS.shopMainAccount, amount: 1 } },
  });
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < count) {
        next += 1;
        const response = await fetch(`${gateway.origin}/graphql`, {
          method: 'POST',
          headers: graphqlHeaders(PREMIUM_KEY, false),
          body,
          signal: AbortSignal.timeout(60_000),
        });
        const text = await response.text();
        const code = /"code":"([A-Z_]+)"/.exec(text)?.[1] ?? (response.ok ? 'ok' : String(response.status));
        codes[code] = (codes[code] ?? 0) + 1;
        if (response.status >= 500 || code === 'INTERNAL_SERVER_ERROR') internalErrors += 1;
      }
    }),
  );
  return { requests: count, codes, internalErrors };
}

/** Event-loop active time of `work`, ms. */
async function activeMs(work: () => Promise<unknown>): Promise<number> {
  const before = performance.eventLoopUtilization();
  await work();
  return round(performance.eventLoopUtilization(before).active);
}

async function storeAt50000(): Promise<Outcome> {
  const folder = mkdtempSync(join(tmpdir(), 'bench-payments-'));
  const rssBefore = process.memoryUsage().rss;
  try {
    const mac = new RecordMac([randomBytes(32)]);
    const owner = 'bench-owner';
    const lines: string[] = [];
    const open: StoredRequest[] = [];
    for (let company = 0; company < 25; company += 1) {
      for (let i = 0; i < 2000; i += 1) {
        const closed = i < 1000;
        const request: StoredRequest = {
          owner,
          reference: newReference(),
          factoryId: `f${company}`,
          bankAccountId: `a${company}`,
          vban: `47${company}`,
          amount: 10,
          status: closed ? PaymentStatus.CANCELLED : PaymentStatus.PENDING,
          transfers: [],
          note: 'bench',
          createdAt: i,
          expiresAt: closed ? null : 1e15,
          settledAt: null,
          ...(closed ? { closedAt: i } : {}),
        };
        if (!closed && company === 0) open.push(request);
        lines.push(JSON.stringify({ op: 'request', v: { ...request, mac: mac.sign(REQUEST_MAC, request) } }));
      }
    }
    const path = join(folder, 'payments.json');
    writeFileSync(path, `${lines.join('\n')}\n`);
    const store = await FilePaymentStore.open(path, { mac, keptPerCompany: 1000 });
    const desk = new PaymentDesk(store, { openMax: 1000 });
    const caller = { apiKey: 'unused', keyId: owner };
    const pollMs: number[] = [];
    for (let poll = 0; poll < 20; poll += 1) {
      const transactions = Array.from({ length: 25 }, (_, i) => ({
        amount: 1,
        reference: `Invoice ${open[poll * 25 + i]?.reference ?? ''}`,
        senderVban: '4799001',
        receiverVban: '470',
        timestamp: new Date(1_700_000_000_000 + poll * 100 + i),
      }));
      pollMs.push(
        await activeMs(() =>
          desk.observe(owner, 'a0', '470', { totalTransactions: 25 * (poll + 1), transactions }, null),
        ),
      );
    }
    const cancelMs = await activeMs(() => desk.cancel(owner, open[600]?.reference ?? ''));
    const createMs = await activeMs(() =>
      desk.create(caller, {
        factoryId: 'f0',
        bankAccountId: 'a0',
        vban: '470',
        amount: 5,
        expiresInSeconds: 60,
        note: null,
      }),
    );
    const sweepMs = await activeMs(() => desk.sweep());
    await desk.close();
    const worst = Math.max(...pollMs, createMs, cancelMs, sweepMs);
    return {
      stored: lines.length,
      pollMs: {
        first: pollMs[0],
        max: Math.max(...pollMs),
        median: [...pollMs].sort((a, b) => a - b)[10],
        all: pollMs,
      },
      createMs,
      cancelMs,
      sweepMs,
      rssGrowthMb: round((process.memoryUsage().rss - rssBefore) / 1048576),
      targets: { everyOperationUnder50Ms: worst < STORE_TARGET_MS },
      internalErrors: 0,
    };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

async function listen(handle: (response: ServerResponse) => void): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    request.resume();
    handle(response);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` };
}

async function slowReceivers(): Promise<Outcome> {
  const held: ServerResponse[] = [];
  const timers: NodeJS.Timeout[] = [];
  const hanging = await listen((response) => held.push(response));
  const trickling = await listen((response) => {
    response.writeHead(200);
    timers.push(setInterval(() => response.write('.'), 2000));
  });
  const healthy = await listen((response) => response.end('ok'));
  const caller = { apiKey: 'unused', keyId: 'bench-webhooks' };
  const desk = new PaymentDesk(
    await FilePaymentStore.open(null, { mac: new RecordMac([randomBytes(32)]), keptPerCompany: 1000 }),
  );
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const targets = [
    { id: 'whk_hang', url: hanging.url },
    { id: 'whk_trickle', url: trickling.url },
    { id: 'whk_ok', url: healthy.url },
  ].map((target) => ({ ...target, factoryId: 'f1', secret, caller }));
  const hooks = new WebhookDispatcher(desk, () => targets, {
    post: webhookPoster({ allowHosts: [], timeoutMs: 10_000 }),
  });
  desk.outboxWith((event) => hooks.entries(event));
  const delays: number[] = [];
  try {
    for (let event = 0; event < 6; event += 1) {
      const request = await desk.create(caller, {
        factoryId: 'f1',
        bankAccountId: 'a1',
        vban: '4711002',
        amount: 1,
        expiresInSeconds: null,
        note: null,
      });
      const got = once(healthy.server, 'request');
      const started = performance.now();
      await desk.observe(
        caller.keyId,
        'a1',
        '4711002',
        {
          totalTransactions: event + 1,
          transactions: [
            {
              amount: 1,
              reference: request.reference,
              senderVban: '4799001',
              receiverVban: '4711002',
              timestamp: new Date(1_700_000_000_000 + event),
            },
          ],
        },
        null,
      );
      void hooks.deliverDue();
      await got;
      delays.push(round(performance.now() - started));
    }
  } finally {
    for (const timer of timers) clearInterval(timer);
    for (const response of held) response.destroy();
    for (const { server } of [hanging, trickling, healthy]) {
      server.closeAllConnections();
      server.close();
    }
    await desk.close();
  }
  return {
    healthyDelaysMs: delays,
    targets: { healthyWithin1s: Math.max(...delays) <= WEBHOOK_TARGET_MS },
    internalErrors: 0,
  };
}

/** The payment attacks of the hostile scenario (see the module comment). */
export function paymentAttacks(): PaymentAttack[] {
  return [
    {
      name: 'payment-requests-burst',
      description:
        '1,500 createPaymentRequest for one company from one premium key, 8 at a time (1,000 stored, the rest CONFLICT)',
      run: (g) => requestBurst(g, 1500),
    },
    {
      name: 'payment-store-50000',
      description:
        'in the bench process: 20 polls, a cancel, a create and a sweep against a file store of 50,000 requests; event-loop time of each (target < 50 ms)',
      run: () => storeAt50000(),
    },
    {
      name: 'webhook-slow-receivers',
      description:
        "in the bench process: six events to three webhooks (one hangs, one trickles a byte every 2 s, one healthy); the healthy one's delay (target ≤ 1 s)",
      run: () => slowReceivers(),
    },
  ];
}
