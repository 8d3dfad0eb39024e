/**
 * The administration graph's queries and mutations with an admin token: the vault's
 * characters and tokens, key budgets, deliveries, alerts and the audit log;
 * every mutation writes an audit entry; nothing sends an upstream request except
 * addVaultKey's one key check; no key, secret or token appears in an answer, error or log line
 * (a created token only in createAccessToken's answer).
 */
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { LineCollector, upstreamError, useStack } from '../support';
import { adminPost, testVault } from './admin-helpers';
import type { Answer, TestVault } from './admin-helpers';

const FACTORY_LIST = 'GET /factory/list/';

describe('the administration graph with an admin token', () => {
  let vault: TestVault;
  let admin: string;
  const logs = new LineCollector();
  const texts: string[] = [];
  const stack = useStack(async () => {
    vault = await testVault();
    ({ token: admin } = await vault.vault.createToken({ characters: [], grants: ['admin'], expiresInMs: 3_600_000 }));
    return {
      http: true,
      logDestination: logs,
      config: { vaultFile: vault.vaultFile, vaultMasterKey: vault.masterKey, logLevel: 'debug' },
    };
  });

  const run = async (query: string, variables?: unknown): Promise<Answer> => {
    const answer = await adminPost(stack.origin, query, { authorization: `Bearer ${admin}` }, variables);
    texts.push(answer.text);
    return answer.body;
  };

  it('reads characters, tokens, budgets, deliveries, alerts and the audit log without an upstream request', async () => {
    const before = stack.simulator.requests.length;
    const answer = await run(`{
      vaultCharacters { id name addedAt hasSecret }
      accessTokens { id characters grants expiresAt revokedAt lastUsedAt origin budgetShare }
      keyBudgets { character limit windowSeconds usedInWindow upstream429s queued }
      alerts { id }
      deliveries(first: 10) { id }
      auditLog { actor }
    }`);
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.vaultCharacters).toEqual([
      { id: expect.stringMatching(/^key_/), name: 'shop', addedAt: expect.any(String), hasSecret: true },
    ]);
    expect(answer.data?.accessTokens).toEqual([
      expect.objectContaining({ characters: [], grants: ['admin'], revokedAt: null }),
    ]);
    expect(answer.data?.keyBudgets).toEqual([
      { character: 'shop', limit: 0, windowSeconds: 0, usedInWindow: 0, upstream429s: 0, queued: 0 },
    ]);
    expect(answer.data?.alerts).toEqual([]);
    expect(answer.data?.deliveries).toEqual([]);
    expect(stack.simulator.requests.length).toBe(before);
    const bounded = await run('{ deliveries(first: 0) { id } }');
    expect(bounded.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it("reads the console's fields (budget history, companies, cache, payments) without an upstream request", async () => {
    const before = stack.simulator.requests.length;
    const answer = await run(`{
      vaultCharacters { name companies }
      keyBudgets { character history { at usedInWindow upstream429s queued } }
      cacheSummary { hits misses stale hitRatio }
      paymentRequests { reference status }
      unmatchedTransfers { amount }
    }`);
    expect(answer.errors).toBeUndefined();
    // A key added with the command line was never checked: its companies are unknown.
    expect(answer.data?.vaultCharacters).toEqual([{ name: 'shop', companies: null }]);
    expect(answer.data?.keyBudgets).toEqual([
      { character: 'shop', history: [{ at: expect.any(String), usedInWindow: 0, upstream429s: 0, queued: 0 }] },
    ]);
    expect(answer.data?.cacheSummary).toEqual(
      expect.objectContaining({ hits: expect.any(Number), misses: expect.any(Number) }),
    );
    expect(answer.data?.paymentRequests).toEqual([]);
    expect(answer.data?.unmatchedTransfers).toEqual([]);
    expect(stack.simulator.requests.length).toBe(before);
  });

  it('checks an added key upstream once, says what the StateV API answered for a wrong one, and stores only a good one', async () => {
    const before = stack.simulator.countRequests({ route: FACTORY_LIST });
    const added = await run('mutation ($input: AddVaultKeyInput!) { addVaultKey(input: $input) { name hasSecret } }', {
      input: { name: 'max', key: DEMO_KEYS.basic.key, secret: DEMO_KEYS.basic.secret },
    });
    expect(added).toEqual({ data: { addVaultKey: { name: 'max', hasSecret: true } } });
    expect(stack.simulator.countRequests({ route: FACTORY_LIST })).toBe(before + 1);
    const wrong = await run('mutation ($input: AddVaultKeyInput!) { addVaultKey(input: $input) { name } }', {
      input: { name: 'wrong', key: 'no-such-demo-key' },
    });
    expect(wrong.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(wrong.errors?.[0]?.message).toMatch(/StateV API denied GET \/factory\/list\/ \(401/);
    expect(stack.simulator.countRequests({ route: FACTORY_LIST })).toBe(before + 2);
    const badName = await run('mutation ($input: AddVaultKeyInput!) { addVaultKey(input: $input) { name } }', {
      input: { name: '../x', key: 'another-key' },
    });
    expect(badName.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(stack.simulator.countRequests({ route: FACTORY_LIST })).toBe(before + 2);
    expect((await run('{ vaultCharacters { name } }')).data?.vaultCharacters).toEqual([
      { name: 'max' },
      { name: 'shop' },
    ]);
  });

  it('creates a token only for companies its characters own, and revokes it', async () => {
    const create =
      'mutation ($input: CreateAccessTokenInput!) { createAccessToken(input: $input) { token summary { id characters grants } } }';
    const owned = await run(create, {
      input: { characters: ['max'], grants: [`factory:${FIXTURE_IDS.shop}`], expiresIn: '1h' },
    });
    const created = owned.data?.createAccessToken as { token: string; summary: { id: string } };
    expect(created.token).toMatch(/^svg_/);
    expect(owned.data?.createAccessToken).toEqual({
      token: created.token,
      summary: { id: created.summary.id, characters: ['max'], grants: [`factory:${FIXTURE_IDS.shop}`] },
    });
    texts.pop(); // the one answer allowed to hold a token
    const foreign = await run(create, {
      input: { characters: ['max'], grants: [`factory:${FIXTURE_IDS.otherFactory}`], expiresIn: '1h' },
    });
    expect(foreign.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(foreign.errors?.[0]?.message).toMatch(/names a company that max does not own/);
    const unchecked = await run(create, {
      input: { characters: ['shop'], grants: [`factory:${FIXTURE_IDS.shop}`], expiresIn: '1h' },
    });
    expect(unchecked.errors?.[0]?.message).toMatch(/does not know which companies shop owns/);
    const badLifetime = await run(create, { input: { characters: ['shop'], grants: ['read'], expiresIn: 'forever' } });
    expect(badLifetime.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const revoked = await run('mutation ($id: ID!) { revokeAccessToken(id: $id) { id revokedAt } }', {
      id: created.summary.id,
    });
    expect(revoked.data?.revokeAccessToken).toEqual({ id: created.summary.id, revokedAt: expect.any(String) });
  });

  it('refuses an alert rule without its inputs, an unknown rule, and a redelivery of an unknown delivery', async () => {
    const alert = await run(
      'mutation { createAlert(input: { character: "shop", kind: STOCK_BELOW, target: WEBHOOK, url: "https://hooks.example/x" }) { id } }',
    );
    expect(alert.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(alert.errors?.[0]?.message).toMatch(/STOCK_BELOW rule needs --factory \/ factoryId/);
    expect((await run('mutation { deleteAlert(id: "alr_1") }')).errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect((await run('mutation { redeliver(deliveryId: "msg_1") { id } }')).errors?.[0]?.extensions?.code).toBe(
      'NOT_FOUND',
    );
    expect((await run('mutation { removeVaultKey(name: "max") }')).data).toEqual({ removeVaultKey: true });
  });

  it('wrote one audit entry per mutation, done or refused, naming the token', async () => {
    const answer = await run('{ auditLog(first: 200) { at actor action target outcome } }');
    const entries = answer.data?.auditLog as Array<{
      actor: string;
      action: string;
      target: string | null;
      outcome: string;
    }>;
    expect(entries.map(({ action, outcome }) => `${action} ${outcome}`)).toEqual([
      'removeVaultKey done',
      'redeliver refused: NOT_FOUND',
      'deleteAlert refused: NOT_FOUND',
      'createAlert refused: BAD_USER_INPUT',
      'revokeAccessToken done',
      'createAccessToken refused: BAD_USER_INPUT',
      'createAccessToken refused: BAD_USER_INPUT',
      'createAccessToken refused: BAD_USER_INPUT',
      'createAccessToken done',
      'addVaultKey refused: BAD_USER_INPUT',
      'addVaultKey refused: FORBIDDEN',
      'addVaultKey done',
    ]);
    expect(new Set(entries.map((entry) => entry.actor))).toEqual(new Set([expect.stringMatching(/^token:tok_/)]));
    expect(entries.at(-1)?.target).toBe('max');
  });

  it('never put a key, secret or token in an answer, error or log line', () => {
    const secrets = [
      DEMO_KEYS.premium.key,
      DEMO_KEYS.premium.secret,
      DEMO_KEYS.basic.key,
      DEMO_KEYS.basic.secret,
      'no-such-demo-key',
      'another-key',
      admin,
      vault.masterKey,
    ];
    const logText = logs.lines.join('\n');
    expect(logs.lines.some((line) => line.includes('admin operation'))).toBe(true);
    for (const secret of secrets) {
      expect(texts.filter((text) => text.includes(secret))).toEqual([]);
      expect(logText.includes(secret)).toBe(false);
    }
    expect(logText).not.toMatch(/svg_[A-Za-z0-9]/);
  });
});

describe('addVaultKey against a rate-limited upstream', () => {
  let token = '';
  const stack = useStack(async () => {
    const vault = await testVault();
    ({ token } = await vault.vault.createToken({ characters: [], grants: ['admin'], expiresInMs: 3_600_000 }));
    return {
      http: true,
      mock: true,
      config: {
        vaultFile: vault.vaultFile,
        vaultMasterKey: vault.masterKey,
        upstreamRateLimit: { requests: 10, windowSeconds: 60 },
      },
    };
  });

  it("answers RATE_LIMITED with the retry time, stores nothing, and counts the 429 in the key's budget", async () => {
    stack
      .upstream()
      .intercept({ path: '/req/factory/list/', method: 'GET' })
      .reply(upstreamError(429, 'Too Many Requests', 'Too Many Requests', { 'retry-after': '42' }));
    const authorization = `Bearer ${token}`;
    // The key `shop` already holds, sent again under a new name: its budget is the one shown for shop.
    const answer = await adminPost(
      stack.origin,
      `mutation { addVaultKey(input: { name: "busy", key: "${DEMO_KEYS.premium.key}" }) { name } }`,
      { authorization },
    );
    expect(answer.body.errors?.[0]?.extensions).toEqual(
      expect.objectContaining({ code: 'RATE_LIMITED', retryAfterSeconds: 42 }),
    );
    expect(answer.text).not.toContain(DEMO_KEYS.premium.key);
    const listed = await adminPost(
      stack.origin,
      '{ vaultCharacters { name } keyBudgets { character limit windowSeconds usedInWindow upstream429s queued } }',
      { authorization },
    );
    expect(listed.body.data?.vaultCharacters).toEqual([{ name: 'shop' }]);
    // The refused check waits as one background fill (the economy's way with a rate-limited miss), shown as queued.
    expect(listed.body.data?.keyBudgets).toEqual([
      { character: 'shop', limit: 10, windowSeconds: 60, usedInWindow: 1, upstream429s: 1, queued: 1 },
    ]);
  });
});
