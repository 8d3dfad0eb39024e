/**
 * Writing a site document: the copy-on-write plan and its execution.
 *
 * A plan is made from the slots as read (see `layoutOf`) and the value's chunks: chunks
 * whose data the current version already holds stay where they are; the others go into
 * free slots (never set or cleared ones first, then the gateway's chunks no manifest lists
 * any more); the committing slot (the document's, or for a new document the first free
 * slot of its probe order) gets the new manifest last, and that is the plan's last write.
 * Until the committing write, every read still finds the previous version whole; after it,
 * the new one. The replaced chunks are not cleared: the commit frees them, since no
 * manifest lists them any more (`layoutOf` counts them free, and a later write reuses them
 * after the empty slots), so a change costs the changed chunks plus one write. Until a
 * later write reuses them they still hold the previous version's data, so a reader whose
 * cached manifest is a little older still reads it whole. Slots the gateway did not write
 * are never in a plan. Only a deletion's plan (`deleteSiteDocument`) clears slots with "."
 * as clients clear them, to give them back to other tools.
 */
import { GatewayError } from '../../errors/gateway-error';
import {
  chunkTitle,
  chunkValue,
  encodeManifest,
  MANIFEST_FORMAT,
  manifestTitle,
  shortHash,
} from './site-document.codec';
import type { SiteDocumentEncoding } from '../../config';
import type { EncodedChunk, Manifest, ManifestChunk, PreparedValue } from './site-document.codec';
import { layoutOf, manifestIn, probeOrder } from './site-document.layout';
import type { SlotContent, SlotLayout, SlotReader } from './site-document.layout';
import type { MaybePromise } from '../shared/maybe-promise';

/** How the store writes slots; `readFresh` skips the cache (the conflict check). */
export interface SlotWriter extends SlotReader {
  /** The slot as the upstream holds it now, skipping a fresh cached answer (one upstream request). */
  readFresh(slot: number): MaybePromise<SlotContent | null>;
  /** One `POST /factory/options`; the written content becomes the slot's cached answer. */
  write(slot: number, title: string, data: string): Promise<void>;
}

/** One upstream write of a plan. */
export interface SlotWrite {
  /** The option slot, 1..10. */
  slot: number;
  /** The title written. */
  title: string;
  /** The data written. */
  data: string;
  /** A chunk of the new version, the committing slot, or (a deletion's plan only) a slot cleared with ".". */
  role: 'chunk' | 'commit' | 'clear';
}

/** What a write will do. */
export interface WritePlan {
  /** The document's name. */
  name: string;
  /** The manifest the committing write stores (the document as it will read). */
  manifest: Manifest;
  /** The committing slot. */
  manifestSlot: number;
  /** Chunk writes first, then the committing write; a deletion's plan clears the committing slot, then its chunks ('clear'). */
  writes: SlotWrite[];
  /** The version the plan replaces (0 for a new document). */
  previousVersion: number;
  /** True when the value equals the stored one: no writes at all. */
  unchanged: boolean;
  /** Chunk slots of the previous version this write frees: a change frees them by its commit (no manifest lists them; they are not written), a deletion clears them. */
  freed: number[];
}

/** Estimated bytes of canonical JSON one slot holds, per encoding (measured on the realistic catalogue, see docs/site-documents.md). */
export const BYTES_PER_SLOT: Readonly<Record<SiteDocumentEncoding, number>> = Object.freeze({
  'deflate-base64url': 8700,
  'brotli-base64url': 10400,
  'brotli-base32768': 19000,
});

/** `CONFLICT`: the stored version is not the one the write expected; nothing was committed. */
export function conflictError(name: string, currentVersion: number, expectedVersion: number): GatewayError<'CONFLICT'> {
  return new GatewayError(
    'CONFLICT',
    `The site document "${name}" is at version ${currentVersion}, not ${expectedVersion} as expectedVersion says: someone else wrote it. Read it again and retry with expectedVersion ${currentVersion}.`,
    { name, currentVersion, expectedVersion },
  );
}

/**
 * `SITE_DOCUMENT_TOO_LARGE`: the value needs more slots than are free (`slotsAvailable`
 * counts the free ones), or, with `slotCount`, more than the company has at all (checked
 * before any slot is read: how many are free is not known then, `slotsAvailable` is every slot).
 */
export function tooLargeError(
  name: string,
  details: { bytesNeeded: number; bytesAvailable: number; slotsNeeded: number; slotsAvailable: number },
  slotCount?: number,
): GatewayError<'SITE_DOCUMENT_TOO_LARGE'> {
  const { slotsNeeded, bytesNeeded, slotsAvailable, bytesAvailable } = details;
  const message =
    slotCount === undefined
      ? `The site document "${name}" needs ${slotsNeeded} free option slots for ${bytesNeeded} bytes of JSON, but only ${slotsAvailable} ${slotsAvailable === 1 ? 'is' : 'are'} free (about ${bytesAvailable} bytes). Free slots, or make the value smaller.`
      : `The site document "${name}" needs ${slotsNeeded} option slots for ${bytesNeeded} bytes of JSON, but a company has only ${slotCount}: it does not fit even when every slot is free (about ${bytesAvailable} bytes would). Make the value smaller.`;
  return new GatewayError('SITE_DOCUMENT_TOO_LARGE', message, { name, ...details });
}

/**
 * Fails before any upstream request when the value cannot fit even in empty slots: it
 * needs more chunks than `slotCount - 1` (one slot commits).
 *
 * @returns the value's chunks (packed as for a first write)
 * @throws GatewayError `SITE_DOCUMENT_TOO_LARGE`
 */
export function checkFits(value: PreparedValue, slotCount: number): EncodedChunk[] {
  const chunks = chunkValue(value.pieces, value.encoding);
  if (chunks.length + 1 > slotCount) {
    throw tooLargeError(
      value.name,
      {
        bytesNeeded: value.bytes,
        bytesAvailable: Math.floor((value.bytes / chunks.length) * (slotCount - 1)),
        slotsNeeded: chunks.length + 1,
        slotsAvailable: slotCount,
      },
      slotCount,
    );
  }
  return chunks;
}

/**
 * Plans a write of `value` over the slots as `layout` sorts them.
 *
 * @param options - `expectedVersion` (0: only if the document does not exist), `now` for updatedAt, `slotCount`
 * @throws GatewayError `CONFLICT` when the stored version is not `expectedVersion`, or
 *   `SITE_DOCUMENT_TOO_LARGE` when the changed chunks do not fit the free slots
 */
export function planWrite(
  layout: SlotLayout,
  value: PreparedValue,
  options: { expectedVersion?: number | null; now: number; slotCount: number },
): WritePlan {
  const current = layout.documents.get(value.name);
  const previousVersion = current?.manifest.version ?? 0;
  if (
    options.expectedVersion !== undefined &&
    options.expectedVersion !== null &&
    options.expectedVersion !== previousVersion
  ) {
    throw conflictError(value.name, previousVersion, options.expectedVersion);
  }
  if (current && current.manifest.sha256 === value.sha256 && current.manifest.encoding === value.encoding) {
    return {
      name: value.name,
      manifest: current.manifest,
      manifestSlot: current.manifestSlot,
      writes: [],
      previousVersion,
      unchanged: true,
      freed: [],
    };
  }
  const free = layout.free;
  const manifestSlot =
    current?.manifestSlot ?? probeOrder(value.name, options.slotCount).find((slot) => free.includes(slot));
  const available = free.filter((slot) => slot !== manifestSlot);
  const candidates = [chunkValue(value.pieces, value.encoding, current?.manifest.chunks ?? [])];
  if (current) candidates.push(chunkValue(value.pieces, value.encoding));
  const sameEncoding = current?.manifest.encoding === value.encoding;
  const attempts = candidates.map((chunks) => place(chunks, current?.manifest.chunks ?? [], sameEncoding));
  const placed =
    manifestSlot === undefined ? undefined : attempts.find((attempt) => attempt.changed.length <= available.length);
  if (!placed || manifestSlot === undefined) {
    const best = attempts[attempts.length - 1] ?? attempts[0];
    const chunkCount = Math.max(1, best?.chunks.length ?? 1);
    throw tooLargeError(value.name, {
      bytesNeeded: value.bytes,
      bytesAvailable: Math.floor((value.bytes / chunkCount) * available.length),
      slotsNeeded: (best?.changed.length ?? chunkCount) + (current ? 0 : 1),
      slotsAvailable: free.length,
    });
  }
  const version = previousVersion + 1;
  const targets = [...available];
  const writes: SlotWrite[] = [];
  const entries: ManifestChunk[] = placed.chunks.map((chunk, index) => {
    const kept = placed.kept.get(index);
    if (kept !== undefined) return { slot: kept, hash: chunk.hash, first: chunk.first, last: chunk.last };
    const slot = targets.shift() ?? 0;
    writes.push({
      slot,
      title: chunkTitle(value.name, version, index + 1, placed.chunks.length, chunk.hash),
      data: chunk.data,
      role: 'chunk',
    });
    return { slot, hash: chunk.hash, first: chunk.first, last: chunk.last };
  });
  const manifest: Manifest = {
    format: MANIFEST_FORMAT,
    name: value.name,
    version,
    encoding: value.encoding,
    bytes: value.bytes,
    sha256: value.sha256,
    updatedAt: new Date(options.now).toISOString(),
    chunks: entries,
  };
  const data = encodeManifest(manifest);
  writes.push({ slot: manifestSlot, title: manifestTitle(value.name, version, shortHash(data)), data, role: 'commit' });
  // The replaced chunks are freed by the commit itself: no manifest lists them after it, so
  // they need no write (the next write takes them after the empty slots).
  const keptSlots = new Set(entries.map((entry) => entry.slot));
  const freed = (current?.manifest.chunks ?? []).map((chunk) => chunk.slot).filter((slot) => !keptSlots.has(slot));
  return { name: value.name, manifest, manifestSlot, writes, previousVersion, unchanged: false, freed };
}

/**
 * The writes that put a value into slots holding `contents` (slot 1 first), for seeding a
 * simulator or a test without the gateway: what `setSiteDocument` would write, in order.
 *
 * @throws GatewayError `SITE_DOCUMENT_TOO_LARGE` as `planWrite`
 */
export function seedWrites(
  contents: ReadonlyArray<SlotContent | null>,
  value: PreparedValue,
  now: number,
): SlotWrite[] {
  checkFits(value, contents.length);
  return planWrite(layoutOf(contents), value, { now, slotCount: contents.length }).writes;
}

/** Which new chunks the current version already holds (same data hash, each old slot once), and which must be written. */
function place(
  chunks: EncodedChunk[],
  old: readonly ManifestChunk[],
  sameEncoding: boolean,
): { chunks: EncodedChunk[]; kept: Map<number, number>; changed: number[] } {
  const pool = new Map<string, number[]>();
  if (sameEncoding) for (const chunk of old) pool.set(chunk.hash, [...(pool.get(chunk.hash) ?? []), chunk.slot]);
  const kept = new Map<number, number>();
  const changed: number[] = [];
  chunks.forEach((chunk, index) => {
    const slot = pool.get(chunk.hash)?.shift();
    if (slot === undefined) changed.push(index);
    else kept.set(index, slot);
  });
  return { chunks, kept, changed };
}

/** How far a running write is. */
export interface WriteProgress {
  /** Upstream writes made so far. */
  writes: number;
  /** True once the committing write succeeded (the new version is what reads return). */
  committed: boolean;
}

/**
 * Runs a plan: chunks, then (with `expectedVersion`) a fresh read of the committing slot,
 * then the committing write, then a deletion's clearing writes (a change's plan has none:
 * its commit is its last write). With `expectedVersion` the committing slot is also read
 * fresh before the first chunk is written, so that a version committed behind the cache is
 * found before any of its slots is touched. A failure before the commit leaves the previous
 * version (its slots were not touched); the new chunks are then free slots. A deletion's
 * failed clearing write is not an error (the document is gone; that slot counts as free
 * anyway) and ends the clearing.
 *
 * @throws GatewayError `CONFLICT` when the fresh read finds another version (no committing
 *   write is made), and the upstream's errors of a chunk or committing write
 */
export async function executePlan(
  writer: SlotWriter,
  plan: WritePlan,
  expectedVersion: number | null | undefined,
  progress: WriteProgress,
): Promise<void> {
  const conditional = expectedVersion !== undefined && expectedVersion !== null;
  const check = async (): Promise<void> => {
    const fresh = manifestIn(await writer.readFresh(plan.manifestSlot));
    const currentVersion = fresh?.name === plan.name ? fresh.version : 0;
    if (currentVersion !== expectedVersion) throw conflictError(plan.name, currentVersion, expectedVersion ?? 0);
  };
  const chunks = plan.writes.filter((w) => w.role === 'chunk');
  // A version committed behind the cache is caught before its chunks can be overwritten, too.
  if (conditional && chunks.length > 0) await check();
  for (const write of chunks) {
    await writer.write(write.slot, write.title, write.data);
    progress.writes += 1;
  }
  if (conditional) await check();
  for (const write of plan.writes.filter((w) => w.role === 'commit')) {
    await writer.write(write.slot, write.title, write.data);
    progress.writes += 1;
    progress.committed = true;
  }
  for (const write of plan.writes.filter((w) => w.role === 'clear')) {
    try {
      await writer.write(write.slot, write.title, write.data);
      progress.writes += 1;
    } catch {
      return;
    }
  }
}
