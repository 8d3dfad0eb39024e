/**
 * The console's one way to the gateway: POST /admin/graphql on this origin, with the
 * session cookie (same origin, so the browser sends it and the gateway's Origin check passes).
 */

/** A refusal as the page shows it. */
export class ConsoleError extends Error {
  /** @param message - the sentence to show; code - the GraphQL error code; retryAfterSeconds - for RATE_LIMITED; status - the HTTP status */
  constructor(
    message: string,
    readonly code: string,
    readonly retryAfterSeconds: number | null = null,
    readonly status = 200,
  ) {
    super(message);
  }
}

interface GraphQLAnswer<T> {
  data?: T | null;
  errors?: Array<{ message: string; extensions?: { code?: unknown; retryAfterSeconds?: unknown } }>;
}

/** What happens when the session has ended (the app shows how to sign in again). */
let onSignedOut: () => void = () => undefined;

/** Registers the app's handler for a 401 (a session that ended). */
export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

/** Runs one operation; throws a {@link ConsoleError} with the gateway's own words on any refusal. */
export async function gql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetch('/admin/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query, variables }),
      credentials: 'same-origin',
    });
  } catch {
    throw new ConsoleError('The gateway did not answer: is it still running?', 'NETWORK');
  }
  let answer: GraphQLAnswer<T>;
  try {
    answer = (await response.json()) as GraphQLAnswer<T>;
  } catch {
    throw new ConsoleError(
      `The gateway answered HTTP ${response.status} without a GraphQL answer.`,
      'BAD_ANSWER',
      null,
      response.status,
    );
  }
  const error = answer.errors?.[0];
  if (response.status === 401) {
    onSignedOut();
    throw new ConsoleError(error?.message ?? 'Signed out.', 'UNAUTHENTICATED', null, 401);
  }
  if (error) {
    const code = typeof error.extensions?.code === 'string' ? error.extensions.code : 'ERROR';
    const retry = typeof error.extensions?.retryAfterSeconds === 'number' ? error.extensions.retryAfterSeconds : null;
    throw new ConsoleError(error.message, code, retry, response.status);
  }
  if (!answer.data) throw new ConsoleError('The gateway answered without data.', 'BAD_ANSWER', null, response.status);
  return answer.data;
}

/** The sentence for a failure: the gateway's message, and for RATE_LIMITED when to try again. */
export function describeError(error: unknown, now = new Date()): string {
  if (!(error instanceof ConsoleError)) return error instanceof Error ? error.message : String(error);
  if (error.code === 'RATE_LIMITED' && error.retryAfterSeconds !== null) {
    const at = new Date(now.getTime() + error.retryAfterSeconds * 1000);
    return `${error.message} Try again in ${error.retryAfterSeconds} s (at ${at.toLocaleTimeString()}).`;
  }
  return error.message;
}
