/**
 * The console's ways to the gateway: POST /admin/graphql on this origin, with the session
 * cookie (same origin, so the browser sends it and the gateway's Origin check passes), and,
 * for the site-documents page only, POST /graphql with the short-lived token the
 * administration graph made for it (see documents.tsx).
 */

/** A refusal as the page shows it. */
export class ConsoleError extends Error {
  /** @param message - the sentence to show; code - the GraphQL error code; retryAfterSeconds - for RATE_LIMITED; status - the HTTP status; extensions - the error's (e.g. CONFLICT's currentVersion) */
  constructor(
    message: string,
    readonly code: string,
    readonly retryAfterSeconds: number | null = null,
    readonly status = 200,
    readonly extensions: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
  }
}

interface GraphQLAnswer<T> {
  data?: T | null;
  errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
}

/** What happens when the session has ended (the app shows how to sign in again). */
let onSignedOut: () => void = () => undefined;

/** Registers the app's handler for a 401 (a session that ended). */
export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

/** Runs one operation on the administration graph; throws a {@link ConsoleError} with the gateway's own words on any refusal. */
export async function gql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  return post<T>('/admin/graphql', {}, 'same-origin', query, variables, () => onSignedOut());
}

/**
 * Runs one operation on the public graph with an access token (never the session cookie);
 * a 401 is the token's (expired, or not yet seen by this replica), not the session's.
 */
export async function publicGql<T>(token: string, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  return post<T>('/graphql', { authorization: `Bearer ${token}` }, 'omit', query, variables, () => undefined);
}

async function post<T>(
  path: string,
  headers: Record<string, string>,
  credentials: RequestCredentials,
  query: string,
  variables: Record<string, unknown>,
  unauthenticated: () => void,
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: JSON.stringify({ query, variables }),
      credentials,
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
    unauthenticated();
    throw new ConsoleError(error?.message ?? 'Signed out.', 'UNAUTHENTICATED', null, 401);
  }
  if (error) {
    const extensions = error.extensions ?? {};
    const code = typeof extensions.code === 'string' ? extensions.code : 'ERROR';
    const retry = typeof extensions.retryAfterSeconds === 'number' ? extensions.retryAfterSeconds : null;
    throw new ConsoleError(error.message, code, retry, response.status, extensions);
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
