/**
 * What a company's option slots hold, as site documents see them, and how a document is
 * found and read back from them. Pure functions over slot contents plus one reading
 * function that takes the slot reader as a parameter; no upstream access of its own.
 */
import { GatewayError } from '../../errors/gateway-error';
import { CLEARED, decodeChunk, decodeManifest, parseTitle, sha256Hex, shortHash } from './site-document.codec';
import type { Manifest } from './site-document.codec';
import type { MaybePromise } from '../shared/maybe-promise';

/** One option slot's content as read: null when the slot was never set (the upstream's 404). */
export interface SlotContent {
  /** The slot's title. */
  title: string;
  /** The slot's data. */
  data: string;
  /** When the slot was last written, when the upstream says. */
  lastUpdated: Date | null;
}

/** How the gateway reads slots: through the per-key cache, or skipping it. */
export interface SlotReader {
  /** The slot as the caches know it (one upstream request on a miss). */
  read(slot: number): MaybePromise<SlotContent | null>;
}

/** A committed document: its manifest and the slot holding it. */
export interface StoredDocument {
  /** The committing slot's manifest. */
  manifest: Manifest;
  /** The committing slot. */
  manifestSlot: number;
}

/** Every slot of a company sorted by role. */
export interface SlotLayout {
  /** Committed documents by name. */
  documents: Map<string, StoredDocument>;
  /** Slots a write may take: never set or cleared ("." or empty title and data) first, then the gateway's own slots no document lists, ascending. */
  free: number[];
  /** Slots written by something else; never written by site-document mutations. */
  foreign: number[];
  /** The gateway's slots no document lists (chunks of replaced versions, of writes that never committed), by the document name their title carries; part of `free`. */
  leftovers: Map<string, number[]>;
}

/** What a manifest says of its document, as `SiteDocumentInfo` shows it: the committing slot first in `slots`. */
export function infoOf(
  manifest: Manifest,
  manifestSlot: number,
): { name: string; version: number; updatedAt: Date | null; bytes: number; slots: number[] } {
  const updatedAt = new Date(manifest.updatedAt);
  return {
    name: manifest.name,
    version: manifest.version,
    updatedAt: Number.isNaN(updatedAt.getTime()) ? null : updatedAt,
    bytes: manifest.bytes,
    slots: [manifestSlot, ...manifest.chunks.map((chunk) => chunk.slot)],
  };
}

/** True for a slot clients cleared: both title and data "." or empty (trimmed). */
export function isCleared(content: SlotContent): boolean {
  const blank = (text: string): boolean => text.trim() === '' || text.trim() === CLEARED;
  return blank(content.title) && blank(content.data);
}

/** The committed manifest a slot holds (title, hash and data agree), or null. */
export function manifestIn(content: SlotContent | null): Manifest | null {
  if (!content) return null;
  const title = parseTitle(content.title);
  if (title?.kind !== 'manifest' || title.hash !== shortHash(content.data)) return null;
  const manifest = decodeManifest(content.data);
  return manifest && manifest.name === title.name && manifest.version === title.version ? manifest : null;
}

/**
 * Sorts slots `1..contents.length` (index 0 is slot 1) by role. A slot whose title the
 * gateway wrote but that no committed document lists (a chunk of a replaced version, or of
 * a write that never committed) is free; when two slots commit the same name, the higher
 * version wins and the other is free.
 */
export function layoutOf(contents: ReadonlyArray<SlotContent | null>): SlotLayout {
  const documents = new Map<string, StoredDocument>();
  contents.forEach((content, index) => {
    const manifest = manifestIn(content);
    if (!manifest) return;
    const known = documents.get(manifest.name);
    if (!known || known.manifest.version < manifest.version)
      documents.set(manifest.name, { manifest, manifestSlot: index + 1 });
  });
  const used = new Set<number>();
  for (const { manifest, manifestSlot } of documents.values()) {
    used.add(manifestSlot);
    for (const chunk of manifest.chunks) used.add(chunk.slot);
  }
  const empty: number[] = [];
  const foreign: number[] = [];
  const leftovers = new Map<string, number[]>();
  contents.forEach((content, index) => {
    const slot = index + 1;
    if (used.has(slot)) return;
    const title = content && !isCleared(content) ? parseTitle(content.title) : null;
    if (!content || isCleared(content)) empty.push(slot);
    else if (title) leftovers.set(title.name, [...(leftovers.get(title.name) ?? []), slot]);
    else foreign.push(slot);
  });
  const orphans = [...leftovers.values()].flat().sort((a, b) => a - b);
  return { documents, free: [...empty, ...orphans], foreign, leftovers };
}

/**
 * The order slots are probed in for a document's committing slot: from its home slot
 * (a hash of the name) upwards, wrapping. A new document commits in the first free slot
 * of this order, so a read usually finds it at the first probe.
 */
export function probeOrder(name: string, slotCount: number): number[] {
  const home = Number.parseInt(sha256Hex(name).slice(0, 8), 16) % slotCount;
  return Array.from({ length: slotCount }, (_, i) => ((home + i) % slotCount) + 1);
}

/** `SITE_DOCUMENT_CORRUPT`: a document's slots do not add up to what its manifest says. */
export function corruptError(name: string, slots: number[], reason: string): GatewayError<'SITE_DOCUMENT_CORRUPT'> {
  return new GatewayError(
    'SITE_DOCUMENT_CORRUPT',
    `The site document "${name}" does not match its checksums (${reason}; slots ${slots.join(', ')}): something else changed its slots. Write it again with setSiteDocument.`,
    { name, slots },
  );
}

/** A read document: the value's canonical text and where it came from. */
export interface ReadDocument extends StoredDocument {
  /** The canonical JSON text, verified against the manifest's SHA-256. */
  text: string;
}

/**
 * Reads a committed document's chunks and checks each against the manifest and the whole
 * against its SHA-256.
 *
 * @throws GatewayError `SITE_DOCUMENT_CORRUPT` naming the slots that do not match (never a wrong value)
 */
export async function readChunks(reader: SlotReader, stored: StoredDocument): Promise<ReadDocument> {
  const { manifest } = stored;
  const contents = await Promise.all(manifest.chunks.map((chunk) => reader.read(chunk.slot)));
  const bad = manifest.chunks.filter((chunk, i) => {
    const content = contents[i];
    const title = content ? parseTitle(content.title) : null;
    return (
      !content || title?.kind !== 'chunk' || title.name !== manifest.name || shortHash(content.data) !== chunk.hash
    );
  });
  if (bad.length > 0)
    throw corruptError(
      manifest.name,
      bad.map((chunk) => chunk.slot),
      'a chunk slot holds other data than the manifest lists',
    );
  let text: string;
  try {
    text = Buffer.concat(contents.map((content) => decodeChunk(content?.data ?? '', manifest.encoding))).toString(
      'utf8',
    );
  } catch {
    throw corruptError(
      manifest.name,
      manifest.chunks.map((chunk) => chunk.slot),
      'a chunk does not decompress',
    );
  }
  if (Buffer.byteLength(text) !== manifest.bytes || sha256Hex(text) !== manifest.sha256) {
    throw corruptError(
      manifest.name,
      [stored.manifestSlot, ...manifest.chunks.map((chunk) => chunk.slot)],
      'the joined text does not match the SHA-256',
    );
  }
  return { ...stored, text };
}

/**
 * Finds a document's committing slot by probing from its home slot, reading one slot at a
 * time (each through the reader's cache), and stops at the first slot that commits it.
 *
 * @returns the document, or null when no slot commits it (then every slot was read)
 */
export async function findDocument(
  reader: SlotReader,
  name: string,
  slotCount: number,
): Promise<StoredDocument | null> {
  for (const slot of probeOrder(name, slotCount)) {
    const manifest = manifestIn(await reader.read(slot));
    if (manifest?.name === name) return { manifest, manifestSlot: slot };
  }
  return null;
}

/** Reads every slot `1..slotCount` (at once; each through the reader's cache). */
export function readAll(reader: SlotReader, slotCount: number): Promise<Array<SlotContent | null>> {
  return Promise.all(Array.from({ length: slotCount }, (_, i) => reader.read(i + 1)));
}
