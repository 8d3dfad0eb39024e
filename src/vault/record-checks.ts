/**
 * The checks every record of the vault document passes before anything acts on it: its
 * shape (no null field, no wrong type, no unparseable date) and, for the records that are
 * not sealed (tokens, webhooks and alert rules), its MAC under the master key (see `RecordMac`). A
 * record that fails is refused, named in one log line (its id and what is wrong, never a
 * secret or a hash) and left as it is in the storage.
 */
import type { RecordMac } from './record-mac';
import { parseGrant } from './grants';

/** The MAC kinds of the vault's records: a MAC of one kind never verifies as another. */
export const RECORD_KINDS = { token: 'vault-token', webhook: 'vault-webhook', alert: 'vault-alert' } as const;

/** What a record's MAC says. */
export type RecordTrust = 'signed' | 'unsigned' | 'forged';

/** An ISO 8601 UTC time as `Date.toISOString` writes it (milliseconds optional). */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/;

/** True when `value` is an ISO time that parses to a date. */
export function isIsoTime(value: unknown): value is string {
  return typeof value === 'string' && ISO_TIME.test(value) && !Number.isNaN(Date.parse(value));
}

/** A plain object (not null, not an array). */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The record without its `mac` field: what the MAC covers. */
function unsigned(record: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { mac: _mac, ...rest } = record;
  return rest;
}

/**
 * What a record's MAC says: `signed` (it verifies under a master key of the setting),
 * `unsigned` (no MAC: written before records were signed; `vault rotate` signs it) or
 * `forged` (a MAC that does not verify: the record was edited outside the command line).
 */
export function recordTrust(
  mac: RecordMac,
  kind: keyof typeof RECORD_KINDS,
  record: Readonly<Record<string, unknown>>,
): RecordTrust {
  if (record.mac === undefined) return 'unsigned';
  return mac.verify(RECORD_KINDS[kind], unsigned(record), record.mac) ? 'signed' : 'forged';
}

/**
 * Why gateways refuse a record, as lists show it, or null when they accept it: `malformed: …`
 * (`problem`, from the record's `…RecordProblem`), not signed (written before records were
 * signed: `vault rotate` signs it) or a MAC that does not verify.
 *
 * @param trusted - the records whose MAC verifies (see vault.ts)
 */
export function refusalOf(problem: string | null, trusted: ReadonlySet<object>, record: unknown): string | null {
  if (problem !== null) return `malformed: ${problem}`;
  if (trusted.has(record as object)) return null;
  return (record as { mac?: unknown }).mac === undefined
    ? 'not signed: run statev-gateway vault rotate'
    : 'its MAC does not verify';
}

/** Sets a record's `mac` to its MAC under the current master key. */
export function signRecord(mac: RecordMac, kind: keyof typeof RECORD_KINDS, record: { mac?: string }): void {
  record.mac = mac.sign(RECORD_KINDS[kind], unsigned(record as Record<string, unknown>));
}

/** The first problem of a record's fields, or null. */
function firstProblem(checks: ReadonlyArray<readonly [string, boolean]>): string | null {
  const failed = checks.find(([, ok]) => !ok);
  return failed ? failed[0] : null;
}

const isString = (value: unknown): value is string => typeof value === 'string' && value !== '';
const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((each) => typeof each === 'string');
const isWrapped = (value: unknown): boolean => isObject(value) && isString(value.kid) && isString(value.box);

/** A record's id for a message: its `id` when it is a short string, else its position. */
export function recordName(record: unknown, index: number): string {
  const id = isObject(record) ? record.id : undefined;
  return typeof id === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(id) ? id : `number ${index + 1}`;
}

/**
 * What is wrong with a token record's fields, or null when nothing is: each field present
 * with its type, the dates ISO times (an unparseable `expiresAt` is refused, never taken
 * as "never expires"), every grant one of `GRANT_FORMS`, a budget share a whole number of 1 or more.
 */
export function tokenRecordProblem(record: unknown): string | null {
  if (!isObject(record)) return 'it is not an object';
  return firstProblem([
    ['id is not a string', isString(record.id)],
    ['hash is not a string', isString(record.hash)],
    // An admin-only token (the administration graph) covers no character.
    [
      'characters is not a list of key ids',
      isStrings(record.characters) &&
        (record.characters.length > 0 ||
          (isStrings(record.grants) && record.grants.length > 0 && record.grants.every((grant) => grant === 'admin'))),
    ],
    [
      'grants is not a list of grants',
      isStrings(record.grants) &&
        record.grants.length > 0 &&
        record.grants.every((grant) => parseGrant(grant) !== null),
    ],
    ['createdAt is not an ISO time', isIsoTime(record.createdAt)],
    ['expiresAt is not an ISO time', isIsoTime(record.expiresAt)],
    ['origin is neither null nor a string', record.origin === null || isString(record.origin)],
    [
      'budgetShare is neither null nor a whole number of 1 or more',
      record.budgetShare === null || (Number.isSafeInteger(record.budgetShare) && (record.budgetShare as number) >= 1),
    ],
    ['revokedAt is neither null nor an ISO time', record.revokedAt === null || isIsoTime(record.revokedAt)],
    ['label is not a string', record.label === undefined || isString(record.label)],
    ['mac is not a string', record.mac === undefined || typeof record.mac === 'string'],
  ]);
}

/** What is wrong with a webhook record's fields, or null when nothing is. */
export function webhookRecordProblem(record: unknown): string | null {
  if (!isObject(record)) return 'it is not an object';
  return firstProblem([
    ['id is not a string', isString(record.id)],
    ['keyId is not a string', isString(record.keyId)],
    ['factoryId is not a string', isString(record.factoryId)],
    ['url is not a URL', isString(record.url) && URL.canParse(record.url)],
    ['createdAt is not an ISO time', isIsoTime(record.createdAt)],
    ['dataKey is not a wrapped key', isWrapped(record.dataKey)],
    ['sealed is not a sealed value', isString(record.sealed)],
    ['mac is not a string', record.mac === undefined || typeof record.mac === 'string'],
  ]);
}

/** What is wrong with an alert rule record's fields, or null when nothing is. */
export function alertRecordProblem(record: unknown): string | null {
  if (!isObject(record)) return 'it is not an object';
  return firstProblem([
    ['id is not a string', isString(record.id)],
    ['keyId is not a string', isString(record.keyId)],
    [
      'kind is not an alert kind',
      record.kind === 'STOCK_BELOW' ||
        record.kind === 'TRANSACTION_ADDED' ||
        record.kind === 'OUTBID' ||
        record.kind === 'RENT_OVERDUE',
    ],
    ['params is not an object', isObject(record.params)],
    ['target is not DISCORD or WEBHOOK', record.target === 'DISCORD' || record.target === 'WEBHOOK'],
    ['shownUrl is not a string', isString(record.shownUrl)],
    ['createdAt is not an ISO time', isIsoTime(record.createdAt)],
    ['dataKey is not a wrapped key', isWrapped(record.dataKey)],
    ['sealed is not a sealed value', isString(record.sealed)],
    ['mac is not a string', record.mac === undefined || typeof record.mac === 'string'],
  ]);
}

/** What is wrong with a key record's fields, or null when nothing is (its content is sealed: AES-GCM authenticates it). */
export function keyRecordProblem(record: unknown): string | null {
  if (!isObject(record)) return 'it is not an object';
  return firstProblem([
    ['id is not a string', isString(record.id)],
    ['name is not a string', isString(record.name)],
    ['addedAt is not an ISO time', isIsoTime(record.addedAt)],
    ['dataKey is not a wrapped key', isWrapped(record.dataKey)],
    ['sealed is not a sealed value', isString(record.sealed)],
  ]);
}
