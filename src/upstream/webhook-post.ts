/**
 * The POST of a webhook delivery (payment events): undici's `request` on the global
 * dispatcher, kept here because this folder is the only importer of undici. Never
 * follows redirects; the body of the answer is read and dropped.
 */
import { request } from 'undici';

/** How long one delivery may take, ms. */
const DELIVERY_TIMEOUT_MS = 10_000;

/**
 * POSTs `body` to `url` with `headers`; resolves with the answer's status, or 0 when
 * there was none (connection refused, reset, timed out).
 */
export async function postWebhook(url: string, headers: Record<string, string>, body: string): Promise<number> {
  try {
    const answer = await request(url, { method: 'POST', headers, body, headersTimeout: DELIVERY_TIMEOUT_MS, bodyTimeout: DELIVERY_TIMEOUT_MS });
    await answer.body.dump();
    return answer.statusCode;
  } catch {
    return 0;
  }
}
