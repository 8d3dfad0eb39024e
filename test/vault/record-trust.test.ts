/**
 * The vault's records are authenticated and checked: without
 * the master key, an edit of the stored document cannot raise a token's grants, revive a
 * revoked or expired token, re-point it to another character or a webhook to another URL;
 * such a record (and one written before records were signed, until `vault rotate`) is
 * refused, logged without secrets and left alone. Malformed records are refused with a
 * clear message instead of a TypeError; an unparseable expiry is expired.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LiveVault, MasterKeys, Vault } from '../../src/vault';
import { FileVaultStorage } from '../../src/vault/storage';
import { VaultView } from '../../src/vault/vault-view';
import type { TokenCheck } from '../../src/vault/vault-view';
import { LineCollector, send, startStack } from '../support';

type Json = Record<string, unknown>;

/** A vault with two keys, one token per key, a revoked and a short token, and a webhook. */
async function seeded(): Promise<{
  path: string;
  storage: FileVaultStorage;
  masterText: string;
  master: MasterKeys;
  tokens: Record<'reader' | 'revoked' | 'short', { id: string; token: string }>;
  hook: string;
}> {
  const path = join(mkdtempSync(join(tmpdir(), 'vault-trust-')), 'vault.json');
  const masterText = randomBytes(32).toString('base64');
  const master = MasterKeys.parse(masterText);
  const storage = new FileVaultStorage(path);
  const vault = new Vault(storage, master);
  await vault.addKey('alice', 'alice-key-0123456789', null);
  await vault.addKey('bob', 'bob-key-0123456789', 'bob-secret-0123456789');
  const tokens = {
    reader: await vault.createToken({ characters: ['alice'], grants: ['read'], expiresInMs: 3_600_000 }),
    revoked: await vault.createToken({ characters: ['alice'], grants: ['read'], expiresInMs: 3_600_000 }),
    short: await vault.createToken({ characters: ['alice'], grants: ['read'], expiresInMs: 600_000 }),
  };
  await vault.revokeToken(tokens.revoked.id);
  const { id: hook } = await vault.addWebhook('alice', 'factory-1', 'https://hooks.example/alice');
  return { path, storage, masterText, master, tokens, hook };
}

/** Edits the stored document as someone without the master key would. */
function edit(path: string, change: (document: { keys: Json[]; tokens: Json[]; webhooks: Json[] }) => void): void {
  const document = JSON.parse(readFileSync(path, 'utf8')) as { keys: Json[]; tokens: Json[]; webhooks: Json[] };
  change(document);
  writeFileSync(path, JSON.stringify(document));
}

const tokenRecord = (document: { tokens: Json[] }, id: string): Json =>
  document.tokens.find((record) => record.id === id) as Json;
const reason = (check: TokenCheck): string => (check.kind === 'ok' ? 'ok' : check.reason);

describe('vault records without the master key', () => {
  it('refuses a token whose grants, revocation, expiry or characters were edited, and a re-pointed webhook', async () => {
    const { path, master, tokens, hook } = await seeded();
    expect(reason(VaultView.fromText(readFileSync(path, 'utf8'), master).check(tokens.reader.token))).toBe('ok');
    edit(path, (document) => {
      const [alice, bob] = document.keys as [Json, Json];
      tokenRecord(document, tokens.reader.id).grants = ['read', 'write:payments'];
      tokenRecord(document, tokens.revoked.id).revokedAt = null;
      tokenRecord(document, tokens.short.id).expiresAt = '2099-01-01T00:00:00.000Z';
      const hookRecord = document.webhooks.find((record) => record.id === hook) as Json;
      hookRecord.url = 'https://attacker.example/';
      hookRecord.keyId = bob.id;
      expect(alice.id).not.toBe(bob.id);
    });
    const view = VaultView.fromText(readFileSync(path, 'utf8'), master);
    for (const { token } of Object.values(tokens)) expect(reason(view.check(token))).toBe('unverified');
    expect(view.webhooks).toEqual([]);
    expect(view.problems.join('\n')).toContain(`Token record ${tokens.reader.id} is refused: its MAC does not verify`);
    expect(view.problems.join('\n')).toContain(`Webhook record ${hook} is refused: its MAC does not verify`);
    expect((await new Vault(new FileVaultStorage(path), master).listWebhooks()).map((each) => each.refused)).toEqual([
      'its MAC does not verify',
    ]);
  });

  it("refuses a token re-pointed to another character (it would run with that character's key and secret)", async () => {
    const { path, master, tokens } = await seeded();
    edit(path, (document) => {
      tokenRecord(document, tokens.reader.id).characters = [(document.keys[1] as Json).id];
    });
    expect(reason(VaultView.fromText(readFileSync(path, 'utf8'), master).check(tokens.reader.token))).toBe(
      'unverified',
    );
  });

  it('refuses a record signed for another token (a MAC copied from one record to another)', async () => {
    const { path, master, tokens } = await seeded();
    edit(path, (document) => {
      const reader = tokenRecord(document, tokens.reader.id);
      const revoked = tokenRecord(document, tokens.revoked.id);
      revoked.revokedAt = null;
      revoked.mac = reader.mac;
    });
    expect(reason(VaultView.fromText(readFileSync(path, 'utf8'), master).check(tokens.revoked.token))).toBe(
      'unverified',
    );
  });

  it('keeps a revoked token revoked on a running gateway when an older copy of the vault is put back', async () => {
    const { path, storage, masterText, master } = await seeded();
    const before = readFileSync(path, 'utf8');
    const { id, token } = await new Vault(storage, master).createToken({
      characters: ['alice'],
      grants: ['read'],
      expiresInMs: 3_600_000,
    });
    const withToken = readFileSync(path, 'utf8');
    const live = await LiveVault.start(storage, masterText, (error) => {
      throw error;
    });
    try {
      expect(reason(live.check(token))).toBe('ok');
      await new Vault(storage, master).revokeToken(id);
      await live.reload();
      expect(reason(live.check(token))).toBe('revoked');
      writeFileSync(path, withToken);
      await live.reload();
      expect(reason(live.check(token))).toBe('revoked');
      writeFileSync(path, before);
      await live.reload();
      expect(reason(live.check(token))).toBe('unknown');
    } finally {
      await live.close();
    }
  });

  it('refuses malformed token records with a clear message, never a TypeError; an unparseable expiry is expired', async () => {
    const { path, master, tokens } = await seeded();
    edit(path, (document) => {
      tokenRecord(document, tokens.reader.id).characters = null;
      tokenRecord(document, tokens.short.id).expiresAt = 'next year';
      document.tokens.push({ id: null, hash: 42 });
    });
    const view = VaultView.fromText(readFileSync(path, 'utf8'), master);
    expect(reason(view.check(tokens.reader.token))).toBe('unverified');
    expect(reason(view.check(tokens.short.token))).toBe('unverified');
    expect(view.problems).toEqual([
      `Token record ${tokens.reader.id} is refused: characters is not a list of key ids.`,
      `Token record ${tokens.short.id} is refused: expiresAt is not an ISO time.`,
      'Token record number 4 is refused: id is not a string.',
    ]);
    // The command line lists them as refused, and rotate leaves them alone.
    const listed = await new Vault(new FileVaultStorage(path), master).listTokens();
    expect(listed.map((token) => token.refused)).toEqual([
      'malformed: characters is not a list of key ids',
      null,
      'malformed: expiresAt is not an ISO time',
      'malformed: id is not a string',
    ]);
    expect((await new Vault(new FileVaultStorage(path), master).rotate()).refused).toEqual([
      `token ${tokens.reader.id}`,
      `token ${tokens.short.id}`,
      'token number 4',
    ]);
  });

  it('refuses the records of a vault written before records were signed until vault rotate signs them; rotate re-signs under the new key', async () => {
    const { path, storage, masterText, master, tokens, hook } = await seeded();
    edit(path, (document) => {
      for (const record of [...document.tokens, ...document.webhooks]) delete record.mac;
    });
    const unsigned = VaultView.fromText(readFileSync(path, 'utf8'), master);
    expect(reason(unsigned.check(tokens.reader.token))).toBe('unverified');
    expect(unsigned.webhooks).toEqual([]);
    expect(unsigned.problems).toContain(
      `Token record ${tokens.reader.id} is refused: it is not signed (written before vault records were signed); check it with statev-gateway tokens list, then run statev-gateway vault rotate to sign the vault's records.`,
    );
    expect((await new Vault(storage, master).listTokens())[0]?.refused).toBe(
      'not signed: run statev-gateway vault rotate',
    );

    const newText = randomBytes(32).toString('base64');
    const rotated = await new Vault(storage, MasterKeys.parse(`${newText},${masterText}`)).rotate();
    expect(rotated).toMatchObject({ newlySigned: 4, refused: [] });
    const after = VaultView.fromText(readFileSync(path, 'utf8'), MasterKeys.parse(newText));
    expect(after.problems).toEqual([]);
    expect(reason(after.check(tokens.reader.token))).toBe('ok');
    expect(reason(after.check(tokens.revoked.token))).toBe('revoked');
    expect(after.webhooks.map((each) => each.id)).toEqual([hook]);
    const macs = (JSON.parse(readFileSync(path, 'utf8')) as { tokens: Json[] }).tokens.map(
      (record) => String(record.mac).split('.')[1],
    );
    expect(new Set(macs)).toEqual(new Set([MasterKeys.parse(newText).currentId]));
  });

  it('logs a refused record at the gateway (naming it, no secret or hash) and answers its token UNAUTHENTICATED, reason unverified', async () => {
    const { path, masterText, tokens } = await seeded();
    edit(path, (document) => {
      tokenRecord(document, tokens.reader.id).grants = ['read', 'write:payments'];
    });
    const logs = new LineCollector();
    const stack = await startStack({
      http: true,
      logDestination: logs,
      config: { vaultFile: path, vaultMasterKey: masterText, logLevel: 'warn' },
    });
    try {
      const answer = await send(stack.gateway.url, {
        method: 'POST',
        path: '/graphql',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.reader.token}` },
        body: '{"query":"{ viewer { kind } }"}',
      });
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.text)).toMatchObject({
        errors: [{ extensions: { code: 'UNAUTHENTICATED', reason: 'unverified' } }],
      });
      expect(stack.simulator.countRequests()).toBe(0);
      const refused = logs.records().filter((record) => record.msg === 'A vault record is refused and left alone');
      expect(refused.map((record) => record.problem)).toEqual([
        expect.stringContaining(`Token record ${tokens.reader.id} is refused: its MAC does not verify`),
      ]);
      const hash = String(
        tokenRecord(JSON.parse(readFileSync(path, 'utf8')) as { tokens: Json[] }, tokens.reader.id).hash,
      );
      for (const secret of [tokens.reader.token, hash, 'alice-key-0123456789'])
        expect(logs.lines.join('\n')).not.toContain(secret);
      // Left alone: the gateway did not rewrite the record.
      expect(
        tokenRecord(JSON.parse(readFileSync(path, 'utf8')) as { tokens: Json[] }, tokens.reader.id).grants,
      ).toEqual(['read', 'write:payments']);
    } finally {
      await stack.close();
    }
  });

  it('starts with a null field in a token record (it is refused, the others serve)', async () => {
    const { path, masterText, tokens } = await seeded();
    edit(path, (document) => {
      tokenRecord(document, tokens.short.id).grants = null;
    });
    const stack = await startStack({
      http: true,
      config: { vaultFile: path, vaultMasterKey: masterText, upstreamRateLimit: null },
    });
    try {
      const answer = await send(stack.gateway.url, {
        method: 'POST',
        path: '/graphql',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.reader.token}` },
        body: '{"query":"{ viewer { kind } }"}',
      });
      expect(JSON.parse(answer.text)).toMatchObject({ data: { viewer: { kind: 'TOKEN' } } });
    } finally {
      await stack.close();
    }
  });
});
