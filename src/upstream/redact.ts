/**
 * Redaction of API keys and secrets from text the upstream sends back (error
 * messages, echoed headers), so that neither ever reaches a client, a log or a cache.
 *
 * A key is recognised in every form the upstream (or a proxy in front of it) might
 * echo it: any letter case, standard and URL-safe base64 (of the key alone and of
 * `Bearer <key>`), percent-encoding, the key written backwards, and any piece of 8 or
 * more characters of any of those forms. A secret shorter than {@link MIN_REDACTABLE_LENGTH} cannot be found
 * reliably in free text, so a text that may contain it is withheld entirely.
 */

/** Shortest piece of a secret that is recognised; shorter secrets make texts unusable. */
export const MIN_REDACTABLE_LENGTH = 8;

/** What a recognised piece of a secret is replaced with. */
export const REDACTED = '[redacted]';

/** Every textual form of a secret that the redactor looks for. */
function encodings(secret: string): string[] {
  const forms = new Set<string>([secret]);
  for (const source of [secret, `Bearer ${secret}`, `:${secret}`]) {
    const base64 = Buffer.from(source, 'utf8').toString('base64');
    forms.add(base64);
    forms.add(base64.replace(/=+$/, ''));
    forms.add(Buffer.from(source, 'utf8').toString('base64url'));
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
  /** Every window of {@link MIN_REDACTABLE_LENGTH} characters of every form, lower-cased. */
  private readonly windows = new Set<string>();
  /** True when some secret is too short to be found: texts are then withheld. */
  readonly withholds: boolean;

  constructor(secrets: readonly string[]) {
    const present = secrets.filter((secret) => secret.length > 0);
    this.withholds = present.some((secret) => secret.length < MIN_REDACTABLE_LENGTH);
    for (const secret of present) {
      for (const form of encodings(secret)) {
        const lower = form.toLowerCase();
        for (let i = 0; i + MIN_REDACTABLE_LENGTH <= lower.length; i += 1) this.windows.add(lower.slice(i, i + MIN_REDACTABLE_LENGTH));
      }
    }
  }

  /**
   * The text with every recognised piece replaced by {@link REDACTED}, or null when the
   * text must be withheld because a secret is too short to be recognised. Linear in
   * the text's length: every piece of 8+ characters is a chain of 8-character windows.
   */
  redact(text: string): string | null {
    if (this.withholds) return text === '' ? '' : null;
    if (this.windows.size === 0 || text.length < MIN_REDACTABLE_LENGTH) return text;
    let out = '';
    let copiedUpTo = 0;
    let coveredUpTo = -1;
    let spanStart = -1;
    for (let i = 0; i + MIN_REDACTABLE_LENGTH <= text.length; i += 1) {
      const window = text.slice(i, i + MIN_REDACTABLE_LENGTH).toLowerCase();
      if (!this.windows.has(window)) continue;
      if (i > coveredUpTo) {
        if (spanStart >= 0) {
          out += text.slice(copiedUpTo, spanStart) + REDACTED;
          copiedUpTo = coveredUpTo;
        }
        spanStart = i;
      }
      coveredUpTo = i + MIN_REDACTABLE_LENGTH;
    }
    if (spanStart >= 0) out += text.slice(copiedUpTo, spanStart) + REDACTED;
    else return text;
    return out + text.slice(coveredUpTo);
  }
}
