/**
 * Redaction of API keys and secrets from text the upstream sends back (error
 * messages, echoed headers), so that neither ever reaches a client, a log or a cache.
 *
 * A key is recognised in every form the upstream (or a proxy in front of it) might
 * echo it: any letter case, standard and URL-safe base64 (of the key alone and of
 * `Bearer <key>`), hexadecimal (either case), percent-encoding, the key written
 * backwards, any of those with its characters spread out by separators (`d e m o - k e y`,
 * `d.e.m.o`, `64:65:6d:6f`: spaces and punctuation between them, see {@link SEPARATORS}),
 * and any piece of 8 or more characters of any of those forms. A secret shorter than
 * {@link MIN_REDACTABLE_LENGTH} cannot be found reliably in free text, so every text is
 * withheld entirely; one with fewer characters than that besides separators withholds the
 * texts that hold those characters in a row (read without separators).
 */

import { hash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/** Shortest piece of a secret that is recognised; shorter secrets make texts unusable. */
export const MIN_REDACTABLE_LENGTH = 8;

/** What a recognised piece of a secret is replaced with. */
export const REDACTED = '[redacted]';

/**
 * Characters that may be put between a secret's characters to spread it out (whitespace
 * and punctuation). The redactor also reads each text without them, and finds there the
 * forms of a secret written without them.
 */
const SEPARATORS = /[\s\-._,:;|/\\'"`+*~=()[\]{}<>]/;

/** {@link SEPARATORS}, every match: a text read without its separators is `text.replace(EVERY_SEPARATOR, '')`. */
const EVERY_SEPARATOR = new RegExp(SEPARATORS.source, 'g');

/**
 * Characters whose lower case depends on what surrounds them or is not one character (`İ`,
 * `Σ`, surrogate pairs): a text holding one is read through lower-cased copies; any other is
 * lower-cased character by character, in place, with the same result.
 */
const CONTEXT_CASED = /[\u0130\u03a3\ud800-\udfff]/;

/** Every textual form of a secret that the redactor looks for. */
function encodings(secret: string): string[] {
  const forms = new Set<string>([secret]);
  for (const source of [secret, `Bearer ${secret}`, `:${secret}`]) {
    const base64 = Buffer.from(source, 'utf8').toString('base64');
    forms.add(base64);
    forms.add(base64.replace(/=+$/, ''));
    forms.add(Buffer.from(source, 'utf8').toString('base64url'));
    forms.add(Buffer.from(source, 'utf8').toString('hex'));
  }
  forms.add(encodeURIComponent(secret));
  forms.add(encodeURIComponent(secret).replace(/%20/g, '+'));
  forms.add(encodeURIComponent(encodeURIComponent(secret)));
  // Written backwards (a naive "obfuscation" some error pages apply).
  forms.add([...secret].reverse().join(''));
  return [...forms];
}

/**
 * Finds secrets in texts. Build one per set of secrets (one request) and call
 * {@link redact} on each text; building costs O(total length of the secrets).
 */
export class Redactor {
  /** Every form of every secret, lower-cased (their windows are what the redactor looks for). */
  private readonly forms: string[] = [];
  /** The same without their {@link SEPARATORS}, for texts read without theirs. */
  private readonly compactForms: string[] = [];
  /** The windows of {@link forms} and {@link compactForms} as texts, made when a text first needs them (see {@link windowSets}). */
  private sets: { windows: Set<string>; compactWindows: Set<string> } | null = null;
  /** True when some secret is too short to be found: texts are then withheld. */
  readonly withholds: boolean;
  /**
   * Secrets long enough as written but with fewer than {@link MIN_REDACTABLE_LENGTH}
   * characters besides separators (`sim-key-1`), lower-cased without them: spread out, no
   * window finds them, so a text that holds one, read without separators, is withheld. Other
   * texts pass (the upstream's "Inventory is empty" must still be read as such).
   */
  private readonly shortCompacts: string[];
  /** The hashes of {@link windows}, so that an ASCII text is scanned without a string per window. */
  private readonly windowHashes = new Set<number>();
  /** The hashes of {@link compactWindows}. */
  private readonly compactWindowHashes = new Set<number>();

  constructor(secrets: readonly string[]) {
    const present = secrets.filter((secret) => secret.length > 0);
    this.withholds = present.some((secret) => secret.length < MIN_REDACTABLE_LENGTH);
    this.shortCompacts = present
      .map((secret) => compact(secret).text.toLowerCase())
      .filter((text) => text.length < MIN_REDACTABLE_LENGTH);
    // Only the windows' hashes are made here, from the forms' character codes: a redactor is
    // built for each new key whose result has an error, at the end of its first answer, and
    // most texts are then scanned by hash alone (the window texts confirm a hash that matches).
    for (const secret of present) {
      for (const form of encodings(secret)) {
        const lower = form.toLowerCase();
        const compactLower = form.replace(EVERY_SEPARATOR, '').toLowerCase();
        this.forms.push(lower);
        this.compactForms.push(compactLower);
        addWindowHashes(this.windowHashes, lower);
        addWindowHashes(this.compactWindowHashes, compactLower);
      }
    }
  }

  /** Every window of {@link MIN_REDACTABLE_LENGTH} characters of every form (and of every form read without separators), lower-cased: made once, on first need. */
  private windowSets(): { windows: Set<string>; compactWindows: Set<string> } {
    if (this.sets === null) {
      const windows = new Set<string>();
      const compactWindows = new Set<string>();
      for (const form of this.forms) addWindows(windows, form);
      for (const form of this.compactForms) addWindows(compactWindows, form);
      this.sets = { windows, compactWindows };
    }
    return this.sets;
  }

  /**
   * The text with every recognised piece replaced by {@link REDACTED}, or null when the
   * text must be withheld because a secret is too short to be recognised. Linear in
   * the text's length: every piece of 8+ characters is a chain of 8-character windows.
   */
  redact(text: string): string | null {
    if (this.withholds) return text === '' ? '' : null;
    if (this.windowHashes.size === 0 || text.length < MIN_REDACTABLE_LENGTH) return text;
    // Nearly every text is scanned in place: nothing is copied unless a window matches.
    if (this.shortCompacts.length === 0 && !CONTEXT_CASED.test(text)) {
      const hits = this.inPlaceHits(text);
      return hits === null ? text : replaced(text, hits);
    }
    const compacted = compact(text);
    const lower = compacted.text.toLowerCase();
    if (this.shortCompacts.some((short) => lower.includes(short))) return null;
    // Spans [start, end) of the text to replace: windows found as written, and windows
    // found in the text read without separators (mapped back to where their characters are).
    const hits: Array<[number, number]> = [];
    const { windows, compactWindows } = this.windowSets();
    for (let i = 0; i + MIN_REDACTABLE_LENGTH <= text.length; i += 1) {
      if (windows.has(text.slice(i, i + MIN_REDACTABLE_LENGTH).toLowerCase()))
        hits.push([i, i + MIN_REDACTABLE_LENGTH]);
    }
    for (let j = 0; j + MIN_REDACTABLE_LENGTH <= lower.length; j += 1) {
      if (compactWindows.has(lower.slice(j, j + MIN_REDACTABLE_LENGTH)))
        hits.push([compacted.at[j] ?? 0, (compacted.at[j + MIN_REDACTABLE_LENGTH - 1] ?? 0) + 1]);
    }
    return hits.length === 0 ? text : replaced(text, hits);
  }

  /**
   * The spans of `text` (holding no {@link CONTEXT_CASED} character) that {@link redact} replaces, or null when there are none:
   * the same windows as the general path (as written, and read without separators), found by
   * their hash over the lower-cased character codes and confirmed against the window sets,
   * so that a text holding no secret costs no string and no copy, whatever its length.
   */
  private inPlaceHits(text: string): Array<[number, number]> | null {
    let hits: Array<[number, number]> | null = null;
    // The last MIN_REDACTABLE_LENGTH characters (lower-cased codes) read without separators, and where each was.
    const codes = new Int32Array(MIN_REDACTABLE_LENGTH);
    const at = new Int32Array(MIN_REDACTABLE_LENGTH);
    let kept = 0;
    for (let i = 0; i < text.length; i += 1) {
      if (i + MIN_REDACTABLE_LENGTH <= text.length) {
        let h = 0;
        for (let k = i; k < i + MIN_REDACTABLE_LENGTH; k += 1) h = windowHashStep(h, lowerCode(text.charCodeAt(k)));
        if (
          this.windowHashes.has(h) &&
          this.windowSets().windows.has(text.slice(i, i + MIN_REDACTABLE_LENGTH).toLowerCase())
        )
          (hits ??= []).push([i, i + MIN_REDACTABLE_LENGTH]);
      }
      const code = text.charCodeAt(i);
      if (isSeparator(code)) continue;
      codes[kept % MIN_REDACTABLE_LENGTH] = lowerCode(code);
      at[kept % MIN_REDACTABLE_LENGTH] = i;
      kept += 1;
      if (kept < MIN_REDACTABLE_LENGTH) continue;
      let h = 0;
      for (let k = kept - MIN_REDACTABLE_LENGTH; k < kept; k += 1)
        h = windowHashStep(h, codes[k % MIN_REDACTABLE_LENGTH] ?? 0);
      if (!this.compactWindowHashes.has(h)) continue;
      let window = '';
      for (let k = kept - MIN_REDACTABLE_LENGTH; k < kept; k += 1)
        window += String.fromCharCode(codes[k % MIN_REDACTABLE_LENGTH] ?? 0);
      if (this.windowSets().compactWindows.has(window))
        (hits ??= []).push([at[kept % MIN_REDACTABLE_LENGTH] ?? 0, i + 1]);
    }
    return hits;
  }
}

/** `text` with the union of the spans `hits` replaced by {@link REDACTED} (one marker per run of overlapping spans). */
function replaced(text: string, hits: Array<[number, number]>): string {
  hits.sort((a, b) => a[0] - b[0]);
  let out = '';
  let copiedUpTo = 0;
  let spanStart = -1;
  let coveredUpTo = -1;
  for (const [start, end] of hits) {
    if (start > coveredUpTo) {
      if (spanStart >= 0) {
        out += text.slice(copiedUpTo, spanStart) + REDACTED;
        copiedUpTo = coveredUpTo;
      }
      spanStart = start;
    }
    coveredUpTo = Math.max(coveredUpTo, end);
  }
  out += text.slice(copiedUpTo, spanStart) + REDACTED;
  return out + text.slice(coveredUpTo);
}

/** 1 for each ASCII code that {@link SEPARATORS} matches. */
const ASCII_SEPARATORS = Uint8Array.from({ length: 128 }, (_, code) =>
  SEPARATORS.test(String.fromCharCode(code)) ? 1 : 0,
);

/** True when {@link SEPARATORS} matches the character of `code`. */
function isSeparator(code: number): boolean {
  return code < 128 ? ASCII_SEPARATORS[code] === 1 : SEPARATORS.test(String.fromCharCode(code));
}

/** The code of a character (not {@link CONTEXT_CASED}) lower-cased as `toLowerCase` does it. */
function lowerCode(code: number): number {
  if (code < 128) return code >= 65 && code <= 90 ? code + 32 : code;
  return String.fromCharCode(code).toLowerCase().charCodeAt(0);
}

/** One step of the hash of a window's character codes (a window is a few characters: no need to roll it). */
function windowHashStep(hash: number, code: number): number {
  return (Math.imul(hash, 31) + code) | 0;
}

/** Adds the hash ({@link windowHashStep} over its character codes) of every window of {@link MIN_REDACTABLE_LENGTH} characters of `form` to `hashes`, making no string. */
function addWindowHashes(hashes: Set<number>, form: string): void {
  for (let i = 0; i + MIN_REDACTABLE_LENGTH <= form.length; i += 1) {
    let hash = 0;
    for (let k = i; k < i + MIN_REDACTABLE_LENGTH; k += 1) hash = windowHashStep(hash, form.charCodeAt(k));
    hashes.add(hash);
  }
}

/** Redactors of the secrets seen last (each holds a few hundred windows, about 40 KB): keyed by a sha256 of the secrets, never the secrets. */
const recentRedactors = new LRUCache<string, Redactor>({ max: 32 });

/**
 * The {@link Redactor} of `secrets`, built once for the same secrets while they are among
 * the 32 sets used last: every result with an error is redacted with its caller's key and
 * secret, and building one costs more than redacting a short message (every window of
 * every form of each secret).
 */
export function redactorFor(secrets: readonly string[]): Redactor {
  const key = hash('sha256', secrets.join('\u0000'), 'base64url');
  let redactor = recentRedactors.get(key);
  if (!redactor) {
    redactor = new Redactor(secrets);
    recentRedactors.set(key, redactor);
  }
  return redactor;
}

/** Adds every window of {@link MIN_REDACTABLE_LENGTH} characters of `form` to `windows`. */
function addWindows(windows: Set<string>, form: string): void {
  for (let i = 0; i + MIN_REDACTABLE_LENGTH <= form.length; i += 1)
    windows.add(form.slice(i, i + MIN_REDACTABLE_LENGTH));
}

/** A text without its {@link SEPARATORS}, and where each of its characters was in the text. */
function compact(text: string): { text: string; at: number[] } {
  let out = '';
  const at: number[] = [];
  for (let i = 0; i < text.length; i += 1) {
    const char = text.charAt(i);
    if (SEPARATORS.test(char)) continue;
    out += char;
    at.push(i);
  }
  return { text: out, at };
}
