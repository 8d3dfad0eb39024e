/**
 * RFC 7240 `Prefer: wait=N`: how long an operation may wait for upstream budget, and the
 * `Preference-Applied` answer. A leaf: the per-operation context reads the header with it,
 * the Apollo server answers with its plugin, and it imports nothing of either.
 */
import type { ApolloServerPlugin } from '@apollo/server';

/**
 * The `wait` preference of an RFC 7240 `Prefer` header, in whole seconds, or null when
 * the header has none (or an unreadable one, which is ignored as RFC 7240 asks).
 * Accepts `wait=5`, `wait="5"`, and `wait` among other preferences (`respond-async, wait=5`).
 */
export function preferredWaitSeconds(prefer: string | undefined): number | null {
  const match = /(?:^|,)\s*wait\s*=\s*"?(\d{1,9})"?\s*(?:;[^,]*)?(?=,|$)/i.exec(prefer ?? '');
  return match?.[1] === undefined ? null : Number(match[1]);
}

/**
 * An operation's patience (ms it waits for upstream budget) from its `Prefer: wait=N`:
 * N seconds, at most `maxMs` (`UPSTREAM_PATIENCE_MAX_MS`); null without the preference,
 * so the gateway's `UPSTREAM_PATIENCE_MS` applies.
 */
export function patienceFromPrefer(prefer: string | undefined, maxMs: number): number | null {
  const seconds = preferredWaitSeconds(prefer);
  return seconds === null ? null : Math.min(seconds * 1000, maxMs);
}

/** What {@link preferWaitPlugin} reads of an operation's context: its session's patience. */
export interface PatientContext {
  /** The operation's upstream session. */
  readonly session: {
    /** Ms the operation waits for upstream budget when it asked with `Prefer: wait`, else null. */
    readonly patienceMs: number | null;
  };
}

/**
 * Apollo plugin that answers `Preference-Applied: wait=N` (whole seconds the operation
 * was willing to wait for upstream budget) when the request's `Prefer: wait` was
 * honoured, in full or up to the cap.
 */
export function preferWaitPlugin(): ApolloServerPlugin<PatientContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response, contextValue }) {
          const patienceMs = contextValue.session.patienceMs;
          if (patienceMs !== null)
            response.http.headers.set('preference-applied', `wait=${Math.floor(patienceMs / 1000)}`);
        },
      };
    },
  };
}
