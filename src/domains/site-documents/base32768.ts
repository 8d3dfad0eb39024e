/**
 * base32768: 15 bits per character, in three BMP blocks (CJK and Hangul, no surrogates,
 * no combining marks), so a text of N characters carries about 1.9 N bytes while the
 * upstream counts characters. The `brotli-base32768` site-document encoding uses it.
 */

/** Characters of the dense encoding: 32768 code points from three BMP blocks (no surrogates, no combining marks). */
const DENSE_BLOCKS: ReadonlyArray<readonly [number, number]> = [
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xac00, 0xd7a3],
];
const DENSE_ALPHABET: readonly number[] = (() => {
  const points: number[] = [];
  for (const [from, to] of DENSE_BLOCKS) for (let c = from; c <= to && points.length < 32768; c += 1) points.push(c);
  return points;
})();
const DENSE_INDEX = new Map<number, number>(DENSE_ALPHABET.map((point, i) => [point, i]));

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
      chars.push(DENSE_ALPHABET[(buffer >> bits) & 0x7fff] ?? 0);
    }
    buffer &= (1 << bits) - 1;
  }
  const padding = bits === 0 ? 0 : 15 - bits;
  if (bits > 0) chars.push(DENSE_ALPHABET[(buffer << padding) & 0x7fff] ?? 0);
  return String.fromCharCode(DENSE_ALPHABET[padding] ?? 0, ...chars);
}

/**
 * The bytes of a base32768 text.
 *
 * @throws Error when the text is not base32768
 */
export function fromBase32768(text: string): Buffer {
  const values = Array.from(text, (char) => {
    const value = DENSE_INDEX.get(char.charCodeAt(0));
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
