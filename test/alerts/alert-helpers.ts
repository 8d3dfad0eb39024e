/**
 * What the alert delivery tests share: a master key, events of each kind, an outbox over an
 * in-memory (or file) store whose clock the test moves, and a Discord stand-in (an undici
 * MockAgent for discord.com, resolved to a public address by a fixed resolver: no DNS).
 */
import { randomBytes } from 'node:crypto';
import { MockAgent } from 'undici';
import type { Dispatcher } from 'undici';
import type { AlertEvent, AlertFacts } from '../../src/alerts/alert-event';
import { AlertOutbox } from '../../src/alerts/alert-outbox';
import { FileAlertOutboxStore } from '../../src/alerts/alert-outbox.store';
import type { AlertOutboxStore } from '../../src/alerts/alert-outbox.store';
import { webhookPoster } from '../../src/upstream/webhook-post';
import type { HostResolver } from '../../src/upstream/outbound-url';

export const MASTER_KEY = randomBytes(32).toString('base64');
export const DISCORD_TOKEN = 'Tok3n-ABCDEFghijklmnopqrstuvwxyz0123456789_secretpart';
export const DISCORD_URL = `https://discord.com/api/webhooks/112233/${DISCORD_TOKEN}`;
export const T0 = Date.now();

/** A resolver: every host is the given address. */
export const resolvesTo =
  (address: string): HostResolver =>
  () =>
    Promise.resolve([{ address, family: address.includes(':') ? 6 : 4 }]);

/** A STOCK_BELOW event (or another kind's facts). */
export function anEvent(eventId: string, facts: Partial<AlertFacts> = {}): AlertEvent {
  return {
    eventId,
    ruleId: 'alr_1',
    character: 'Maria',
    detectedAt: new Date(T0).toISOString(),
    facts: {
      kind: 'STOCK_BELOW',
      factoryId: 'f1',
      factoryName: 'Kiosk Nord',
      store: 'STORE',
      item: 'Water',
      amount: 3,
      threshold: 10,
      ...facts,
    } as AlertFacts,
  };
}

/** One request the stand-in got. */
export interface Received {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** A MockAgent standing in for https://discord.com (and https://hooks.example): each request recorded, answered by `answer`. */
export function discordStandIn(
  answer: (request: Received) => {
    statusCode: number;
    data?: string;
    responseOptions?: { headers: Record<string, string> };
  },
): { agent: MockAgent; received: Received[] } {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const received: Received[] = [];
  for (const origin of ['https://discord.com', 'https://hooks.example']) {
    agent
      .get(origin)
      .intercept({ path: () => true, method: 'POST' })
      .reply((options) => {
        const request = {
          path: options.path,
          headers: Object.fromEntries(
            Object.entries(options.headers as Record<string, string>).map(([k, v]) => [k.toLowerCase(), String(v)]),
          ),
          body: String(options.body),
        };
        received.push(request);
        const { statusCode, data, responseOptions } = answer(request);
        return { statusCode, data: data ?? '', responseOptions: responseOptions ?? {} };
      })
      .persist();
  }
  return { agent, received };
}

/** An outbox with the test's clock (`clock.now`), posting through `dispatcher` (or for real, to loopback). */
export async function anOutbox(
  clock: { now: number },
  options: {
    dispatcher?: Dispatcher;
    store?: AlertOutboxStore;
    timeoutMs?: number;
    resolve?: HostResolver;
    errors?: string[];
  } = {},
): Promise<AlertOutbox> {
  const store = options.store ?? (await FileAlertOutboxStore.open(null));
  const post = webhookPoster({
    allowHosts: [],
    timeoutMs: options.timeoutMs ?? 10_000,
    resolve: options.resolve ?? resolvesTo('93.184.215.14'),
    dispatcher: options.dispatcher,
  });
  return new AlertOutbox(store, {
    masterKey: MASTER_KEY,
    post,
    publicUrl: 'https://gateway.example',
    now: () => clock.now,
    onError: (error) => options.errors?.push(error.message),
  });
}
