/**
 * The site-documents editor's checks, in the page before anything is sent: the JSON (with
 * where it breaks), its size as the gateway stores it (canonical JSON: keys sorted, no
 * whitespace) and the option slots it needs against the company's free ones.
 */
import { parse, printParseErrorCode } from 'jsonc-parser';
import type { ParseError } from 'jsonc-parser';

/** The text as a value, or where and why it is not JSON. */
export type Checked =
  | { readonly ok: true; readonly value: unknown; readonly bytes: number }
  | {
      readonly ok: false;
      readonly position: number;
      readonly line: number;
      readonly column: number;
      readonly message: string;
    };

/** A value as canonical JSON: object keys sorted (by code unit, as the gateway sorts them), no whitespace. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, each]) => `${JSON.stringify(key)}:${canonical(each)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** What each of jsonc-parser's error codes (by name) means, as the page says it. */
const PROBLEMS: Readonly<Record<string, string>> = {
  InvalidSymbol: 'this is not a JSON value (strings need double quotes; true, false and null are lower case)',
  InvalidNumberFormat: 'this number is not written as JSON allows',
  PropertyNameExpected: 'a property name in double quotes is expected here (no comma after the last member)',
  ValueExpected: 'a value is expected here',
  ColonExpected: 'a colon is expected after the property name',
  CommaExpected: 'a comma is expected here',
  CloseBraceExpected: 'a closing } is expected here',
  CloseBracketExpected: 'a closing ] is expected here',
  EndOfFileExpected: 'the document should end here (one JSON value only)',
  InvalidCommentToken: 'JSON has no comments',
  UnexpectedEndOfComment: 'JSON has no comments',
  UnexpectedEndOfString: 'this string is not closed on its line (a line break in a string is written \\n)',
  UnexpectedEndOfNumber: 'this number ends too early',
  InvalidUnicode: 'this \\u escape needs four hex digits',
  InvalidEscapeCharacter: 'this escape is not one JSON has',
  InvalidCharacter: 'this character must be escaped in a JSON string',
};

/** Parses the editor's text: the value and its stored size, or the line and column where it stops being JSON. */
export function checkJson(text: string): Checked {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // JSON.parse decides; jsonc-parser (strict: no comments, no trailing comma) says where and why.
    const errors: ParseError[] = [];
    parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
    const first = errors[0];
    const v8 = /at position (\d+)/.exec(error instanceof Error ? error.message : '');
    const position = Math.min(first?.offset ?? (v8 ? Number(v8[1]) : text.length), text.length);
    const before = text.slice(0, position).split('\n');
    const message =
      text.trim() === ''
        ? 'the document is empty: a JSON value is needed, e.g. {}'
        : first
          ? (PROBLEMS[printParseErrorCode(first.error)] ?? printParseErrorCode(first.error))
          : error instanceof Error
            ? error.message
            : String(error);
    return {
      ok: false,
      position,
      line: before.length,
      column: (before.at(-1)?.length ?? 0) + 1,
      message: `${message}.`,
    };
  }
  return { ok: true, value, bytes: new TextEncoder().encode(canonical(value)).length };
}

/** What `siteDocumentCapacity` says of the company's slots. */
export interface Capacity {
  readonly freeSlots: number[];
  readonly foreignSlots: number[];
  readonly documentSlots: number[];
  readonly estimatedFreeBytes: number;
}

/** JSON bytes per chunk slot when the capacity cannot tell (the default encoding's measured figure). */
const BYTES_PER_SLOT = 8700;

/** How a size compares with the room: the slots it needs and a sentence. */
export function slotsFor(
  bytes: number,
  capacity: Capacity | null,
  ownSlots: number,
): { readonly slots: number; readonly fits: boolean; readonly text: string } {
  const free = capacity?.freeSlots.length ?? 0;
  // estimatedFreeBytes counts every free slot but the committing one.
  const perSlot = capacity && free > 1 ? capacity.estimatedFreeBytes / (free - 1) : BYTES_PER_SLOT;
  const chunks = Math.max(1, Math.ceil(bytes / Math.max(1, perSlot)));
  const slots = chunks + 1;
  const size = `${bytes.toLocaleString('en')} bytes as stored (canonical JSON)`;
  const need = `about ${slots} slots (${chunks} chunk${chunks === 1 ? '' : 's'} and the committing slot)`;
  if (!capacity) return { slots, fits: true, text: `${size}: ${need}.` };
  if (slots <= free) return { slots, fits: true, text: `${size}: ${need}; ${free} slots are free.` };
  if (slots <= free + ownSlots)
    return {
      slots,
      fits: true,
      text: `${size}: ${need}; ${free} slots are free. A change of some chunks fits; rewriting it whole does not (the new chunks are written beside the old ones, which the commit frees).`,
    };
  return {
    slots,
    fits: false,
    text: `${size}: ${need}, but only ${free} slots are free (${capacity.foreignSlots.length} hold other data): the gateway will refuse it with SITE_DOCUMENT_TOO_LARGE.`,
  };
}
