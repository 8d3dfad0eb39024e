/**
 * Alert rules in the vault (`statev-gateway alerts add|list|remove`, the administration
 * graph's `createAlert`): what a character's key watches (a company's stock, a bank account,
 * the character's auctions, a building's tenants) and where an alert goes. The target URL is
 * sealed under a data key of its own, wrapped by the master key, as keys are: a Discord
 * webhook URL is a credential (its last part is the token). A WEBHOOK rule's signing secret
 * (`whsec_…`, Standard Webhooks) is sealed with it and shown once, when the rule is added.
 * Lists show the URL with its secret part replaced by an ellipsis ({@link shownUrl}).
 */
import { randomBytes } from 'node:crypto';
import { checkOutboundUrl, OutboundUrlError } from '../upstream/outbound-url';
import { newDataKey, open, seal } from './envelope';
import type { MasterKeys, WrappedKey } from './envelope';
import { VaultUsageError } from './usage-error';
import type { RecordMac } from './record-mac';
import { alertRecordProblem, recordName, recordTrust, refusalOf } from './record-checks';

/** What a rule watches (the administration graph's `AlertKind`). */
export type AlertRuleKind = 'STOCK_BELOW' | 'TRANSACTION_ADDED' | 'OUTBID' | 'RENT_OVERDUE';

/** The kinds, in the graph's order. */
const ALERT_RULE_KINDS: readonly AlertRuleKind[] = ['STOCK_BELOW', 'TRANSACTION_ADDED', 'OUTBID', 'RENT_OVERDUE'];

/** Where a rule's alerts go. */
export type AlertTargetName = 'DISCORD' | 'WEBHOOK';

/** Which store a STOCK_BELOW rule reads. */
export type AlertStoreName = 'STORE' | 'MACHINE' | 'COUNTER';

/** What a rule watches, by kind (the fields its kind needs; the others absent). */
export interface AlertParams {
  /** STOCK_BELOW: the company. */
  readonly factoryId?: string;
  /** STOCK_BELOW: the item's name. */
  readonly item?: string;
  /** STOCK_BELOW: which store. */
  readonly store?: AlertStoreName;
  /** STOCK_BELOW: fires when the amount falls below this. */
  readonly threshold?: number;
  /** TRANSACTION_ADDED: the company bank account. */
  readonly bankAccountId?: string;
  /** TRANSACTION_ADDED: the smallest absolute amount that fires (0: every transaction). */
  readonly minAmount?: number;
  /** RENT_OVERDUE: the building. */
  readonly buildingId?: string;
  /** RENT_OVERDUE: days since the last payment after which a tenant is overdue. */
  readonly days?: number;
}

/** One rule as stored. */
export interface AlertRecord {
  /** `alr_` and 12 hex digits. */
  readonly id: string;
  /** The id of the key (character) that watches. */
  readonly keyId: string;
  /** What it watches. */
  readonly kind: AlertRuleKind;
  /** Its parameters. */
  readonly params: AlertParams;
  /** Where it goes. */
  readonly target: AlertTargetName;
  /** The URL as lists show it (secret parts replaced by an ellipsis). */
  readonly shownUrl: string;
  /** ISO time it was added. */
  readonly createdAt: string;
  /** Its data key, wrapped under the master key. */
  dataKey: WrappedKey;
  /** `{url, secret}` as JSON, sealed under the data key. */
  readonly sealed: string;
  /** The record's MAC (see `RecordMac`). */
  mac?: string;
}

/** A new rule, as the command line and the administration graph give it. */
export interface AlertRequest {
  /** The vault name of the character whose key watches. */
  readonly character: string;
  /** What it watches. */
  readonly kind: AlertRuleKind;
  /** Its parameters (those of its kind are required). */
  readonly params: AlertParams;
  /** Where it goes. */
  readonly target: AlertTargetName;
  /** The target URL (https; http only to this machine). */
  readonly url: string;
}

/** A rule as lists show it (never the URL's secret part or the signing secret). */
export interface AlertSummary {
  /** `alr_…`. */
  readonly id: string;
  /** The vault name of the character whose key watches. */
  readonly character: string;
  /** What it watches. */
  readonly kind: AlertRuleKind;
  /** Its parameters. */
  readonly params: AlertParams;
  /** Where it goes. */
  readonly target: AlertTargetName;
  /** The URL with its secret part replaced by an ellipsis. */
  readonly url: string;
  /** When it was added. */
  readonly createdAt: Date;
  /** Null when its record verifies; else why gateways refuse it. */
  readonly refused: string | null;
}

/** A rule opened for the gateway: its URL and secret in clear, and the key that watches (never log them). */
export interface OpenedAlert {
  /** `alr_…`. */
  readonly id: string;
  /** The vault name of the character whose key watches. */
  readonly character: string;
  /** What it watches. */
  readonly kind: AlertRuleKind;
  /** Its parameters. */
  readonly params: AlertParams;
  /** Where it goes. */
  readonly target: AlertTargetName;
  /** The URL in clear (a Discord URL is a credential). */
  readonly url: string;
  /** The URL as lists show it. */
  readonly shownUrl: string;
  /** WEBHOOK: the signing secret (`whsec_…`); null for DISCORD. */
  readonly secret: string | null;
  /** When it was added, ms since the epoch. */
  readonly createdAt: number;
  /** The StateV key that watches. */
  readonly apiKey: string;
}

/** What of the vault document the rules read and change. */
interface WithAlerts {
  readonly keys: ReadonlyArray<{ readonly id: string; readonly name: string }>;
  alerts?: AlertRecord[];
}

/** A URL with its secret parts (userinfo, query, fragment, a Discord webhook's token) replaced by an ellipsis. */
export function shownUrl(text: string): string {
  try {
    const url = new URL(text);
    const discord =
      /(^|\.)discord(app)?\.com$/.test(url.hostname) || /^\/api\/webhooks\/[^/]+\/[^/]+/.test(url.pathname);
    const path = discord ? url.pathname.replace(/^(\/api\/webhooks\/[^/]+\/).+$/, '$1…') : url.pathname;
    return `${url.protocol}//${url.username || url.password ? '…@' : ''}${url.host}${path}${url.search ? '?…' : ''}`;
  } catch {
    return '…';
  }
}

const ID_TEXT = /^[A-Za-z0-9_-]{1,64}$/;

/** The parameters of a kind, checked: each one the kind needs present and in range; the others dropped. */
export function checkAlertParams(kind: AlertRuleKind, params: AlertParams): AlertParams {
  const need = (name: keyof AlertParams, flag: string, ok: boolean, what: string): void => {
    if (params[name] === undefined || params[name] === null)
      throw new VaultUsageError(`A ${kind} rule needs ${flag} (${what}).`);
    if (!ok) throw new VaultUsageError(`${flag} must be ${what}.`);
  };
  const finite = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
  switch (kind) {
    case 'STOCK_BELOW':
      need('factoryId', '--factory / factoryId', ID_TEXT.test(params.factoryId ?? ''), 'a company id (Factory.id)');
      need(
        'item',
        '--item / item',
        typeof params.item === 'string' && params.item.trim() !== '' && params.item.length <= 200,
        'an item name of 1 to 200 characters',
      );
      need(
        'store',
        '--store / store',
        params.store === 'STORE' || params.store === 'MACHINE' || params.store === 'COUNTER',
        'store, machine or counter',
      );
      need(
        'threshold',
        '--below / threshold',
        finite(params.threshold) && (params.threshold ?? 0) > 0,
        'a number greater than 0',
      );
      return {
        factoryId: params.factoryId,
        item: params.item?.trim(),
        store: params.store,
        threshold: params.threshold,
      };
    case 'TRANSACTION_ADDED':
      need(
        'bankAccountId',
        '--bank-account / bankAccountId',
        ID_TEXT.test(params.bankAccountId ?? ''),
        'a company bank account id (BankAccount.id)',
      );
      if (
        params.minAmount !== undefined &&
        params.minAmount !== null &&
        !(finite(params.minAmount) && params.minAmount >= 0)
      )
        throw new VaultUsageError('--min-amount / minAmount must be a number of 0 or more.');
      return { bankAccountId: params.bankAccountId, minAmount: params.minAmount ?? 0 };
    case 'OUTBID':
      return {};
    case 'RENT_OVERDUE':
      need(
        'buildingId',
        '--building / buildingId',
        ID_TEXT.test(params.buildingId ?? ''),
        'a building id (Building.id)',
      );
      need(
        'days',
        '--days / days',
        Number.isSafeInteger(params.days) && (params.days ?? 0) >= 1 && (params.days ?? 0) <= 3650,
        'a whole number of days, 1 to 3650',
      );
      return { buildingId: params.buildingId, days: params.days };
    default:
      throw new VaultUsageError(`The alert kind "${String(kind)}" is not one of ${ALERT_RULE_KINDS.join(', ')}.`);
  }
}

/**
 * Checks a target URL as every request the gateway sends is checked (https; plain http only
 * to this machine; no credentials; no private, link-local or metadata address literal); the
 * host's addresses are checked again after DNS where the rule is created online and at delivery.
 *
 * @throws VaultUsageError naming the rule broken (the message never holds the URL's path or token)
 */
export function checkAlertUrl(target: AlertTargetName, url: string, allowHosts: readonly string[] = []): URL {
  try {
    const parsed = checkOutboundUrl(url, { allowHosts });
    if (
      target === 'DISCORD' &&
      parsed.protocol === 'https:' &&
      !/^\/api\/webhooks\/[^/]+\/[^/]+/.test(parsed.pathname)
    ) {
      throw new OutboundUrlError('not a Discord webhook URL (https://discord.com/api/webhooks/<id>/<token>)');
    }
    return parsed;
  } catch (error) {
    if (error instanceof OutboundUrlError)
      throw new VaultUsageError(
        `The ${target === 'DISCORD' ? 'Discord' : 'webhook'} URL is refused: ${error.message}.`,
      );
    throw error;
  }
}

/**
 * Adds a rule record to the document and returns its id and (WEBHOOK) signing secret.
 *
 * @throws VaultUsageError for an unknown character, a parameter its kind lacks, or a URL the outbound rules refuse
 */
export function addAlertRecord(
  document: WithAlerts,
  master: MasterKeys,
  request: AlertRequest,
  now: Date,
  allowHosts: readonly string[] = [],
): { readonly id: string; readonly secret: string | null; readonly record: AlertRecord } {
  const key = document.keys.find((each) => each.name === request.character);
  if (!key) throw new VaultUsageError(`The vault has no key named "${request.character}" (see keys list).`);
  if (request.target !== 'DISCORD' && request.target !== 'WEBHOOK')
    throw new VaultUsageError('An alert goes to DISCORD (--discord <url>) or WEBHOOK (--webhook <url>).');
  const params = checkAlertParams(request.kind, request.params);
  const url = checkAlertUrl(request.target, request.url, allowHosts).toString();
  const id = `alr_${randomBytes(6).toString('hex')}`;
  const secret = request.target === 'WEBHOOK' ? `whsec_${randomBytes(24).toString('base64')}` : null;
  const dataKey = newDataKey();
  const record: AlertRecord = {
    id,
    keyId: key.id,
    kind: request.kind,
    params,
    target: request.target,
    shownUrl: shownUrl(url),
    createdAt: now.toISOString(),
    dataKey: master.wrap(dataKey, `alert:${id}`),
    sealed: seal(dataKey, Buffer.from(JSON.stringify({ url, secret }), 'utf8'), `alert:${id}:${request.target}`),
  };
  (document.alerts ??= []).push(record);
  return { id, secret, record };
}

/** The rules of a document as lists show them, oldest first; `trusted`: the records whose MAC verifies. */
export function alertSummaries(document: WithAlerts, trusted: ReadonlySet<object>): AlertSummary[] {
  const names = new Map(document.keys.map((record) => [record.id, record.name]));
  return (document.alerts ?? []).map((record, index) => {
    const problem = alertRecordProblem(record);
    const text = (value: unknown): string => (typeof value === 'string' ? value : '');
    return {
      id: recordName(record, index),
      character: names.get(text(record.keyId)) ?? text(record.keyId),
      kind: record.kind,
      params: problem === null ? record.params : {},
      target: record.target,
      url: text(record.shownUrl),
      createdAt: new Date(problem === null ? record.createdAt : 0),
      refused: refusalOf(problem, trusted, record),
    };
  });
}

/**
 * Removes a rule record.
 *
 * @throws VaultUsageError when there is none of that id
 */
export function removeAlertRecord(document: WithAlerts, id: string): void {
  const index = (document.alerts ?? []).findIndex((record) => record.id === id);
  if (index < 0) throw new VaultUsageError(`The vault has no alert rule with id "${id}" (see alerts list).`);
  document.alerts?.splice(index, 1);
}

/** Re-wraps the data key of every rule `rewrap` picks under the current master key (`vault rotate`). */
export function rewrapAlerts(document: WithAlerts, master: MasterKeys, rewrap: (record: AlertRecord) => boolean): void {
  for (const record of (document.alerts ?? []).filter(rewrap))
    record.dataKey = master.wrap(master.unwrap(record.dataKey, `alert:${record.id}`), `alert:${record.id}`);
}

/**
 * The rules whose key is still in the vault, opened. A record that is malformed or whose MAC
 * does not verify is left out (it could send a company's figures to a URL put there by hand)
 * and named in `problems`.
 */
export function openAlerts(
  document: WithAlerts,
  keys: ReadonlyMap<string, { readonly name: string; readonly apiKey: string }>,
  master: MasterKeys,
  mac: RecordMac,
): { opened: OpenedAlert[]; problems: string[] } {
  const problems: string[] = [];
  const opened = (document.alerts ?? []).flatMap((value: unknown, index) => {
    const problem = alertRecordProblem(value);
    if (problem !== null) {
      problems.push(`Alert record ${recordName(value, index)} is refused: ${problem}.`);
      return [];
    }
    const record = value as AlertRecord;
    const trust = recordTrust(mac, 'alert', record as unknown as Record<string, unknown>);
    if (trust !== 'signed') {
      problems.push(
        `Alert record ${record.id} is refused: ${trust === 'unsigned' ? 'it is not signed' : "its MAC does not verify (it was changed outside statev-gateway's command line)"}.`,
      );
      return [];
    }
    const key = keys.get(record.keyId);
    if (!key) return [];
    const plain = JSON.parse(
      open(
        master.unwrap(record.dataKey, `alert:${record.id}`),
        record.sealed,
        `alert:${record.id}:${record.target}`,
      ).toString('utf8'),
    ) as { url: string; secret: string | null };
    return [
      {
        id: record.id,
        character: key.name,
        kind: record.kind,
        params: record.params,
        target: record.target,
        url: plain.url,
        shownUrl: record.shownUrl,
        secret: plain.secret,
        createdAt: Date.parse(record.createdAt),
        apiKey: key.apiKey,
      },
    ];
  });
  return { opened, problems };
}
