/**
 * Alert rules through the administration graph: createAlert checks the character, the
 * inputs of the kind and the URL before any upstream request; RENT_OVERDUE reads the
 * building's tenants once and is refused, naming the scope, for a key without
 * building.tenants.activity; a Discord URL is sealed in the vault and shown with its token
 * elided; a WEBHOOK rule's signing secret is in createAlert's answer only; the running
 * gateway watches a new rule at once; every mutation is audited.
 */
import { readFileSync } from 'node:fs';
import { LoggingAlertSink } from '../../src/alerts';
import { ALL_SCOPES, DEMO_KEYS, FIXTURE_CHARACTERS, FIXTURE_IDS } from '../../src/simulator';
import { useStack } from '../support';
import { adminPost, testVault } from './admin-helpers';
import type { Answer, TestVault } from './admin-helpers';

const NO_ACTIVITY_KEY = 'tenants-without-activity-key';
const TOKEN_PART = 'the-discord-token-part';
const DISCORD = `http://127.0.0.1:9/api/webhooks/1234/${TOKEN_PART}`;
const CREATE =
  'mutation ($input: CreateAlertInput!) { createAlert(input: $input) { id character kind url target signingSecret createdAt lastFiredAt } }';

describe('alert rules in the administration graph', () => {
  let vault: TestVault;
  let admin: string;
  const sink = new LoggingAlertSink();
  const texts: string[] = [];
  const stack = useStack(async () => {
    vault = await testVault();
    await vault.vault.addKey('renter', NO_ACTIVITY_KEY, null);
    ({ token: admin } = await vault.vault.createToken({ characters: [], grants: ['admin'], expiresInMs: 3_600_000 }));
    return {
      http: true,
      simulator: {
        extraKeys: [
          {
            key: NO_ACTIVITY_KEY,
            secret: `${NO_ACTIVITY_KEY}-secret`,
            label: 'no-activity',
            characterId: FIXTURE_CHARACTERS.main.id,
            premium: true,
            scopes: ALL_SCOPES.filter((scope) => scope !== 'building.tenants.activity'),
          },
        ],
      },
      gateway: { alertSink: sink },
      config: { vaultFile: vault.vaultFile, vaultMasterKey: vault.masterKey },
    };
  });

  const run = async (query: string, variables?: unknown): Promise<Answer> => {
    const answer = await adminPost(stack.origin, query, { authorization: `Bearer ${admin}` }, variables);
    texts.push(answer.text);
    return answer.body;
  };
  const create = (input: Record<string, unknown>): Promise<Answer> =>
    run(CREATE, { input: { character: 'shop', target: 'DISCORD', url: DISCORD, ...input } });

  it('creates a Discord rule without an upstream request, sealed, shown with its token elided, and watched at once', async () => {
    const before = stack.simulator.requests.length;
    const answer = await create({
      kind: 'STOCK_BELOW',
      factoryId: FIXTURE_IDS.shop,
      item: 'Wasser',
      store: 'STORE',
      threshold: 1000,
    });
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.createAlert).toEqual({
      id: expect.stringMatching(/^alr_/),
      character: 'shop',
      kind: 'STOCK_BELOW',
      url: 'http://127.0.0.1:9/api/webhooks/1234/…',
      target: 'DISCORD',
      signingSecret: null,
      createdAt: expect.any(String),
      lastFiredAt: null,
    });
    expect(stack.simulator.requests.length).toBe(before);
    expect(readFileSync(vault.vaultFile, 'utf8')).not.toContain(TOKEN_PART);

    // The running gateway reads the changed vault (within 1 s; here at once) and watches the rule, whose condition holds: it fires at its first poll.
    await stack.gateway.vault?.vault.reload();
    await stack.gateway.alerts?.watcher.sync();
    await stack.gateway.alerts?.watcher.settled();
    const id = (answer.data?.createAlert as { id: string }).id;
    expect(sink.events.map((each) => each.event.eventId)).toEqual([`${id}:stock:1`]);
    expect(sink.events[0]?.target).toEqual({ kind: 'DISCORD', url: DISCORD });
    const listed = await run('{ alerts { id url signingSecret lastFiredAt } }');
    expect(listed.data?.alerts).toEqual([
      { id, url: 'http://127.0.0.1:9/api/webhooks/1234/…', signingSecret: null, lastFiredAt: expect.any(String) },
    ]);
  });

  it("gives a WEBHOOK rule its own signing secret, in createAlert's answer only", async () => {
    const answer = await create({
      kind: 'TRANSACTION_ADDED',
      bankAccountId: FIXTURE_IDS.shopMainAccount,
      minAmount: 100,
      target: 'WEBHOOK',
      url: 'http://localhost:9/hooks/alerts',
    });
    const created = answer.data?.createAlert as { id: string; signingSecret: string };
    expect(created.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/=]{20,}$/);
    texts.pop(); // the one answer allowed to hold the secret
    const listed = await run('{ alerts { id kind signingSecret } }');
    expect(listed.data?.alerts).toEqual([
      expect.objectContaining({ kind: 'STOCK_BELOW', signingSecret: null }),
      { id: created.id, kind: 'TRANSACTION_ADDED', signingSecret: null },
    ]);
    expect(readFileSync(vault.vaultFile, 'utf8')).not.toContain(created.signingSecret);
  });

  it('refuses a rule before any upstream request: unknown character, missing input, refused URL', async () => {
    // The rules created above are polled meanwhile: count what a refused rule could send (its checks read the tenants only).
    const sent = (): number =>
      stack.simulator.requests.filter((request) => !/inventory|transactions/.test(request.route)).length;
    const before = sent();
    const rules = (await run('{ alerts { id } }')).data?.alerts;
    const refusals: Array<[Record<string, unknown>, RegExp]> = [
      [{ character: 'nobody', kind: 'OUTBID' }, /no character named "nobody"/],
      [{ kind: 'STOCK_BELOW', factoryId: FIXTURE_IDS.shop, store: 'STORE', threshold: 5 }, /needs --item \/ item/],
      [{ kind: 'TRANSACTION_ADDED' }, /needs --bank-account \/ bankAccountId/],
      [{ kind: 'RENT_OVERDUE', buildingId: FIXTURE_IDS.hafen }, /needs --days \/ days/],
      [{ kind: 'OUTBID', url: 'http://example.com/api/webhooks/1/x' }, /plain http to example\.com/],
      [{ kind: 'OUTBID', url: 'https://10.0.0.7/api/webhooks/1/x' }, /private, loopback, link-local or reserved/],
      [
        { kind: 'OUTBID', url: 'https://169.254.169.254/api/webhooks/1/x' },
        /private, loopback, link-local or reserved/,
      ],
      [
        { kind: 'OUTBID', url: 'https://[::ffff:7f00:1]/api/webhooks/1/x' },
        /private, loopback, link-local or reserved/,
      ],
      [{ kind: 'OUTBID', url: 'https://user:pw@discord.com/api/webhooks/1/x' }, /credentials/],
      [{ kind: 'OUTBID', url: 'https://discord.com/not-a-webhook' }, /not a Discord webhook URL/],
    ];
    for (const [input, message] of refusals) {
      const answer = await create(input);
      expect(answer.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(answer.errors?.[0]?.message).toMatch(message);
    }
    expect(sent()).toBe(before);
    expect((await run('{ alerts { id } }')).data?.alerts).toEqual(rules);
  });

  it("checks RENT_OVERDUE's scope with one upstream request, and refuses a key without it naming the scope", async () => {
    const route = 'GET /building/tenants/{id}';
    const ok = await create({ kind: 'RENT_OVERDUE', buildingId: FIXTURE_IDS.hafen, days: 14 });
    expect(ok.errors).toBeUndefined();
    expect(stack.simulator.countRequests({ route, keyLabel: 'premium' })).toBeLessThanOrEqual(1);
    const refused = await create({
      character: 'renter',
      kind: 'RENT_OVERDUE',
      buildingId: FIXTURE_IDS.hafen,
      days: 14,
    });
    expect(refused.errors?.[0]?.extensions).toEqual(
      expect.objectContaining({ code: 'FORBIDDEN', requiredScopes: ['building.tenants.activity'] }),
    );
    expect(refused.errors?.[0]?.message).toMatch(/needs the scope building\.tenants\.activity on renter's key/);
    expect(stack.simulator.countRequests({ route, keyLabel: 'no-activity' })).toBe(1);
  });

  it('deletes a rule, audits every alert mutation, and never shows a key, token part or secret', async () => {
    const rules = (await run('{ alerts { id } }')).data?.alerts as Array<{ id: string }>;
    const id = rules[0]?.id ?? '';
    expect(await run('mutation ($id: ID!) { deleteAlert(id: $id) }', { id })).toEqual({ data: { deleteAlert: true } });
    expect(((await run('{ alerts { id } }')).data?.alerts as unknown[]).length).toBe(rules.length - 1);
    expect((await run('mutation ($id: ID!) { deleteAlert(id: $id) }', { id })).errors?.[0]?.extensions?.code).toBe(
      'NOT_FOUND',
    );
    const audit = (await run('{ auditLog(first: 200) { action target outcome } }')).data?.auditLog as Array<{
      action: string;
      target: string | null;
      outcome: string;
    }>;
    const alertEntries = audit.filter((entry) => entry.action === 'createAlert' || entry.action === 'deleteAlert');
    expect(alertEntries).toHaveLength(2 + 10 + 2 + 2);
    expect(alertEntries[1]).toEqual({ action: 'deleteAlert', target: id, outcome: 'done' });
    for (const secret of [DEMO_KEYS.premium.key, NO_ACTIVITY_KEY, TOKEN_PART, admin])
      expect(texts.filter((text) => text.includes(secret))).toEqual([]);
  });
});
