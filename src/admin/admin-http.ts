/**
 * The administration routes over HTTP:
 *
 * - `GET|POST /admin/graphql`: the administration graph, for a console session (cookie) or
 *   an access token with the `admin` grant; anything else is 401 (no or a dead credential)
 *   or 403 (a StateV key, a token without the grant, a cross-site request) with no data;
 * - `GET /console/sign-in?code=…`: a one-time code exchanged for a session cookie, 303 to `/console/`;
 * - `GET|HEAD /console/`, `/console/console.js`, `/console/console.css`: the console (built by `npm run build`).
 *
 * Every answer carries a strict Content-Security-Policy (no inline script, no outside
 * host, `frame-ancestors 'none'`), `Referrer-Policy: no-referrer` and `Cache-Control:
 * no-store` (helmet). A request with the session cookie must carry the gateway's own
 * `Origin` (or, for a GET of a page, none): a cross-site request is refused before anything runs.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApolloServer } from '@apollo/server';
import { parse as parseCookies, serialize as serializeCookie } from 'cookie';
import helmet from 'helmet';
import { requestCredential } from '../pipeline/credential';
import type { TokenResolver } from '../vault';
import { TOKEN_REFUSALS } from '../vault';
import { executeOnApollo, readGraphQLRequest, sendGraphQLErrors, sendRefusal } from '../web/apollo-http';
import type { AdminContext } from './admin-schema';
import type { AdminService } from './admin-service';
import type { ConsoleAuth } from './console-auth';
import type { ConsoleAsset } from './console-assets';

/** What the routes need. */
export interface AdminRoutesParts {
  /** The administration graph's Apollo server (started). */
  readonly apollo: ApolloServer<AdminContext>;
  /** The resolvers' service. */
  readonly admin: AdminService;
  /** Codes, sessions, audit. */
  readonly auth: ConsoleAuth;
  /** Access tokens (the vault, kept current). */
  readonly tokens: TokenResolver;
  /** `PUBLIC_URL`, or null. */
  readonly publicUrl: string | null;
  /** `MAX_BODY_BYTES`. */
  readonly maxBodyBytes: number;
  /** The console's built files by path (empty when not built). */
  readonly assets: ReadonlyMap<string, ConsoleAsset>;
}

/** The console session cookie's name: with the `__Host-` prefix behind https. */
export function sessionCookieName(secure: boolean): string {
  return secure ? '__Host-statev-console' : 'statev-console';
}

/** The policy of every administration answer: own scripts, styles, images and connections only; no frames, no plugins, no base. */
const CSP_DIRECTIVES = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'", 'data:'],
  fontSrc: ["'self'"],
  connectSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'none'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
};

/** The console's page when its files were not built: no script, no inline style. */
const CONSOLE_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>StateV gateway console</title></head>
<body>
<h1>StateV gateway console</h1>
<p>The console's files are not built: run <code>npm run build</code> in the checkout (an installed package has them). Signed in, this browser may still use the administration graph at <code>/admin/graphql</code> (POST, from this origin).</p>
<p>A new sign-in link: <code>statev-gateway console</code>. To end every session: <code>statev-gateway console --sign-out-all</code>.</p>
</body>
</html>
`;

const SIGN_IN_FAILED = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Sign-in link not valid</title></head>
<body>
<h1>This sign-in link is not valid</h1>
<p>It was used already, it expired (links work for 10 minutes), or it was not copied whole. Run <code>statev-gateway console</code> for a new one.</p>
</body>
</html>
`;

function sendHtml(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  html: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    ...headers,
    'content-type': 'text/html; charset=utf-8',
    'content-length': String(Buffer.byteLength(html)),
  });
  res.end(req.method === 'HEAD' ? undefined : html);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * Builds the administration routes' handler. It answers `/admin/graphql`, `/console` and
 * `/console/*` and resolves true; any other path resolves false (the router goes on).
 */
export function adminRoutes(
  parts: AdminRoutesParts,
): (req: IncomingMessage, res: ServerResponse, path: string) => Promise<boolean> {
  const secure = parts.publicUrl?.startsWith('https:') ?? false;
  const cookieName = sessionCookieName(secure);
  const ownOrigin = (req: IncomingMessage): string =>
    parts.publicUrl ? new URL(parts.publicUrl).origin : `http://${header(req, 'host') ?? ''}`;
  const secureHeaders = helmet({
    contentSecurityPolicy: { useDefaults: false, directives: CSP_DIRECTIVES },
    referrerPolicy: { policy: 'no-referrer' },
    frameguard: { action: 'deny' },
    strictTransportSecurity: secure,
    crossOriginResourcePolicy: { policy: 'same-origin' },
  });

  /** Null when the request may go on; else the reason it is cross-site. */
  const crossSite = (req: IncomingMessage, originRequired: boolean): string | null => {
    const origin = header(req, 'origin');
    const site = header(req, 'sec-fetch-site');
    if (site === 'cross-site' || site === 'same-site') return `the browser says it is ${site}`;
    if (origin === undefined) return originRequired ? 'it has no Origin header' : null;
    return origin === ownOrigin(req) ? null : `its Origin ${origin} is not the gateway's own (${ownOrigin(req)})`;
  };

  const refuse = (
    req: IncomingMessage,
    res: ServerResponse,
    status: 401 | 403 | 405,
    code: string,
    message: string,
    headers: Record<string, string> = {},
  ): void => {
    sendGraphQLErrors(req, res, status, [{ message, code }], headers);
  };

  /** Who is acting, or null once refused. */
  const actorOf = async (req: IncomingMessage, res: ServerResponse): Promise<string | null> => {
    const authorization = header(req, 'authorization');
    if (authorization !== undefined && authorization.trim() !== '') {
      const credential = requestCredential(req);
      if (credential.kind === 'key') {
        refuse(
          req,
          res,
          403,
          'FORBIDDEN',
          'The administration graph does not accept StateV API keys: sign in with the link of `statev-gateway console`, or send an access token with the admin grant.',
        );
        return null;
      }
      if (credential.kind !== 'token') {
        refuse(req, res, 401, 'UNAUTHENTICATED', 'The Authorization header is not "Bearer <access token>".', {
          'www-authenticate': 'Bearer',
        });
        return null;
      }
      const check = parts.tokens.check(credential);
      if (check.kind === 'refused') {
        refuse(req, res, 401, 'UNAUTHENTICATED', TOKEN_REFUSALS[check.reason], {
          'www-authenticate': 'Bearer error="invalid_token"',
        });
        return null;
      }
      if (check.token.origin !== null && check.token.origin !== credential.origin) {
        refuse(req, res, 401, 'UNAUTHENTICATED', TOKEN_REFUSALS['wrong-origin'], {
          'www-authenticate': 'Bearer error="invalid_token"',
        });
        return null;
      }
      if (!check.token.grantTexts.includes('admin')) {
        refuse(
          req,
          res,
          403,
          'FORBIDDEN',
          'This access token has no admin grant: the administration graph answers only a console session or a token created with --grant admin.',
        );
        return null;
      }
      return `token:${check.token.id}`;
    }
    const cookieValue = parseCookies(header(req, 'cookie') ?? '')[cookieName];
    if (cookieValue === undefined) {
      refuse(
        req,
        res,
        401,
        'UNAUTHENTICATED',
        'Sign in first: open the link `statev-gateway console` prints, or send an access token with the admin grant (Authorization: Bearer svg_…).',
        { 'www-authenticate': 'Bearer' },
      );
      return null;
    }
    const cross = crossSite(req, true);
    if (cross !== null) {
      refuse(
        req,
        res,
        403,
        'FORBIDDEN',
        `A console request must come from the gateway's own pages: this one was refused because ${cross}.`,
      );
      return null;
    }
    const session = await parts.auth.session(cookieValue);
    if (!session) {
      refuse(
        req,
        res,
        401,
        'UNAUTHENTICATED',
        'The console session has ended (12 hours without a request, or every session was signed out): run `statev-gateway console` for a new sign-in link.',
      );
      return null;
    }
    return `session:${session.id}`;
  };

  const graphql = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'GET' && req.method !== 'POST') {
      refuse(
        req,
        res,
        405,
        'METHOD_NOT_ALLOWED',
        `The method ${req.method ?? ''} is not allowed on /admin/graphql: use POST (or GET for queries).`,
        { allow: 'GET, POST' },
      );
      return;
    }
    const actor = await actorOf(req, res);
    if (actor === null) return;
    const request = await readGraphQLRequest(req, { maxBodyBytes: parts.maxBodyBytes });
    if (request.kind === 'refused') {
      sendRefusal(req, res, request);
      return;
    }
    const search = new URL(req.url ?? '/', 'http://gateway.invalid').search;
    await executeOnApollo(parts.apollo, req, res, {
      headers: request.headers,
      body: request.body,
      search,
      context: async () => ({ admin: parts.admin, auth: parts.auth, actor, origin: ownOrigin(req) }),
    });
  };

  const signIn = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    const signedIn = await parts.auth.redeemCode(url.searchParams.get('code') ?? '');
    if (!signedIn) {
      sendHtml(req, res, 400, SIGN_IN_FAILED);
      return;
    }
    await parts.auth.audit(`session:${signedIn.session.id}`, 'signIn', null);
    const cookie = serializeCookie(cookieName, signedIn.cookieValue, {
      httpOnly: true,
      sameSite: 'strict',
      path: '/',
      secure,
    });
    res.writeHead(303, { location: '/console/', 'set-cookie': cookie, 'content-length': '0' });
    res.end();
  };

  return async (req, res, path) => {
    if (path !== '/admin/graphql' && path !== '/console' && !path.startsWith('/console/')) return false;
    secureHeaders(req, res, () => undefined);
    res.setHeader('cache-control', 'no-store');
    if (path === '/admin/graphql') {
      await graphql(req, res);
      return true;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendHtml(req, res, 405, '<!doctype html><title>Method not allowed</title><p>Use GET.</p>\n', {
        allow: 'GET, HEAD',
      });
      return true;
    }
    const url = new URL(req.url ?? '/', 'http://gateway.invalid');
    if (path === '/console/sign-in') {
      await signIn(req, res, url);
      return true;
    }
    if (parseCookies(header(req, 'cookie') ?? '')[cookieName] !== undefined) {
      const cross = crossSite(req, false);
      if (cross !== null) {
        sendHtml(
          req,
          res,
          403,
          '<!doctype html><title>Refused</title><p>A cross-site request with the console cookie was refused.</p>\n',
        );
        return true;
      }
    }
    if (path === '/console') {
      res.writeHead(308, { location: '/console/', 'content-length': '0' });
      res.end();
      return true;
    }
    const asset = parts.assets.get(path);
    if (asset) {
      const gzip = /\bgzip\b/.test(header(req, 'accept-encoding') ?? '');
      const body = gzip ? asset.gzipped : asset.body;
      res.writeHead(200, {
        'content-type': asset.contentType,
        'content-length': String(body.length),
        vary: 'accept-encoding',
        ...(gzip ? { 'content-encoding': 'gzip' } : {}),
      });
      res.end(req.method === 'HEAD' ? undefined : body);
      return true;
    }
    if (path === '/console/') {
      sendHtml(req, res, 200, CONSOLE_PAGE);
      return true;
    }
    sendHtml(req, res, 404, '<!doctype html><title>Not found</title><p>Not found.</p>\n');
    return true;
  };
}
