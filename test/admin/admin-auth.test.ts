/**
 * Who the administration graph answers: a console session (the cookie a one-time sign-in
 * link sets) or an access token with the admin grant; no credential, a StateV key, any
 * other token, a dead session or a cross-site request gets 401/403 and no data. The sign-in
 * link works once, for 10 minutes; a session ends after 12 h without a request and on
 * `console --sign-out-all`; every answer carries the strict security headers.
 */
import { consoleCommand } from '../../src/cli/console-cli';
import { DEMO_KEYS } from '../../src/simulator';
import { T0, advanceClock, send, useStack } from '../support';
import type { RawResponse } from '../support';
import { adminPost, testVault } from './admin-helpers';
import type { TestVault } from './admin-helpers';

const QUERY = '{ vaultCharacters { name hasSecret } }';

/** Opens a sign-in link without following its redirect. */
async function signInAt(origin: string, path: string): Promise<RawResponse> {
  const response = await fetch(`${origin}${path}`, { redirect: 'manual' });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

describe('the administration graph: credentials and the console sign-in', () => {
  let vault: TestVault;
  let admin: string;
  let reader: string;
  const stack = useStack(async () => {
    vault = await testVault();
    ({ token: admin } = await vault.vault.createToken({ characters: [], grants: ['admin'], expiresInMs: 3_600_000 }));
    ({ token: reader } = await vault.vault.createToken({
      characters: ['shop'],
      grants: ['read'],
      expiresInMs: 3_600_000,
    }));
    return { http: true, fakeDate: T0, config: { vaultFile: vault.vaultFile, vaultMasterKey: vault.masterKey } };
  });

  /** A new sign-in code, as `statev-gateway console` prints it. */
  const newCode = async (): Promise<string> => {
    const printed = await consoleCommand(['console'], {
      VAULT_MASTER_KEY: vault.masterKey,
      VAULT_FILE: vault.vaultFile,
      PORT: '4000',
    });
    expect(printed.exitCode).toBe(0);
    const lines = printed.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const link = new URL(lines[0] ?? '');
    expect(`${link.origin}${link.pathname}`).toBe('http://127.0.0.1:4000/console/sign-in');
    return link.searchParams.get('code') ?? '';
  };

  const signIn = (code: string): Promise<RawResponse> =>
    signInAt(stack.origin, `/console/sign-in?code=${encodeURIComponent(code)}`);

  /** Signs in and returns the cookie pair (`name=value`). */
  const session = async (): Promise<string> => {
    const answer = await signIn(await newCode());
    expect(answer.status).toBe(303);
    return (answer.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  };

  it('refuses no credential (401), a StateV key (403) and a token without the admin grant (403), with no data', async () => {
    const none = await adminPost(stack.origin, QUERY);
    expect(none.status).toBe(401);
    expect(none.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const key = await adminPost(stack.origin, QUERY, { authorization: `Bearer ${DEMO_KEYS.premium.key}` });
    expect(key.status).toBe(403);
    expect(key.body.errors?.[0]?.message).toMatch(/does not accept StateV API keys/);
    const token = await adminPost(stack.origin, QUERY, { authorization: `Bearer ${reader}` });
    expect(token.status).toBe(403);
    expect(token.body.errors?.[0]?.message).toMatch(/no admin grant/);
    const unknown = await adminPost(stack.origin, QUERY, { authorization: `Bearer ${admin.slice(0, -8)}AAAAAAAA` });
    expect(unknown.status).toBe(401);
    for (const answer of [none, key, token, unknown]) expect(answer.body.data).toBeUndefined();
    expect([none, key, token, unknown].map((answer) => answer.text).join('')).not.toContain('shop');
  });

  it('answers a token with the admin grant; that token reads nothing of the public graph', async () => {
    const answer = await adminPost(stack.origin, QUERY, { authorization: `Bearer ${admin}` });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ data: { vaultCharacters: [{ name: 'shop', hasSecret: true }] } });
    const publicGraph = await send(stack.origin, {
      method: 'POST',
      path: '/graphql',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
      body: JSON.stringify({ query: '{ factories { id } }' }),
    });
    expect(publicGraph.status).toBe(401);
    expect(publicGraph.text).not.toContain('"data"');
  });

  it('signs in with a one-time link: 303 to /console/ and an HttpOnly, SameSite=Strict cookie for Path=/; a second use fails', async () => {
    const code = await newCode();
    const first = await signIn(code);
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/console/');
    const cookie = first.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^statev-console=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict$/);
    expect(cookie).not.toContain(code);
    const second = await signIn(code);
    expect(second.status).toBe(400);
    expect(second.headers.get('set-cookie')).toBeNull();
    expect(second.text).toMatch(/not valid/);
    const pair = cookie.split(';')[0] ?? '';
    const answer = await adminPost(stack.origin, QUERY, { cookie: pair, origin: stack.origin });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({ vaultCharacters: [{ name: 'shop', hasSecret: true }] });
    expect((await signIn('not-a-code')).status).toBe(400);
  });

  it('lets a code expire after 10 minutes', async () => {
    const late = await newCode();
    const inTime = await newCode();
    advanceClock(10 * 60_000 - 1000);
    expect((await signIn(inTime)).status).toBe(303);
    advanceClock(1000);
    expect((await signIn(late)).status).toBe(400);
  });

  it('ends a session after 12 hours without a request, not while it is used', async () => {
    const cookie = await session();
    const use = async (): Promise<number> =>
      (await adminPost(stack.origin, QUERY, { cookie, origin: stack.origin })).status;
    advanceClock(11 * 3_600_000);
    expect(await use()).toBe(200);
    advanceClock(11 * 3_600_000);
    expect(await use()).toBe(200);
    advanceClock(12 * 3_600_000);
    const ended = await adminPost(stack.origin, QUERY, { cookie, origin: stack.origin });
    expect(ended.status).toBe(401);
    expect(ended.body.errors?.[0]?.message).toMatch(/session has ended/);
  });

  it('ends every session on console --sign-out-all', async () => {
    const cookie = await session();
    expect((await adminPost(stack.origin, QUERY, { cookie, origin: stack.origin })).status).toBe(200);
    const printed = await consoleCommand(['console', '--sign-out-all'], {
      VAULT_MASTER_KEY: vault.masterKey,
      VAULT_FILE: vault.vaultFile,
    });
    expect(printed.stdout).toMatch(/^Signed out \d+ console sessions?\.\n$/);
    expect((await adminPost(stack.origin, QUERY, { cookie, origin: stack.origin })).status).toBe(401);
  });

  it('refuses a cookie request from another origin, or without one, before anything runs', async () => {
    const cookie = await session();
    const before = (
      await adminPost(stack.origin, '{ auditLog(first: 200) { action } }', { authorization: `Bearer ${admin}` })
    ).body.data?.auditLog as unknown[];
    const mutation = 'mutation { removeVaultKey(name: "shop") }';
    const refused: Array<Record<string, string>> = [
      { origin: 'https://evil.example' },
      {},
      { origin: stack.origin, 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of refused) {
      const answer = await adminPost(stack.origin, mutation, { cookie, ...headers });
      expect(answer.status).toBe(403);
      expect(answer.body.errors?.[0]?.message).toMatch(/must come from the gateway's own pages/);
      expect(answer.body.data).toBeUndefined();
    }
    const after = (
      await adminPost(stack.origin, '{ auditLog(first: 200) { action } vaultCharacters { name } }', {
        authorization: `Bearer ${admin}`,
      })
    ).body.data;
    expect(after?.vaultCharacters).toEqual([{ name: 'shop' }]);
    expect(after?.auditLog).toHaveLength(before.length);
    // A page GET without Origin is same-origin; one from elsewhere is refused.
    expect((await send(stack.origin, { path: '/console/', headers: { cookie } })).status).toBe(200);
    expect(
      (await send(stack.origin, { path: '/console/', headers: { cookie, origin: 'https://evil.example' } })).status,
    ).toBe(403);
  });

  it('sets a strict CSP, frame-ancestors none and no referrer on every administration answer', async () => {
    const answers = [
      await send(stack.origin, { path: '/console/' }),
      await signIn('nope'),
      await adminPost(stack.origin, QUERY),
      await adminPost(stack.origin, QUERY, { authorization: `Bearer ${admin}` }),
    ];
    for (const answer of answers) {
      const csp = answer.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("object-src 'none'");
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
      expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
      expect(answer.headers.get('x-frame-options')).toBe('DENY');
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('cache-control')).toBe('no-store');
    }
    // The console's page (built or not): scripts only from the gateway's own files, no inline script or style.
    const page = answers[0]?.text ?? '';
    for (const script of page.match(/<script[^>]*>[^<]*<\/script>/g) ?? [])
      expect(script).toMatch(/^<script defer src="\/console\/[a-z]+\.js"><\/script>$/);
    expect(page.replace(/<script defer src="\/console\/[a-z]+\.js"><\/script>/g, '')).not.toMatch(/<script|style=/);
  });
});

describe('the console cookie behind https (PUBLIC_URL)', () => {
  let vault: TestVault;
  const stack = useStack(async () => {
    vault = await testVault();
    return {
      http: true,
      config: { vaultFile: vault.vaultFile, vaultMasterKey: vault.masterKey, publicUrl: 'https://gateway.example' },
    };
  });

  it('is Secure with the __Host- prefix, and only the public origin may use it', async () => {
    const printed = await consoleCommand(['console'], {
      VAULT_MASTER_KEY: vault.masterKey,
      VAULT_FILE: vault.vaultFile,
      PUBLIC_URL: 'https://gateway.example',
    });
    const link = new URL(printed.stdout.trim());
    expect(link.origin).toBe('https://gateway.example');
    const answer = await signInAt(stack.origin, `${link.pathname}${link.search}`);
    expect(answer.status).toBe(303);
    const cookie = answer.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^__Host-statev-console=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
    const pair = cookie.split(';')[0] ?? '';
    expect((await adminPost(stack.origin, QUERY, { cookie: pair, origin: stack.origin })).status).toBe(403);
    expect((await adminPost(stack.origin, QUERY, { cookie: pair, origin: 'https://gateway.example' })).status).toBe(
      200,
    );
    expect(answer.headers.get('strict-transport-security')).toMatch(/max-age=/);
  });
});

describe('a gateway without a vault', () => {
  const stack = useStack({ http: true });

  it('answers /admin/graphql with 404 naming VAULT_MASTER_KEY', async () => {
    const answer = await adminPost(stack.origin, QUERY);
    expect(answer.status).toBe(404);
    expect(answer.body.errors?.[0]?.message).toMatch(/VAULT_MASTER_KEY/);
  });
});
