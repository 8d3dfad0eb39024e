/**
 * The text of an access token, GitHub style: a recognisable prefix, random characters and
 * a checksum, so a token in a log or a paste is recognised and a typo is refused without
 * a lookup. The vault keeps only a keyed hash of it (see vault.ts).
 */
import { createHmac, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

/** Every access token starts with this. */
export const TOKEN_PREFIX = 'svg_';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Random characters of a token: 40 base-62 characters, about 238 bits. */
const RANDOM_CHARS = 40;
/** Characters of the checksum (CRC-32 of the random part, base 62). */
const CHECKSUM_CHARS = 6;
const TOKEN_SHAPE = new RegExp(`^${TOKEN_PREFIX}[0-9A-Za-z]{${RANDOM_CHARS + CHECKSUM_CHARS}}$`);

/** `value` in base 62, left-padded with zeros to `width` characters. */
function base62(value: number, width: number): string {
  let text = '';
  let rest = value;
  while (rest > 0) {
    text = ALPHABET[rest % 62] + text;
    rest = Math.floor(rest / 62);
  }
  return text.padStart(width, '0');
}

/** The checksum of a token's random part. */
function checksum(random: string): string {
  return base62(crc32(random), CHECKSUM_CHARS);
}

/** A new token: the prefix, 40 random base-62 characters (node:crypto's `randomInt`), the checksum. */
export function newToken(): string {
  let random = '';
  for (let index = 0; index < RANDOM_CHARS; index += 1) random += ALPHABET[randomInt(62)];
  return `${TOKEN_PREFIX}${random}${checksum(random)}`;
}

/**
 * True when a bearer value has the token prefix in any case (`svg_`, `SVG_`, `Svg_`…): it
 * is then a token, never a StateV key, so a token mangled on the way (upper-cased, cut
 * short) is refused as a malformed token and never sent upstream as a key.
 */
export function looksLikeToken(bearer: string): boolean {
  return bearer.slice(0, TOKEN_PREFIX.length).toLowerCase() === TOKEN_PREFIX;
}

/** True when a token has the right shape and its checksum matches. */
export function tokenChecksumValid(token: string): boolean {
  if (!TOKEN_SHAPE.test(token)) return false;
  const random = token.slice(TOKEN_PREFIX.length, TOKEN_PREFIX.length + RANDOM_CHARS);
  return token.endsWith(checksum(random));
}

/** The keyed hash the vault stores and looks a token up by: HMAC-SHA-256 under the vault's token key, base64url. */
export function tokenHash(hashKey: Buffer, token: string): string {
  return createHmac('sha256', hashKey).update(token).digest('base64url');
}
