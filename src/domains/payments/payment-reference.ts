/**
 * Payment references: short codes a payer writes into a bank transfer, and the
 * normalising that finds them again in whatever the payer typed.
 *
 * - Alphabet: 31 characters, digits and capitals without 0, O, 1, I and L, so that no
 *   two of them look alike (31 is prime, which the check character needs).
 * - A reference is {@link REFERENCE_BODY_LENGTH} random characters and one check
 *   character (a weighted sum modulo 31): a single wrong character or two swapped
 *   neighbours never pass.
 * - {@link normaliseReference}: Unicode compatibility forms (full-width letters), upper
 *   case, Cyrillic and Greek look-alikes as their Latin letters, every other character
 *   that is no letter or digit (spaces, dashes, dots, slashes…) dropped. A transfer
 *   matches when its normalised reference contains the normalised code anywhere
 *   ("Invoice K7M2-QX9P, thanks").
 */
import { randomInt } from 'node:crypto';

/** The reference alphabet: no 0/O, 1/I/L. */
export const REFERENCE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';

/** Random characters before the check character. */
export const REFERENCE_BODY_LENGTH = 7;

const N = REFERENCE_ALPHABET.length;

/**
 * Look-alike characters of other scripts, as the Latin letter or digit they pass for
 * (Cyrillic and Greek capitals after upper-casing). Full-width forms are handled by NFKC.
 */
const LOOK_ALIKES: Readonly<Record<string, string>> = {
  А: 'A',
  В: 'B',
  Е: 'E',
  К: 'K',
  М: 'M',
  Н: 'H',
  О: 'O',
  Р: 'P',
  С: 'C',
  Т: 'T',
  Х: 'X',
  У: 'Y',
  Ѕ: 'S',
  Ј: 'J',
  З: '3',
  Α: 'A',
  Β: 'B',
  Ε: 'E',
  Ζ: 'Z',
  Η: 'H',
  Ι: 'I',
  Κ: 'K',
  Μ: 'M',
  Ν: 'N',
  Ο: 'O',
  Ρ: 'P',
  Τ: 'T',
  Υ: 'Y',
  Χ: 'X',
};

/**
 * The check character of a body: position weights 1, 2, 3… (the check character's is
 * the next one), so that the weighted sum of the whole reference is 0 modulo 31. As 31
 * is prime and neighbouring weights differ by 1, every single wrong character and every
 * swap of two different neighbours changes the sum.
 */
export function checkCharacter(body: string): string {
  let sum = 0;
  for (let i = 0; i < body.length; i += 1) {
    const code = REFERENCE_ALPHABET.indexOf(body[i] ?? '');
    if (code < 0) throw new RangeError(`not a reference character: ${body[i] ?? ''}`);
    sum = (sum + (i + 1) * code) % N;
  }
  const weight = body.length + 1;
  // The check value c solves sum + weight × c ≡ 0 (mod 31): c = −sum × weight⁻¹.
  let inverse = 1;
  while ((weight * inverse) % N !== 1) inverse += 1;
  return REFERENCE_ALPHABET[((N - sum) * inverse) % N] ?? '';
}

/** True when `reference` (already normalised) is a body followed by its check character. */
export function isValidReference(reference: string): boolean {
  if (reference.length !== REFERENCE_BODY_LENGTH + 1) return false;
  if ([...reference].some((c) => !REFERENCE_ALPHABET.includes(c))) return false;
  return checkCharacter(reference.slice(0, -1)) === reference.slice(-1);
}

/**
 * A fresh reference: {@link REFERENCE_BODY_LENGTH} characters from `node:crypto`'s
 * `randomInt` (or `random`, in tests) and the check character.
 */
export function newReference(random: (n: number) => number = (n) => randomInt(n)): string {
  let body = '';
  for (let i = 0; i < REFERENCE_BODY_LENGTH; i += 1) body += REFERENCE_ALPHABET[random(N)] ?? '';
  return body + checkCharacter(body);
}

/** A text as references are compared: compatibility forms, upper case, look-alikes replaced, only letters and digits. */
export function normaliseReference(text: string): string {
  let out = '';
  for (const c of text.normalize('NFKC').toUpperCase()) {
    const latin = LOOK_ALIKES[c] ?? c;
    if (/^[A-Z0-9]$/.test(latin)) out += latin;
  }
  return out;
}

/** True when a transfer's reference text holds the code (both normalised here), anywhere in it. */
export function referenceHolds(text: string | null, code: string): boolean {
  if (!text) return false;
  const wanted = normaliseReference(code);
  return wanted.length > 0 && normaliseReference(text).includes(wanted);
}
