import cors from 'cors';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Request headers a browser client of the gateway may send. */
export const CORS_ALLOWED_HEADERS = [
  'authorization',
  'content-type',
  'x-api-secret',
  'apollo-require-preflight',
  'cache-control',
  'prefer',
  'x-apollo-operation-name',
];

/**
 * CORS for the GraphQL endpoint with the well-kept `cors` package: origins listed in
 * `CORS_ORIGINS` (or any, with `*`), and those an access token is bound to
 * (`tokenOrigin`, `tokens create --origin`), get a grant; others get no CORS headers at all,
 * so the browser refuses to hand them the response. Preflights are answered 204.
 *
 * @returns a function that handles the CORS part of a request and resolves to true
 *   when the request is finished (a preflight), false when it should go on; with no origin
 *   to grant it is false at once (no promise, no turn).
 */
export function createCors(
  origins: readonly string[],
  tokenOrigin?: (origin: string) => boolean,
): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> | false {
  if (origins.length === 0 && !tokenOrigin) return () => false;
  const allowAll = origins.includes('*');
  const listed = new Set(origins);
  const middleware = cors({
    // The origins of CORS_ORIGINS, and those access tokens are bound to (read at each request: the vault changes).
    origin: allowAll
      ? '*'
      : (origin, callback) =>
          callback(null, origin !== undefined && (listed.has(origin) || (tokenOrigin?.(origin) ?? false))),
    methods: ['GET', 'POST', 'OPTIONS'],
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: ['retry-after', 'preference-applied'],
    maxAge: 600,
    optionsSuccessStatus: 204,
  });
  return (req, res) =>
    new Promise<boolean>((resolve, reject) => {
      // The cors package ends preflights itself and calls next() for everything else.
      res.once('finish', () => resolve(true));
      middleware(req, res, (error?: unknown) => {
        if (error) reject(error instanceof Error ? error : new Error(String(error)));
        else resolve(false);
      });
    });
}
