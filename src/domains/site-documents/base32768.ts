/**
 * base32768: 15 bits per character, in three BMP blocks (CJK and Hangul, no surrogates,
 * no combining marks), so a text of N characters carries about 1.9 N bytes while the
 * upstream counts characters. The `brotli-base32768` site-document encoding uses it.
 */

/**
 * Characters of the dense encoding: 32768 code points from three BMP blocks (no
 * surrogates, no combining marks), in this order: all of CJK Extension A, all of the CJK
 * Unified Ideographs, then the first Hangul syllables. Computed, not tabled: a table and
 * its reverse index cost about 1.2 MB of heap for as long as the process runs.
 */
const EXTENSION_A = { from: 0x3400, size: 0x4dbf - 0x3400 + 1, first: 0 };
const UNIFIED = { from: 0x4e00, size: 0x9fff - 0x4e00 + 1, first: EXTENSION_A.size };
const HANGUL = { from: 0xac00, size: 32768 - EXTENSION_A.size - UNIFIED.size, first: EXTENSION_A.size + UNIFIED.size };
const DENSE_BLOCKS = [EXTENSION_A, UNIFIED, HANGUL] as const;

/** The code point of a 15-bit value. */
function densePoint(value: number): number {
  for (const block of DENSE_BLOCKS) if (value < block.first + block.size) return block.from + value - block.first;
  return 0;
}

/** The 15-bit value of a code point, or undefined when it is not in the alphabet. */
function denseValue(point: number): number | undefined {
  for (const block of DENSE_BLOCKS)
    if (point >= block.from && point < block.from + block.size) return block.first + point - block.from;
  return undefined;
}

/** 15 bits per character; the first character says how many bits of padding the last one has (0..14). */
export function toBase32768(bytes: Buffer): string {
  const chars: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 15) {
      bits -= 15;
      chars.push(densePoint((buffer >> bits) & 0x7fff));
    }
    buffer &= (1 << bits) - 1;
  }
  const padding = bits === 0 ? 0 : 15 - bits;
  if (bits > 0) chars.push(densePoint((buffer << padding) & 0x7fff));
  return String.fromCharCode(densePoint(padding), ...chars);
}

/**
 * The bytes of a base32768 text.
 *
 * @throws Error when the text is not base32768
 */
export function fromBase32768(text: string): Buffer {
  const values = Array.from(text, (char) => {
    const value = denseValue(char.charCodeAt(0));
    if (value === undefined || char.length !== 1) throw new Error('not base32768');
    return value;
  });
  const padding = values.shift() ?? 0;
  if (padding > 14) throw new Error('not base32768');
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  values.forEach((value, i) => {
    const width = i === values.length - 1 ? 15 - padding : 15;
    buffer = (buffer << width) | (value >> (15 - width));
    bits += width;
    while (bits >= 8) {
      bits -= 8;
      bytes.push((buffer >> bits) & 0xff);
    }
    buffer &= (1 << bits) - 1;
  });
  return Buffer.from(bytes);
}
