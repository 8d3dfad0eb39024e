/**
 * Payment references: the alphabet, the check character, and the normalising that finds
 * a code in whatever the payer typed (case, spaces, separators, look-alike characters,
 * the code inside a longer text), as examples and as fast-check properties.
 */
import fc from 'fast-check';
import {
  REFERENCE_ALPHABET,
  checkCharacter,
  isValidReference,
  newReference,
  normaliseReference,
  referenceHolds,
} from '../../src/domains/payments/payment-reference';

const referenceArbitrary = fc
  .array(fc.integer({ min: 0, max: REFERENCE_ALPHABET.length - 1 }), { minLength: 7, maxLength: 7 })
  .map((digits) => {
    let i = 0;
    return newReference(() => digits[i++] ?? 0);
  });

/** Ways a payer may write one character of the code. */
const LOOK_ALIKE_OF: Record<string, string[]> = {
  A: ['А', 'Α', 'ａ'],
  B: ['В', 'Β'],
  E: ['Е', 'Ε'],
  K: ['К', 'Κ'],
  M: ['М', 'Μ'],
  H: ['Н', 'Η'],
  P: ['Р', 'Ρ'],
  T: ['Т', 'Τ'],
  X: ['Х', 'Χ'],
  Y: ['У', 'Υ'],
  Z: ['Ζ'],
  C: ['С'],
  '3': ['З', '３'],
};

describe('payment references', () => {
  it('use only the alphabet without 0, O, 1, I and L, and end in their check character', () => {
    expect(REFERENCE_ALPHABET).not.toMatch(/[0O1IL]/);
    expect(new Set(REFERENCE_ALPHABET).size).toBe(31);
    for (let i = 0; i < 200; i += 1) {
      const reference = newReference();
      expect(reference).toMatch(/^[2-9A-HJKMNP-Z]{8}$/);
      expect(isValidReference(reference)).toBe(true);
      expect(reference.slice(-1)).toBe(checkCharacter(reference.slice(0, -1)));
    }
  });

  it('property: the check character catches every single substitution and every swap of neighbours', () => {
    fc.assert(
      fc.property(referenceArbitrary, fc.nat(7), fc.integer({ min: 1, max: 30 }), (reference, at, shift) => {
        const chars = [...reference];
        const original = REFERENCE_ALPHABET.indexOf(chars[at] ?? '');
        chars[at] = REFERENCE_ALPHABET[(original + shift) % 31] ?? '';
        expect(isValidReference(chars.join(''))).toBe(false);
        const swapped = [...reference];
        const next = Math.min(at + 1, 7);
        if (at !== next && swapped[at] !== swapped[next]) {
          [swapped[at], swapped[next]] = [swapped[next] ?? '', swapped[at] ?? ''];
          expect(isValidReference(swapped.join(''))).toBe(false);
        }
      }),
    );
  });

  it.each([
    ['lower case', 'k7m2qx9p', 'K7M2QX9P'],
    ['spaces', 'K7M2 QX9P', 'K7M2QX9P'],
    ['dashes, dots, slashes and underscores', 'K7-M2.QX/9_P', 'K7M2QX9P'],
    ['full-width forms', 'Ｋ７Ｍ２ＱＸ９Ｐ', 'K7M2QX9P'],
    ['Cyrillic look-alikes', 'К7М2QХ9Р', 'K7M2QX9P'],
    ['Greek look-alikes', 'Κ7Μ2QΧ9Ρ', 'K7M2QX9P'],
    ['emoji and punctuation dropped', '🙂 K7M2, QX9P!', 'K7M2QX9P'],
  ])('normalise: %s', (_case, text, normalised) => {
    expect(normaliseReference(text)).toBe(normalised);
  });

  it.each([
    ['exactly', 'K7M2QX9P', true],
    ['inside a longer text', 'Invoice 2026/11 ref k7m2-qx9p thanks', true],
    ['split by a line break', 'K7M2\nQX9P', true],
    ['a different code', 'K7M2QX9Q', false],
    ['a prefix of the code only', 'K7M2QX9', false],
    ['no reference', null, false],
  ])('holds: %s', (_case, text, holds) => {
    expect(referenceHolds(text, 'K7M2QX9P')).toBe(holds);
  });

  it('property: any decoration of a reference (case, separators, look-alikes, text around it) still holds it', () => {
    const separator = fc.constantFrom('', ' ', '-', '.', '/', '_', '  ', ' - ', '\t');
    fc.assert(
      fc.property(
        referenceArbitrary,
        fc.array(fc.tuple(fc.boolean(), fc.boolean(), separator), { minLength: 8, maxLength: 8 }),
        fc.string({ maxLength: 20 }),
        fc.string({ maxLength: 20 }),
        (reference, decorations, before, after) => {
          const written = [...reference]
            .map((c, i) => {
              const [lower, lookAlike, sep] = decorations[i] ?? [false, false, ''];
              const alternatives = LOOK_ALIKE_OF[c];
              const shown =
                lookAlike && alternatives ? (alternatives[i % alternatives.length] ?? c) : lower ? c.toLowerCase() : c;
              return shown + sep;
            })
            .join('');
          expect(referenceHolds(`${before} ${written} ${after}`, reference)).toBe(true);
          expect(normaliseReference(written)).toBe(reference);
        },
      ),
    );
  });
});
