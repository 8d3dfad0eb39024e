import { createHash } from 'node:crypto';
import { compactText, compactUtf8 } from './compact-json';
import type { UpstreamFailure } from './cache-entry';
import type { CacheRecord, StoredEntry } from './upstream-cache';

/*
 * The cache file's format (see `CacheFile`), apart from reading and writing the file:
 * what bytes a snapshot of the process cache becomes, and how those bytes are checked
 * and read back.
 */

/** First line of every cache file, then the format version. */
export const CACHE_FILE_MAGIC = 'statev-gateway-upstream-cache';
/** The format this code reads and writes. A file of another version is set aside, never guessed at. */
export const CACHE_FILE_VERSION = 1;

/**
 * The bytes of a cache file holding `records` (least recently used first): the format
 * line, the JSON header, one line per entry and the `#end` checksum line.
 *
 * @param writtenAt - epoch ms, for the header
 * @param secretTag - the HMAC tag of `KEY_HASH_SECRET` (see `CacheFile`)
 */
export function encodeCacheFile(records: readonly CacheRecord[], writtenAt: number, secretTag: string): Buffer {
  const chunks: Buffer[] = [
    Buffer.from(
      `${CACHE_FILE_MAGIC} ${CACHE_FILE_VERSION}\n${JSON.stringify({ writtenAt, secretTag, entries: records.length })}\n`,
    ),
  ];
  for (const { key, entry, expiresAt } of records) {
    const head = JSON.stringify([key, entry.storedAt, Math.round(expiresAt), entry.failure ? 'f' : 'b']);
    chunks.push(
      Buffer.from(`${head}\t`),
      entry.failure ? Buffer.from(JSON.stringify(entry.failure)) : compactUtf8(entry.json),
      NEWLINE,
    );
  }
  const hash = createHash('sha256');
  for (const chunk of chunks) hash.update(chunk);
  chunks.push(Buffer.from(`#end ${hash.digest('hex')}\n`));
  return Buffer.concat(chunks);
}

const NEWLINE = Buffer.from('\n');

type Parsed =
  | { ok: true; records: CacheRecord[] }
  | { ok: false; reason: 'corrupt' | 'other-version' | 'other-secret'; detail: string };

/** Reads a cache file's content, checking its format line, checksum, header and every entry. */
export function parseCacheFile(content: Buffer, secretTag: string): Parsed {
  const corrupt = (detail: string): Parsed => ({ ok: false, reason: 'corrupt', detail });
  const firstEnd = content.indexOf(0x0a);
  const first = content.subarray(0, firstEnd < 0 ? Math.min(content.length, 200) : firstEnd).toString('utf8');
  const magic = /^statev-gateway-upstream-cache (\S+)$/.exec(first);
  if (!magic) return corrupt('not a gateway cache file');
  if (magic[1] !== String(CACHE_FILE_VERSION))
    return {
      ok: false,
      reason: 'other-version',
      detail: `format ${magic[1]}, this gateway reads ${CACHE_FILE_VERSION}`,
    };

  const endAt = content.lastIndexOf('\n#end ', content.length - 2);
  if (endAt < 0 || content[content.length - 1] !== 0x0a) return corrupt('incomplete (no end line)');
  const expected = content.subarray(endAt + 6, content.length - 1).toString('latin1');
  const actual = createHash('sha256')
    .update(content.subarray(0, endAt + 1))
    .digest('hex');
  if (expected !== actual) return corrupt('checksum mismatch');

  const lines = splitLines(content.subarray(firstEnd + 1, endAt));
  const headerLine = lines.shift();
  let header: unknown;
  try {
    header = JSON.parse(headerLine?.toString('utf8') ?? '');
  } catch {
    return corrupt('header is not JSON');
  }
  if (!isRecord(header) || typeof header.secretTag !== 'string' || header.entries !== lines.length)
    return corrupt('bad header');
  if (header.secretTag !== secretTag)
    return { ok: false, reason: 'other-secret', detail: 'written under another KEY_HASH_SECRET' };

  const records: CacheRecord[] = [];
  for (const line of lines) {
    const record = parseRecord(line);
    if (!record) return corrupt('bad entry');
    records.push(record);
  }
  return { ok: true, records };
}

function parseRecord(line: Buffer): CacheRecord | null {
  const tab = line.indexOf(0x09);
  if (tab < 0) return null;
  let head: unknown;
  try {
    head = JSON.parse(line.subarray(0, tab).toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(head) || head.length !== 4) return null;
  const [key, storedAt, expiresAt, kind] = head as unknown[];
  if (typeof key !== 'string' || !key.includes('|') || !Number.isFinite(storedAt) || !Number.isFinite(expiresAt))
    return null;
  const payload = line.subarray(tab + 1);
  let entry: StoredEntry;
  if (kind === 'b') {
    entry = { storedAt: storedAt as number, json: compactText(payload) };
  } else if (kind === 'f') {
    const failure = parseFailure(payload);
    if (!failure) return null;
    entry = { storedAt: storedAt as number, failure };
  } else {
    return null;
  }
  return { key, entry, expiresAt: expiresAt as number };
}

function parseFailure(payload: Buffer): UpstreamFailure | null {
  let value: unknown;
  try {
    value = JSON.parse(payload.toString('utf8'));
  } catch {
    return null;
  }
  if (!isRecord(value) || typeof value.code !== 'string' || !isRecord(value.upstream) || !isRecord(value.extra))
    return null;
  const upstream = value.upstream;
  if (
    typeof upstream.endpoint !== 'string' ||
    typeof upstream.message !== 'string' ||
    !(upstream.status === null || typeof upstream.status === 'number')
  )
    return null;
  return value as unknown as UpstreamFailure;
}

function splitLines(content: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  let start = 0;
  while (start < content.length) {
    let end = content.indexOf(0x0a, start);
    if (end < 0) end = content.length;
    lines.push(content.subarray(start, end));
    start = end + 1;
  }
  return lines;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
