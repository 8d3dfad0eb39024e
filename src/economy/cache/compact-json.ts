/**
 * Compact storage of JSON values in long-lived caches.
 *
 * A parsed upstream answer costs several times its JSON text on the V8 heap (an object
 * per record, a property array per object, a two-byte string as soon as one character
 * is outside Latin-1, such as the en dash in "Mo–So"), and whatever lives long on the
 * heap also raises the heap size V8 lets the process grow to between collections. So
 * caches keep the JSON text instead and parse it on use:
 *
 * - small texts (under {@link EXTERNAL_MIN_BYTES} bytes of UTF-8) as a one-byte string of
 *   their UTF-8 bytes (`latin1` encoding: one heap byte per byte, whatever the characters);
 * - larger ones as an unpooled `Buffer`, outside the V8 heap (a pooled one would keep its
 *   whole 8 KiB slab alive as long as it lives).
 *
 * {@link compactBytes} is what such a value really costs, for caches bounded by bytes.
 */

/** A JSON value kept as UTF-8 text, in a one-byte string or a Buffer. */
export type CompactJson = string | Buffer;

/** From this many bytes of UTF-8 on, the text goes into a Buffer outside the heap. */
export const EXTERNAL_MIN_BYTES = 512;

/** Heap cost of a string besides its characters (V8 header), bytes. */
const STRING_OVERHEAD_BYTES = 16;

/**
 * Heap and allocator cost of an unpooled Buffer besides its bytes (the typed array and
 * ArrayBuffer objects, the backing-store record and the allocator's header), measured
 * on Node 20 with `process.memoryUsage()` over 100,000 buffers.
 */
const BUFFER_OVERHEAD_BYTES = 224;

/** The UTF-8 bytes of a text in the compact form. */
export function compactText(utf8: Buffer): CompactJson {
  if (utf8.length < EXTERNAL_MIN_BYTES) return utf8.toString('latin1');
  if (utf8.length === utf8.buffer.byteLength) return utf8; // already its own allocation
  const own = Buffer.allocUnsafeSlow(utf8.length);
  utf8.copy(own);
  return own;
}

/** Stores a JSON-serialisable value compactly (its `JSON.stringify` text). */
export function compactJson(value: unknown): CompactJson {
  return compactText(Buffer.from(JSON.stringify(value) ?? 'null'));
}

/** The UTF-8 bytes of a compact value (a view, not a copy, for a Buffer). */
export function compactUtf8(value: CompactJson): Buffer {
  return typeof value === 'string' ? Buffer.from(value, 'latin1') : value;
}

/**
 * Parses a compact value.
 *
 * @throws SyntaxError when the text is not JSON (only for values read from outside, such
 *   as a cache file).
 */
export function parseCompactJson(value: CompactJson): unknown {
  return JSON.parse(compactUtf8(value).toString('utf8')) as unknown;
}

/** What a compact value costs in memory, bytes. */
export function compactBytes(value: CompactJson): number {
  return typeof value === 'string' ? STRING_OVERHEAD_BYTES + value.length : BUFFER_OVERHEAD_BYTES + value.length;
}

/** What a cache key string costs on the heap (one-byte characters), bytes. */
export function keyBytes(key: string): number {
  return STRING_OVERHEAD_BYTES + key.length;
}
