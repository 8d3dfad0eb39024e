/**
 * Access tokens at the gateway: a `Bearer svg_…` token runs with its character's key and
 * secret from the vault, on HTTP, graphql-ws and graphql-sse; expired, revoked, unknown
 * and mistyped tokens are refused with UNAUTHENTICATED saying which; a revocation reaches a
 * running gateway without a restart; `viewer` answers without an upstream request.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient as createSseClient } from 'graphql-sse';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { MasterKeys, Vault } from '../../src/vault';
import { FileVaultStorage } from '../../src/vault/storage';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { LineCollector, metricValue, send, startStack } from '../support';
import type { HttpStack, RawResponse } from '../support';
import { collect, subscribeWs, wsClient } from '../subscriptions/clients';

const VIEWER = '{ viewer { kind tokenId expiresAt characters { id name } grants } }';

interface Answer {
  data?: Record<string, unknown> | null;
  errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
}

describe('access tokens at the gateway', () => {
  const folder = mkdtempSync(join(tmpdir(), 'token-auth-'));
  const vaultFile = join(folder, 'vault.json');
  const masterKey = randomBytes(32).toString('base64');
  const vault = new Vault(new FileVaultStorage(vaultFile), MasterKeys.parse(masterKey));
  let stack: HttpStack;
  let token: string;
  let tokenId: string;
  let shopId: string;
  let bound: string;
  const logs = new LineCollector();
  const spans = new InMemorySpanExporter();

  const post = async (
    query: string,
    authorization: string | null,
    headers: Record<string, string> = {},
    variables?: unknown,
  ): Promise<RawResponse & { body: Answer }> => {
    const response = await send(stack.gateway.url, {
      method: 'POST',
      path: '/graphql',
      headers: { 'content-type': 'application/json', ...(authorization === null ? {} : { authorization }), ...headers },
      body: JSON.stringify({ query, variables }),
    });
    return { ...response, body: JSON.parse(response.text) as Answer };
  };

  beforeAll(async () => {
    shopId = (await vault.addKey('shop', DEMO_KEYS.premium.key, DEMO_KEYS.premium.secret)).id;
    ({ token, id: tokenId } = await vault.createToken({
      characters: ['shop'],
      grants: ['read', 'write:option:3'],
      expiresInMs: 3_600_000,
    }));
    ({ token: bound } = await vault.createToken({
      characters: ['shop'],
      grants: ['read'],
      expiresInMs: 3_600_000,
      origin: 'https://shop.example',
    }));
    stack = await startStack({
      http: true,
      logDestination: logs,
      config: { vaultFile, vaultMasterKey: masterKey, logLevel: 'debug' },
      gateway: { traceExporter: spans },
    });
  });

  afterAll(async () => {
    await stack.close();
  });

  it('answers viewer for a token with no upstream request, and never shows the token', async () => {
    const answer = await post(VIEWER, `Bearer ${token}`);
    expect(answer.status).toBe(200);
    expect(answer.body.data?.viewer).toEqual({
      kind: 'TOKEN',
      tokenId,
      expiresAt: expect.stringMatching(/^\d{4}-/),
      characters: [{ id: shopId, name: 'shop' }],
      grants: ['read', 'write:option:3'],
    });
    expect(answer.text).not.toContain(token);
    expect(answer.text).not.toContain(DEMO_KEYS.premium.key);
    expect(stack.simulator.countRequests()).toBe(0);
    const key = await post(VIEWER, `Bearer ${DEMO_KEYS.basic.key}`);
    expect(key.body.data?.viewer).toMatchObject({
      kind: 'KEY',
      tokenId: null,
      grants: [],
      characters: [{ name: 'API key' }],
    });
    expect(key.text).not.toContain(DEMO_KEYS.basic.key);
  });

  it("reads with the character's key from the vault, each company with its owner", async () => {
    const answer = await post('{ factories { id owner { name } } buildings { id owner { name } } }', `Bearer ${token}`);
    const factories = answer.body.data?.factories as Array<{ id: string; owner: { name: string } }>;
    expect(factories.map((factory) => factory.id)).toContain(FIXTURE_IDS.shop);
    expect(new Set(factories.map((factory) => factory.owner.name))).toEqual(new Set(['shop']));
    expect(new Set(stack.simulator.requests.map((request) => request.keyLabel))).toEqual(new Set(['premium']));
    const withKey = await post('{ factories { id owner { name } } }', `Bearer ${DEMO_KEYS.premium.key}`);
    expect((withKey.body.data?.factories as Array<{ owner: unknown }>)[0]?.owner).toBeNull();
  });

  it("writes with the secret from the vault; the caller's secret header is not used", async () => {
    const mutation =
      'mutation($input: UpdateFactoryOptionInput!) { updateFactoryOption(input: $input) { option { slot title } } }';
    const input = { factoryId: FIXTURE_IDS.shop, slot: 3, title: 'Angebot', data: 'vom Token' };
    const answer = await post(mutation, `Bearer ${token}`, { 'x-api-secret': 'not-the-secret' }, { input });
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data?.updateFactoryOption).toMatchObject({ option: { slot: 3, title: 'Angebot' } });
  });

  it('refuses expired, unknown, mistyped and revoked tokens with UNAUTHENTICATED saying which, before any upstream request', async () => {
    const past = new Vault(
      new FileVaultStorage(vaultFile),
      MasterKeys.parse(masterKey),
      () => new Date(Date.now() - 7_200_000),
    );
    const expired = await past.createToken({ characters: ['shop'], grants: ['read'], expiresInMs: 3_600_000 });
    const revoked = await vault.createToken({ characters: ['shop'], grants: ['read'], expiresInMs: 3_600_000 });
    const unknown = 'svg_' + '0'.repeat(40);
    const mistyped = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    // The gateway follows the vault file: wait until it knows the new tokens.
    for (
      let attempt = 0;
      attempt < 500 && (await post(VIEWER, `Bearer ${revoked.token}`)).status !== 200;
      attempt += 1
    );
    expect((await post(VIEWER, `Bearer ${revoked.token}`)).status).toBe(200);
    await vault.revokeToken(revoked.id);
    for (
      let attempt = 0;
      attempt < 500 && (await post(VIEWER, `Bearer ${revoked.token}`)).status === 200;
      attempt += 1
    );
    const before = stack.simulator.countRequests();
    const reasons: Record<string, string> = {
      [expired.token]: 'expired',
      [revoked.token]: 'revoked',
      [mistyped]: 'malformed',
      [unknown + 'abcdef']: 'malformed',
    };
    for (const [sent, reason] of Object.entries(reasons)) {
      const answer = await post('{ factories { id } }', `Bearer ${sent}`);
      expect({
        reason,
        status: answer.status,
        code: answer.body.errors?.[0]?.extensions?.code,
        said: answer.body.errors?.[0]?.extensions?.reason,
      }).toEqual({ reason, status: 401, code: 'UNAUTHENTICATED', said: reason });
      expect(answer.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
      expect(answer.body.errors?.[0]?.message).toContain(reason === 'malformed' ? 'malformed' : reason);
      expect(answer.text).not.toContain(sent);
    }
    expect(stack.simulator.countRequests()).toBe(before);
  });

  it('binds a token made with --origin to that browser origin: CORS lets it through, the Origin header is checked', async () => {
    const from = await post(VIEWER, `Bearer ${bound}`, { origin: 'https://shop.example' });
    expect(from.status).toBe(200);
    expect(from.headers.get('access-control-allow-origin')).toBe('https://shop.example');
    const preflight = await send(stack.gateway.url, {
      method: 'OPTIONS',
      path: '/graphql',
      headers: {
        origin: 'https://shop.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://shop.example');
    for (const headers of [{ origin: 'https://evil.example' }, {}] as Array<Record<string, string>>) {
      const refused = await post(VIEWER, `Bearer ${bound}`, headers);
      expect(refused.status).toBe(401);
      expect(refused.body.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'wrong-origin' });
      expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    }
    // A token without --origin works from anywhere (with or without an Origin header).
    expect((await post(VIEWER, `Bearer ${token}`, { origin: 'https://evil.example' })).status).toBe(200);
  });

  it('leaves no key, secret or token in logs, traces or metrics (after everything above)', async () => {
    await post('{ factories { id inventory { __typename } } }', `Bearer ${token}`, {
      'x-api-secret': DEMO_KEYS.premium.secret,
    });
    await post(VIEWER, `Bearer ${token}x`);
    const metrics = await stack.get('/metrics');
    const traces = JSON.stringify(
      spans.getFinishedSpans().map((span) => ({ name: span.name, attributes: span.attributes, events: span.events })),
    );
    expect(logs.lines.length).toBeGreaterThan(3);
    expect(traces.length).toBeGreaterThan(100);
    expect(logs.lines.join('\n')).toContain(tokenId);
    for (const text of [logs.lines.join('\n'), traces, metrics.text]) {
      for (const secret of [token, DEMO_KEYS.premium.key, DEMO_KEYS.premium.secret, masterKey])
        expect(text.includes(secret)).toBe(false);
    }
  });

  it('works and is refused the same over graphql-ws and graphql-sse', async () => {
    const ws = wsClient(stack.endpoint, token);
    const overWs = subscribeWs(ws, VIEWER);
    expect((await overWs.next()).data?.viewer).toMatchObject({ kind: 'TOKEN', tokenId });
    await ws.dispose();
    const sse = createSseClient({
      url: `${stack.origin}/graphql/stream`,
      headers: { authorization: `Bearer ${token}` },
      retryAttempts: 0,
    });
    const overSse = collect((sink) => sse.subscribe({ query: VIEWER }, sink));
    expect((await overSse.next()).data?.viewer).toMatchObject({ kind: 'TOKEN', tokenId });
    sse.dispose();

    const bad = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    const badWs = wsClient(stack.endpoint, bad);
    const refusedWs = (await subscribeWs(badWs, VIEWER).ended) as Array<{ extensions?: Record<string, unknown> }>;
    expect(refusedWs[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'malformed' });
    await badWs.dispose();
    const badSse = createSseClient({
      url: `${stack.origin}/graphql/stream`,
      headers: { authorization: `Bearer ${bad}` },
      retryAttempts: 0,
    });
    const refusedSse = await collect((sink) => badSse.subscribe({ query: VIEWER }, sink)).next();
    expect(refusedSse.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'malformed' });
    badSse.dispose();
  });
});

describe('metrics of access tokens', () => {
  it('count operations and last use per token id, never the token', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'token-metrics-'));
    const masterKey = randomBytes(32).toString('base64');
    const vault = new Vault(new FileVaultStorage(join(folder, 'vault.json')), MasterKeys.parse(masterKey));
    await vault.addKey('shop', DEMO_KEYS.premium.key, null);
    const { token, id } = await vault.createToken({ characters: ['shop'], grants: ['read'], expiresInMs: 60_000 });
    const stack = await startStack({
      http: true,
      config: { vaultFile: join(folder, 'vault.json'), vaultMasterKey: masterKey },
    });
    try {
      for (let index = 0; index < 3; index += 1)
        await stack.post({ query: VIEWER }, { headers: { authorization: `Bearer ${token}` } });
      const metrics = await stack.get('/metrics');
      expect(metricValue(metrics.text, 'statev_token_operations_total', { token_id: id })).toBe(3);
      expect(metricValue(metrics.text, 'statev_token_last_use_seconds', { token_id: id })).toBeGreaterThan(
        Date.now() / 1000 - 3600,
      );
      expect(metrics.text).not.toContain(token);
    } finally {
      await stack.close();
    }
  });
});

describe('--budget-share', () => {
  it("caps a token at n upstream requests per window of its key's budget; the key itself is not capped", async () => {
    const folder = mkdtempSync(join(tmpdir(), 'token-share-'));
    const masterKey = randomBytes(32).toString('base64');
    const vault = new Vault(new FileVaultStorage(join(folder, 'vault.json')), MasterKeys.parse(masterKey));
    await vault.addKey('shop', DEMO_KEYS.premium.key, null);
    const { token } = await vault.createToken({
      characters: ['shop'],
      grants: ['read'],
      expiresInMs: 60_000,
      budgetShare: 2,
    });
    const stack = await startStack({
      http: true,
      config: { vaultFile: join(folder, 'vault.json'), vaultMasterKey: masterKey, upstreamRateLimit: null },
    });
    try {
      const capped = await stack.post(
        { query: '{ factories { id inventory { __typename } } }' },
        { headers: { authorization: `Bearer ${token}` } },
      );
      expect(stack.simulator.countRequests()).toBe(2);
      const errors = capped.body.errors ?? [];
      expect(errors.length).toBeGreaterThan(0);
      for (const error of errors)
        expect(error.extensions).toMatchObject({
          code: 'RATE_LIMITED',
          budgetShare: 2,
          retryAfterSeconds: expect.any(Number),
        });
      const again = await stack.post(
        { query: '{ buildings { id } }' },
        { headers: { authorization: `Bearer ${token}` } },
      );
      expect(again.body.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED' });
      expect(stack.simulator.countRequests()).toBe(2);
      const key = await stack.post({ query: '{ buildings { id } }' }, { key: DEMO_KEYS.premium.key });
      expect(key.body.errors).toBeUndefined();
    } finally {
      await stack.close();
    }
  });
});

describe('a gateway without a vault', () => {
  it('refuses every access token, naming VAULT_MASTER_KEY', async () => {
    const stack = await startStack({ http: true });
    try {
      const answer = await stack.post(
        { query: '{ factories { id } }' },
        { headers: { authorization: `Bearer svg_${'a'.repeat(46)}` } },
      );
      expect(answer.status).toBe(401);
      expect(answer.text).toContain('VAULT_MASTER_KEY');
    } finally {
      await stack.close();
    }
  });
});
