import pino from 'pino';
import type { DestinationStream, Logger } from 'pino';

/**
 * Paths pino redacts in every log line, wherever a request, its headers or its
 * variables might be logged: the bearer key, the API secret and an alert's target (a
 * Discord webhook URL is a credential) never reach a log.
 */
export const REDACT_PATHS = [
  'authorization',
  'apiKey',
  'apiSecret',
  '*.authorization',
  '*.apiKey',
  '*.apiSecret',
  '*.*.apiSecret',
  'headers.authorization',
  'headers["x-api-secret"]',
  'req.headers.authorization',
  'req.headers["x-api-secret"]',
  'variables.input.apiSecret',
  'secret',
  // An alert's target: a Discord webhook URL holds its token.
  'variables.input.url',
  'target.url',
  '*.target.url',
  'signingSecret',
  '*.signingSecret',
];

/**
 * Creates the gateway's structured logger (pino, JSON lines, with redaction).
 *
 * @param level - pino level, e.g. `info`; `silent` for none
 * @param destination - where lines go (default stdout); tests pass a stream to read them
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    { level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { service: 'statev-gateway' } },
    destination,
  );
}
