/**
 * What a client and the log see of an upstream text (an error body, a socket error's
 * message): markup stripped, the key and secret redacted, cut for the client and kept
 * (up to a bound) for the log.
 */
import { redactorFor } from './redact';

/** Longest upstream text passed on to clients (in `extensions.upstream.message` and the error message), in characters. */
export const MAX_MESSAGE_LENGTH = 200;
/** Longest upstream text kept whole for the log (the error's `detail`), in characters; the rest is cut with a note. */
export const MAX_DETAIL_LENGTH = 16 * 1024;
/** How much of a text is looked at for the client's cut, in characters (markup may take most of it). */
const CLIENT_SOURCE_LENGTH = 64 * 1024;

/**
 * What a client is shown of an upstream text: markup stripped (see {@link stripMarkup};
 * whitespace runs collapsed to one space), then cut to {@link MAX_MESSAGE_LENGTH}
 * characters. The client's own texts go through {@link safeTexts}, which redacts
 * before it cuts (stripping can join the pieces of an echo).
 */
function clientText(text: string): string {
  return plainText(text).slice(0, MAX_MESSAGE_LENGTH);
}

/** The text's first {@link CLIENT_SOURCE_LENGTH} characters without markup, whitespace collapsed. */
function plainText(text: string): string {
  return stripMarkup(text.slice(0, CLIENT_SOURCE_LENGTH)).replace(/\s+/g, ' ').trim();
}

/**
 * The text without HTML/XML markup: tags, comments, and whole `<script>` and `<style>`
 * elements become a space; a `<` that starts no tag ("a < b") stays. Linear in the
 * text's length (each search starts where the last ended; an unclosed construct runs
 * to the end), so a hostile text of unclosed tags costs no more than any other.
 */
function stripMarkup(text: string): string {
  const lower = text.toLowerCase();
  let out = '';
  let from = 0;
  for (;;) {
    const open = lower.indexOf('<', from);
    if (open < 0) return out + text.slice(from);
    out += text.slice(from, open);
    const next = lower.charAt(open + 1);
    if (!/[a-z!/?]/.test(next)) {
      out += '<';
      from = open + 1;
      continue;
    }
    out += ' ';
    const element = /^<(script|style)\b/.exec(lower.slice(open, open + 8))?.[1];
    if (lower.startsWith('<!--', open)) from = after(lower, '-->', open + 4);
    else if (element) from = after(lower, '>', after(lower, `</${element}`, open) - 1);
    else from = after(lower, '>', open);
  }
}

/** The index just past the first `token` at or after `from`, or the text's end when there is none. */
function after(text: string, token: string, from: number): number {
  const at = text.indexOf(token, from);
  return at < 0 ? text.length : at + token.length;
}

/**
 * The upstream's text for the client (see {@link clientText}) and for the log (whole, up
 * to {@link MAX_DETAIL_LENGTH}), with the key and secret removed in every form (see
 * {@link Redactor}); when a secret is too short to be recognised, a neutral text
 * replaces both. Redacts before cutting, so no piece of a key survives the cut.
 */
export function safeTexts(
  message: string,
  secrets: readonly string[],
  fallback: string,
): { shown: string; detail: string } {
  const redactor = redactorFor(secrets);
  const withheld = `${fallback} (message withheld: it may echo the credentials)`;
  // Enough beyond the cut that an echo crossing it is still seen whole.
  const shown = redactor.redact(plainText(message).slice(0, MAX_MESSAGE_LENGTH * 2 + 256));
  const whole = redactor.redact(message.slice(0, MAX_DETAIL_LENGTH + 256));
  if (shown === null || whole === null) return { shown: withheld, detail: withheld };
  const cut =
    message.length > MAX_DETAIL_LENGTH ? ` … (cut at ${MAX_DETAIL_LENGTH} of ${message.length} characters)` : '';
  return { shown: shown.slice(0, MAX_MESSAGE_LENGTH), detail: whole.slice(0, MAX_DETAIL_LENGTH) + cut };
}

/**
 * The `message` of the upstream's error body `{statusCode, message, error}`, or the raw
 * text, as a client would see it: markup stripped, cut to {@link MAX_MESSAGE_LENGTH}
 * (not redacted: the client redacts with the request's secrets).
 */
export function upstreamMessage(body: unknown): string {
  return clientText(rawMessage(body));
}

/** The whole message text of an error body, uncut (cut after redaction). */
export function rawMessage(body: unknown): string {
  if (typeof body === 'string') return body;
  if (body && typeof body === 'object') {
    const message: unknown = (body as Record<string, unknown>).message;
    if (typeof message === 'string') return message;
    if (Array.isArray(message)) {
      const joined = message.filter((m): m is string => typeof m === 'string').join('; ');
      if (joined) return joined;
    }
    const error: unknown = (body as Record<string, unknown>).error;
    if (typeof error === 'string') return error;
  }
  return '';
}
