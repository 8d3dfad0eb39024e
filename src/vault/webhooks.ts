/**
 * Webhooks in the vault (`statev-gateway webhooks add|list|remove`): where a company's
 * payment events are POSTed, with the key (character) that polls for them. The signing
 * secret (`whsec_…`) is sealed under a data key of its own, wrapped by the master key, as
 * keys are; it is shown once, when the webhook is added.
 */
import { randomBytes } from 'node:crypto';
import { newDataKey, open, seal } from './envelope';
import type { MasterKeys, WrappedKey } from './envelope';
import { VaultUsageError } from './usage-error';
import type { RecordMac } from './record-mac';
import { recordName, recordTrust, refusalOf, webhookRecordProblem } from './record-checks';

/** One webhook as stored. */
export interface WebhookRecord {
  /** `whk_` and 12 hex digits. */
  readonly id: string;
  /** The id of the key (character) whose requests it reports and whose key polls. */
  readonly keyId: string;
  /** The company. */
  readonly factoryId: string;
  /** The https URL events are POSTed to. */
  readonly url: string;
  /** ISO time it was added. */
  readonly createdAt: string;
  /** Its data key, wrapped under the master key. */
  dataKey: WrappedKey;
  /** The signing secret, sealed under the data key. */
  readonly sealed: string;
  /** The record's MAC (see `RecordMac`): absent in vaults written before records were signed. */
  mac?: string;
}

/** A webhook as `webhooks list` shows it (never its secret). */
export interface WebhookSummary {
  /** `whk_…`. */
  readonly id: string;
  /** The vault name of the character whose key polls. */
  readonly character: string;
  /** The company. */
  readonly factoryId: string;
  /** Where events go. */
  readonly url: string;
  /** When it was added. */
  readonly createdAt: Date;
  /** Null when its record verifies; else why gateways refuse it (malformed, not signed, or a MAC that does not verify). */
  readonly refused: string | null;
}

/** A webhook opened for the gateway: with its signing secret and the key that polls. */
export interface OpenedWebhook {
  /** `whk_…`. */
  readonly id: string;
  /** The company. */
  readonly factoryId: string;
  /** Where events go. */
  readonly url: string;
  /** The signing secret (`whsec_` and base64), as the Standard Webhooks specification has it. */
  readonly secret: string;
  /** The StateV key that polls the company's accounts; never logged. */
  readonly apiKey: string;
}

/** What of the vault document the webhooks read and change. */
interface WithWebhooks {
  readonly keys: ReadonlyArray<{ readonly id: string; readonly name: string }>;
  webhooks?: WebhookRecord[];
}

/** Hosts a webhook may be sent to over plain http: this machine only. */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Adds a webhook record to the document and returns its id and secret.
 *
 * @throws VaultUsageError for an unknown character, a bad company id or a URL that is not https (or http to a loopback host) without credentials
 */
export function addWebhookRecord(
  document: WithWebhooks,
  master: MasterKeys,
  hook: { character: string; factoryId: string; url: string; now: Date },
): { readonly id: string; readonly secret: string } {
  const key = document.keys.find((each) => each.name === hook.character);
  if (!key) throw new VaultUsageError(`The vault has no key named "${hook.character}" (see keys list).`);
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(hook.factoryId))
    throw new VaultUsageError('--factory takes a company id (Factory.id).');
  let parsed: URL | null = null;
  try {
    parsed = new URL(hook.url);
  } catch {
    parsed = null;
  }
  // Plain http only to this machine (a receiver beside the gateway): never across a network.
  const loopback = parsed !== null && LOOPBACK_HOSTS.has(parsed.hostname);
  if (
    !parsed ||
    !(parsed.protocol === 'https:' || (parsed.protocol === 'http:' && loopback)) ||
    parsed.username !== '' ||
    parsed.password !== ''
  ) {
    throw new VaultUsageError(
      `--url must be an https:// URL (http:// only to 127.0.0.1, ::1 or localhost) without credentials: "${hook.url}" is not.`,
    );
  }
  const id = `whk_${randomBytes(6).toString('hex')}`;
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const dataKey = newDataKey();
  (document.webhooks ??= []).push({
    id,
    keyId: key.id,
    factoryId: hook.factoryId,
    url: parsed.toString(),
    createdAt: hook.now.toISOString(),
    dataKey: master.wrap(dataKey, `webhook:${id}`),
    sealed: seal(dataKey, Buffer.from(secret, 'utf8'), `webhook:${id}:${hook.factoryId}`),
  });
  return { id, secret };
}

/**
 * The webhooks of a document as `webhooks list` shows them, oldest first.
 *
 * @param trusted - the records whose MAC verifies (see vault.ts)
 */
export function webhookSummaries(document: WithWebhooks, trusted: ReadonlySet<object>): WebhookSummary[] {
  const names = new Map(document.keys.map((record) => [record.id, record.name]));
  return (document.webhooks ?? []).map((record, index) => {
    const problem = webhookRecordProblem(record);
    const text = (value: unknown): string => (typeof value === 'string' ? value : '');
    return {
      id: recordName(record, index),
      character: names.get(text(record.keyId)) ?? text(record.keyId),
      factoryId: text(record.factoryId),
      url: text(record.url),
      createdAt: new Date(problem === null ? record.createdAt : 0),
      refused: refusalOf(problem, trusted, record),
    };
  });
}

/**
 * Removes a webhook record.
 *
 * @throws VaultUsageError when there is none of that id
 */
export function removeWebhookRecord(document: WithWebhooks, id: string): void {
  const index = (document.webhooks ?? []).findIndex((record) => record.id === id);
  if (index < 0) throw new VaultUsageError(`The vault has no webhook with id "${id}" (see webhooks list).`);
  document.webhooks?.splice(index, 1);
}

/** Re-wraps the data key of every webhook `rewrap` picks (those that verify) under the current master key (`vault rotate`). */
export function rewrapWebhooks(
  document: WithWebhooks,
  master: MasterKeys,
  rewrap: (record: WebhookRecord) => boolean,
): void {
  for (const record of (document.webhooks ?? []).filter(rewrap))
    record.dataKey = master.wrap(master.unwrap(record.dataKey, `webhook:${record.id}`), `webhook:${record.id}`);
}

/**
 * The webhooks whose key is still in the vault, with their secrets and keys opened. A record
 * that is malformed or whose MAC does not verify is left out (it could send a company's
 * events, signed, to a URL put there by hand) and named in `problems`.
 */
export function openWebhooks(
  document: WithWebhooks,
  keys: ReadonlyMap<string, { readonly apiKey: string }>,
  master: MasterKeys,
  mac: RecordMac,
): { opened: OpenedWebhook[]; problems: string[] } {
  const problems: string[] = [];
  const opened = (document.webhooks ?? []).flatMap((value: unknown, index) => {
    const problem = webhookRecordProblem(value);
    if (problem !== null) {
      problems.push(`Webhook record ${recordName(value, index)} is refused: ${problem}.`);
      return [];
    }
    const record = value as WebhookRecord;
    const trust = recordTrust(mac, 'webhook', record as unknown as Record<string, unknown>);
    if (trust !== 'signed') {
      problems.push(
        trust === 'unsigned'
          ? `Webhook record ${record.id} is refused: it is not signed (written before vault records were signed); check it with statev-gateway webhooks list, then run statev-gateway vault rotate to sign the vault's records.`
          : `Webhook record ${record.id} is refused: its MAC does not verify (it was changed outside statev-gateway's command line).`,
      );
      return [];
    }
    const key = keys.get(record.keyId);
    if (!key) return [];
    const secret = open(
      master.unwrap(record.dataKey, `webhook:${record.id}`),
      record.sealed,
      `webhook:${record.id}:${record.factoryId}`,
    ).toString('utf8');
    return [{ id: record.id, factoryId: record.factoryId, url: record.url, secret, apiKey: key.apiKey }];
  });
  return { opened, problems };
}
