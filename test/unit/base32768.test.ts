/**
 * base32768: any bytes come back as they went in, every character is one of the 32768
 * code points of the alphabet, and anything else is refused.
 */
import fc from 'fast-check';
import { fromBase32768, toBase32768 } from '../../src/domains/site-documents/base32768';

const inAlphabet = (code: number): boolean =>
  (code >= 0x3400 && code <= 0x4dbf) || (code >= 0x4e00 && code <= 0x9fff) || (code >= 0xac00 && code <= 0xac00 + 5183);

describe('base32768', () => {
  it('round-trips any bytes, in characters of the alphabet only', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const text = toBase32768(Buffer.from(bytes));
        expect([...text].every((char) => inAlphabet(char.charCodeAt(0)))).toBe(true);
        expect(fromBase32768(text).equals(Buffer.from(bytes))).toBe(true);
      }),
    );
  });

  it('uses the first and the last code point of the alphabet for 0 and 32767', () => {
    expect(toBase32768(Buffer.from([0, 0]))).toBe(String.fromCharCode(0x3400 + 14, 0x3400, 0x3400)); // 16 bits: 15, then 1 padded with 14
    const ones = toBase32768(Buffer.from([0xff, 0xfe]));
    expect(ones.charCodeAt(1)).toBe(0xac00 + 5183);
    expect(fromBase32768(String.fromCharCode(0x3400, 0x4dbf, 0x4e00, 0x9fff, 0xac00, 0xac00 + 5183)).length).toBe(9);
  });

  it('refuses characters outside the alphabet', () => {
    for (const code of [0x41, 0x33ff, 0x4dc0, 0xa000, 0xabff, 0xac00 + 5184, 0xd7a3]) {
      expect(() => fromBase32768(String.fromCharCode(0x3400, code))).toThrow('not base32768');
    }
  });
});
