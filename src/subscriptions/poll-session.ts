/**
 * What the poll hub (poll-hub.ts) polls with: the real clock, the session a feed polls
 * through (background work on the key's budget), and the error events of failed polls.
 */
import type { UpstreamEconomy, UpstreamReply } from '../economy';
import { UpstreamSession } from '../economy';
import { GatewayError } from '../errors/gateway-error';
import type { PollClock } from '../domains/feeds/feed';
import type { Endpoint, PathParams } from '../upstream/endpoints';

/** The real clock. */
export const SYSTEM_CLOCK: PollClock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => {
    const timer = setTimeout(callback, ms);
    timer.unref();
    return timer;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * The session a feed polls through: every GET goes to `economy.fetchInBackground` at the
 * poll's priority instead of the operation path, so polls queue behind operations on
 * the key's budget and are accounted to no operation.
 */
export class PollSession extends UpstreamSession {
  constructor(
    private readonly pollEconomy: UpstreamEconomy,
    private readonly pollApiKey: string,
    private readonly pollKeyId: string,
    private readonly priority: 'missed' | 'background',
  ) {
    super(pollEconomy, pollApiKey, pollKeyId);
  }

  /** A GET as background work of the poll's priority (cache, coalescing and the key's budget, behind operations). */
  override get(endpoint: Endpoint, params?: PathParams): Promise<UpstreamReply> {
    return this.pollEconomy.fetchInBackground(
      { keyId: this.pollKeyId, apiKey: this.pollApiKey, endpoint, params },
      { priority: this.priority },
    );
  }
}

/** The error event after repeated failures: the last failure's code and extensions, and how many failed. */
export function pollFailedError(last: GatewayError, failures: number): GatewayError {
  return new GatewayError(
    last.code,
    `Polling the upstream failed ${failures} times in a row (last: ${last.message}). The subscription stays open and polling goes on with backoff.`,
    { ...last.extensions, consecutiveFailures: failures },
  );
}

/** A GatewayError as the Redis relay sends it to the other replicas. */
export function serializeError(error: GatewayError): {
  code: GatewayError['code'];
  message: string;
  extensions: Record<string, unknown>;
} {
  const { code: _code, ...extensions } = error.extensions;
  return { code: error.code, message: error.message, extensions };
}
