/**
 * The simulated API's errors and what every route handler gets: the real API's error body
 * (`{statusCode, message, error}`), its 429 and premium messages, and the handler context.
 */
import type { FixtureCharacter, SimulatedApiKey } from './fixtures';
import type { WireErrorBody } from './upstream.types';
/** HTTP status phrases used in error bodies (`error` field). */
export const STATUS_PHRASES: Readonly<Record<number, string>> = Object.freeze({
  200: 'OK',
  400: 'Bad Request',
  401: 'Unauthorized',
  404: 'Not Found',
  413: 'Payload Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
});

/** An error answer; thrown by handlers and turned into a {@link WireErrorBody}. */
export class ApiError extends Error {
  /**
   * @param status HTTP status code.
   * @param message The `message` of the error body.
   * @param headers Extra response headers (e.g. `Retry-After`).
   */
  constructor(
    /** HTTP status code of the error answer. */
    readonly status: number,
    message: string,
    /** Extra response headers (e.g. `Retry-After`). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Builds the JSON error body `{statusCode, message, error}` for a status and message. */
export function errorBody(status: number, message: string): WireErrorBody {
  // NestJS's ThrottlerException, which the real API answers with, carries no `error` phrase.
  if (status === 429) return { statusCode: status, message };
  return { statusCode: status, message, error: STATUS_PHRASES[status] ?? 'Error' };
}

/** The message of the real API's 429 (NestJS's throttler). */
export const THROTTLER_MESSAGE = 'ThrottlerException: Too Many Requests';

/** The message of a premium-only endpoint refused to a key without premium: a 401 containing "Premium", as clients check. */
export const PREMIUM_MESSAGE = 'Premium required: this endpoint is only available to StateV Premium keys';

/** Everything a route handler may use. */
export interface HandlerContext {
  /** The caller's key (scopes, premium). */
  readonly key: SimulatedApiKey;
  /** The character the key belongs to: whose companies and buildings are answered. */
  readonly character: FixtureCharacter;
  /** The route's path parameters by name (absent optional ones undefined). */
  readonly params: Readonly<Record<string, string | undefined>>;
  /** The request body as text (the POST's JSON; empty for a GET). */
  readonly body: string;
  /** The simulator's time, epoch ms. */
  readonly now: number;
}
