/**
 * How a site document is turned into option slots and back, without any I/O:
 * canonical JSON, pieces, chunks, compression, encoding, slot titles and the manifest.
 *
 * The layout (see docs/site-documents.md):
 *
 * - The value is written as canonical JSON (object keys sorted by UTF-16 code units, no
 *   whitespace), whose UTF-8 bytes and SHA-256 identify it.
 * - The text is cut into pieces at element boundaries (an array element or an object
 *   member, with its separator and key, when the enclosing value is larger than
 *   `PIECE_BYTES`; see json-pieces.ts); pieces are packed into chunks, each compressed on its own with
 *   node's zlib and encoded (base64url, or base32768.ts) so that it fits one slot's data (at most
 *   {@link SLOT_DATA_CHARS} characters). Chunks are compressed separately so that a
 *   change of one catalogue item changes one chunk.
 * - Chunk boundaries stick to the previous version's (the manifest keeps a short hash of
 *   the piece on each side of every boundary), so a change inside one chunk does not move
 *   the others.
 * - One committing slot holds the manifest (JSON): version, the chunk slots with the hash
 *   of each chunk's data, the total SHA-256, bytes and updatedAt. It is written last.
 *
 * Every slot the gateway writes has a title `~sd:<name>:<version>:<index>/<count>:<hash>`
 * (a chunk) or `~sd:<name>:<version>:m:<hash>` (the committing slot), where `<hash>` is
 * the first {@link SHORT_HASH_CHARS} hex digits of the SHA-256 of the slot's data: a
 * reader tells the gateway's slots from anything else by the title alone, and checks each
 * slot's data against it.
 */
import { createHash } from 'node:crypto';
import { SITE_DOCUMENT_ENCODINGS } from '../../config';
import type { SiteDocumentEncoding } from '../../config';
import {
  brotliCompressSync,
  brotliDecompressSync,
  constants as zlibConstants,
  deflateRawSync,
  inflateRawSync,
} from 'node:zlib';
import { SITE_DOCUMENT_TITLE_PREFIX } from '../shared/site-document-titles';
import { fromBase32768, toBase32768 } from './base32768';
import { canonicalJson, splitPieces } from './json-pieces';

/** Most characters of a slot's data (`POST /factory/options`: at most 2400). */
export const SLOT_DATA_CHARS = 2400;
/** A new chunk is filled to at most this share of a slot, leaving room for an item that grows. */
export const CHUNK_FILL = 0.94;
/** Hex digits of the short hashes in titles and the manifest. */
export const SHORT_HASH_CHARS = 8;
/** Prefix of every title the gateway writes (the namespace access tokens need `write:siteDocument:<name>` for). */
export const TITLE_PREFIX = SITE_DOCUMENT_TITLE_PREFIX;
/** Version of the manifest format. */
export const MANIFEST_FORMAT = 1;
/** What clients write to clear a slot (an empty string is probably refused upstream). */
export const CLEARED = '.';

/** Names: 1 to 32 of a-z, 0-9, '.', '_' and '-'. */
export const NAME_PATTERN = /^[a-z0-9._-]{1,32}$/;

/** One packed chunk: its raw bytes, its slot data and the hash of that data. */
export interface EncodedChunk {
  /** The encoded data, as written to the slot. */
  data: string;
  /** Short hash of `data` (in the title and the manifest). */
  hash: string;
  /** UTF-8 bytes of canonical JSON this chunk holds. */
  bytes: number;
  /** Short hashes of its first and last piece (where the next version keeps its boundaries). */
  first: string;
  /** Short hash of the chunk's last piece. */
  last: string;
}

/** One chunk as the manifest lists it. */
export interface ManifestChunk {
  /** Slot number. */
  slot: number;
  /** Short hash of the slot's data. */
  hash: string;
  /** Short hashes of the chunk's first and last piece. */
  first: string;
  /** Short hash of the chunk's last piece. */
  last: string;
}

/** The committing slot's data: what a reader needs to find, check and join the chunks. */
export interface Manifest {
  /** Manifest format ({@link MANIFEST_FORMAT}). */
  format: number;
  /** The document's name. */
  name: string;
  /** The version this manifest commits, from 1. */
  version: number;
  /** How the chunks are compressed and encoded. */
  encoding: SiteDocumentEncoding;
  /** UTF-8 bytes of the canonical JSON text. */
  bytes: number;
  /** Lower-case hex SHA-256 of the canonical JSON text. */
  sha256: string;
  /** ISO 8601 time of the write. */
  updatedAt: string;
  /** The chunks in reading order. */
  chunks: ManifestChunk[];
}

/** What a slot title says, when the gateway wrote it. */
export type ParsedTitle =
  | { kind: 'chunk'; name: string; version: number; index: number; count: number; hash: string }
  | { kind: 'manifest'; name: string; version: number; hash: string };

/** Lower-case hex SHA-256 of a text's UTF-8 bytes (or of raw bytes). */
export function sha256Hex(input: string | Buffer): string {
  return createHash('sha256').update(input).digest('hex');
}

/** The short hash of a text (the first {@link SHORT_HASH_CHARS} hex digits of its SHA-256). */
export function shortHash(input: string | Buffer): string {
  return sha256Hex(input).slice(0, SHORT_HASH_CHARS);
}

/** A value ready to be written: its canonical text cut into pieces. */
export interface PreparedValue {
  /** The document's name. */
  name: string;
  /** The canonical JSON text. */
  text: string;
  /** Its UTF-8 bytes. */
  bytes: number;
  /** Its lower-case hex SHA-256. */
  sha256: string;
  /** The canonical text cut into pieces (see {@link splitPieces}). */
  pieces: Buffer[];
  /** How the chunks are compressed and encoded. */
  encoding: SiteDocumentEncoding;
}

/**
 * Prepares a value for writing: canonical text, size, hash and pieces.
 *
 * @throws NotJsonError when the value is not JSON
 */
export function prepareValue(name: string, value: unknown, encoding: SiteDocumentEncoding): PreparedValue {
  const text = canonicalJson(value);
  return { name, text, bytes: Buffer.byteLength(text), sha256: sha256Hex(text), pieces: splitPieces(value), encoding };
}

/**
 * Compresses and encodes one chunk's bytes.
 *
 * - `deflate-base64url` (default): raw deflate (level 9), base64url without padding. Pure
 *   ASCII, so the upstream's "at most 2400 characters" holds however it counts
 *   (characters, UTF-16 units or bytes).
 * - `brotli-base64url`: brotli (quality 11, text mode), base64url. ASCII too; slower to
 *   write, about 15 % denser on the catalogue (measured in docs/site-documents.md).
 * - `brotli-base32768`: brotli, then 15 bits per character in the CJK and Hangul blocks
 *   (U+3400–U+4DBF, U+4E00–U+9FFF, U+AC00–U+D7A3, all in the BMP, none a surrogate). About
 *   2.2 times as many bytes per slot as base64url, but only while the upstream counts
 *   characters: each takes 3 UTF-8 bytes, so an upstream that counts bytes (or a database
 *   column of 2400 bytes) refuses or truncates it. Opt-in (`SITE_DOCUMENT_ENCODING`).
 */
export function encodeChunk(raw: Buffer, encoding: SiteDocumentEncoding): string {
  if (encoding === 'deflate-base64url') return deflateRawSync(raw, { level: 9, memLevel: 9 }).toString('base64url');
  const compressed = brotliCompressSync(raw, {
    params: {
      [zlibConstants.BROTLI_PARAM_QUALITY]: 11,
      [zlibConstants.BROTLI_PARAM_MODE]: zlibConstants.BROTLI_MODE_TEXT,
      [zlibConstants.BROTLI_PARAM_SIZE_HINT]: raw.length,
    },
  });
  return encoding === 'brotli-base64url' ? compressed.toString('base64url') : toBase32768(compressed);
}

/**
 * Decodes and decompresses one chunk's data.
 *
 * @throws Error when the data is not valid in that encoding
 */
export function decodeChunk(data: string, encoding: SiteDocumentEncoding): Buffer {
  if (encoding === 'deflate-base64url') return inflateRawSync(strictBase64url(data));
  return brotliDecompressSync(encoding === 'brotli-base64url' ? strictBase64url(data) : fromBase32768(data));
}

function strictBase64url(data: string): Buffer {
  if (!/^[A-Za-z0-9_-]*$/.test(data)) throw new Error('not base64url');
  return Buffer.from(data, 'base64url');
}

/** Characters of a slot's data as the upstream counts them (code points: a surrogate pair counts once). */
export function dataLength(data: string): number {
  let length = 0;
  for (const _ of data) length += 1;
  return length;
}

/** A pieces' run [from, to) as one buffer. */
function join(pieces: readonly Buffer[], from: number, to: number): Buffer {
  return Buffer.concat(pieces.slice(from, to));
}

/** Pieces hashed once (the boundary hashes of the manifest). */
function pieceHashes(pieces: readonly Buffer[]): string[] {
  return pieces.map((piece) => shortHash(piece));
}

/**
 * Packs pieces [from, to) into chunks: as many pieces as fit at `fill` of a slot, then the
 * next chunk (binary search on the piece count, each candidate compressed once).
 */
function packRun(
  pieces: readonly Buffer[],
  from: number,
  to: number,
  encoding: SiteDocumentEncoding,
  fill: number,
): Array<[number, number, string]> {
  const chunks: Array<[number, number, string]> = [];
  const limit = Math.floor(SLOT_DATA_CHARS * fill);
  let start = from;
  while (start < to) {
    const whole = encodeChunk(join(pieces, start, to), encoding);
    // A stretch that fits one slot stays one chunk (an update keeps its boundaries).
    if (dataLength(whole) <= SLOT_DATA_CHARS) {
      chunks.push([start, to, whole]);
      break;
    }
    // The most pieces from `start` whose encoding fits (at least one: a piece always fits a slot).
    let low = start + 1;
    let high = to - 1;
    let best: [number, string] = [low, encodeChunk(join(pieces, start, low), encoding)];
    while (low <= high) {
      const mid = (low + high) >> 1;
      const data = encodeChunk(join(pieces, start, mid), encoding);
      if (dataLength(data) <= limit) {
        best = [mid, data];
        low = mid + 1;
      } else {
        high = mid - 1;
      }
    }
    chunks.push([start, best[0], best[1]]);
    start = best[0];
  }
  return chunks;
}

/**
 * Cuts a value into encoded chunks. Without `previous`, pieces are packed greedily. With
 * the previous version's chunks, a boundary stays where the piece before it is the old
 * chunk's last piece or the piece after it the old chunk's first (hashes that occur once
 * only), so unchanged stretches give the same chunks as before; a stretch that no longer
 * fits one slot is packed anew. Deterministic: the same value and previous chunks give
 * the same chunks.
 *
 * @param fill - share of a slot a new chunk is filled to (default {@link CHUNK_FILL})
 */
export function chunkValue(
  pieces: readonly Buffer[],
  encoding: SiteDocumentEncoding,
  previous: readonly Pick<ManifestChunk, 'first' | 'last'>[] = [],
  fill = CHUNK_FILL,
): EncodedChunk[] {
  const hashes = pieceHashes(pieces);
  const counts = new Map<string, number>();
  for (const hash of hashes) counts.set(hash, (counts.get(hash) ?? 0) + 1);
  const unique = (hash: string): boolean => counts.get(hash) === 1;
  const firsts = new Set(previous.map((chunk) => chunk.first).filter(unique));
  const lasts = new Set(previous.map((chunk) => chunk.last).filter(unique));
  const cuts = [0];
  for (let i = 1; i < pieces.length; i += 1) {
    if (firsts.has(hashes[i] ?? '') || lasts.has(hashes[i - 1] ?? '')) cuts.push(i);
  }
  cuts.push(pieces.length);
  const runs: Array<[number, number, string]> = [];
  for (let i = 0; i + 1 < cuts.length; i += 1) {
    const from = cuts[i] ?? 0;
    const to = cuts[i + 1] ?? 0;
    if (to > from) runs.push(...packRun(pieces, from, to, encoding, fill));
  }
  return runs.map(([from, to, data]) => ({
    data,
    hash: shortHash(data),
    bytes: pieces.slice(from, to).reduce((sum, piece) => sum + piece.length, 0),
    first: hashes[from] ?? '',
    last: hashes[to - 1] ?? '',
  }));
}

/** The title of a chunk slot. */
export function chunkTitle(name: string, version: number, index: number, count: number, hash: string): string {
  return `${TITLE_PREFIX}:${name}:${version}:${index}/${count}:${hash}`;
}

/** The title of a committing slot. */
export function manifestTitle(name: string, version: number, hash: string): string {
  return `${TITLE_PREFIX}:${name}:${version}:m:${hash}`;
}

/** What a title says when the gateway wrote it; null for any other title. */
export function parseTitle(title: string): ParsedTitle | null {
  const parts = title.split(':');
  if (parts.length !== 5 || parts[0] !== TITLE_PREFIX) return null;
  const [, name = '', versionText = '', position = '', hash = ''] = parts;
  if (!NAME_PATTERN.test(name) || !/^[1-9]\d{0,8}$/.test(versionText) || !/^[0-9a-f]{8}$/.test(hash)) return null;
  const version = Number(versionText);
  if (position === 'm') return { kind: 'manifest', name, version, hash };
  const match = /^([1-9]\d?)\/([1-9]\d?)$/.exec(position);
  if (!match) return null;
  const index = Number(match[1]);
  const count = Number(match[2]);
  return index <= count ? { kind: 'chunk', name, version, index, count, hash } : null;
}

/** The manifest as a slot's data (compact JSON with short keys). */
export function encodeManifest(manifest: Manifest): string {
  return JSON.stringify({
    f: manifest.format,
    n: manifest.name,
    v: manifest.version,
    e: manifest.encoding,
    b: manifest.bytes,
    s: manifest.sha256,
    u: manifest.updatedAt,
    c: manifest.chunks.map((chunk) => [chunk.slot, chunk.hash, chunk.first, chunk.last]),
  });
}

/** A committing slot's data as a manifest, or null when it is not one (malformed, unknown format). */
export function decodeManifest(data: string): Manifest | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return null;
  }
  if (!parsed || typeof parsed !== 'object') return null;
  const record = parsed as Record<string, unknown>;
  const { f, n, v, e, b, s, u, c } = record;
  if (
    f !== MANIFEST_FORMAT ||
    typeof n !== 'string' ||
    !Number.isInteger(v) ||
    typeof b !== 'number' ||
    typeof s !== 'string' ||
    typeof u !== 'string'
  )
    return null;
  if (typeof e !== 'string' || !(SITE_DOCUMENT_ENCODINGS as readonly string[]).includes(e) || !Array.isArray(c))
    return null;
  const chunks: ManifestChunk[] = [];
  for (const entry of c as unknown[]) {
    if (!Array.isArray(entry) || entry.length !== 4) return null;
    const [slot, hash, first, last] = entry as unknown[];
    if (!Number.isInteger(slot) || typeof hash !== 'string' || typeof first !== 'string' || typeof last !== 'string')
      return null;
    chunks.push({ slot: slot as number, hash, first, last });
  }
  return {
    format: f,
    name: n,
    version: v as number,
    encoding: e as SiteDocumentEncoding,
    bytes: b,
    sha256: s,
    updatedAt: u,
    chunks,
  };
}
