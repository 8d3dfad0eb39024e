/**
 * The vault: keys and secrets sealed at rest (AES-256-GCM, a data key per record wrapped
 * by the master key), tokens kept only as a keyed hash, rotation of the master key, and a
 * running gateway's view following changes.
 */
import crypto, { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LiveVault, MasterKeys, Vault, VaultKeyError, VaultUsageError } from '../../src/vault';
import { FileVaultStorage } from '../../src/vault/storage';
import { VaultView } from '../../src/vault/vault-view';
import { newToken, tokenChecksumValid } from '../../src/vault/token-format';
import { parseGrant } from '../../src/vault/grants';
import type { VaultStorage } from '../../src/vault';

const API_KEY = 'alice-statev-api-key-0123456789';
const API_SECRET = 'alice-statev-api-secret-9876543210';

function fresh(): { path: string; storage: FileVaultStorage; masterText: string; master: MasterKeys } {
  const path = join(mkdtempSync(join(tmpdir(), 'vault-')), '.data', 'vault.json');
  const masterText = randomBytes(32).toString('base64');
  return { path, storage: new FileVaultStorage(path), masterText, master: MasterKeys.parse(masterText) };
}

/** Every form a secret could leak in: as is, base64, base64url, hex. */
function encodings(text: string): string[] {
  const bytes = Buffer.from(text, 'utf8');
  return [text, bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('hex')];
}

describe('the vault file', () => {
  it('holds no key, secret, token or master key in its plain bytes, and is mode 0600', async () => {
    const { path, storage, master, masterText } = fresh();
    const vault = new Vault(storage, master);
    await vault.addKey('alice', API_KEY, API_SECRET);
    const { token } = await vault.createToken({ characters: ['alice'], grants: ['read'], expiresInMs: 60_000 });
    const bytes = readFileSync(path, 'utf8');
    for (const secret of [API_KEY, API_SECRET, token, masterText]) {
      for (const form of encodings(secret)) expect(bytes.includes(form)).toBe(false);
    }
    expect(bytes).toContain('"name": "alice"');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(path, '..')).mode & 0o777).toBe(0o700);
  });

  it('gives each record its own data key and refuses another master key', async () => {
    const { storage, master } = fresh();
    const vault = new Vault(storage, master);
    await vault.addKey('alice', API_KEY, null);
    await vault.addKey('bob', 'bob-key', 'bob-secret');
    const document = JSON.parse((await storage.read()) ?? '{}') as {
      keys: Array<{ dataKey: { box: string }; sealed: string }>;
    };
    expect(document.keys[0]?.dataKey.box).not.toBe(document.keys[1]?.dataKey.box);
    const other = new Vault(storage, MasterKeys.parse(randomBytes(32).toString('base64')));
    await expect(other.listKeys()).rejects.toThrow(VaultKeyError);
    await expect(other.addKey('carol', 'carol-key', null)).rejects.toThrow(VaultKeyError);
  });

  it('refuses a record whose bytes were altered', async () => {
    const { path, storage, master } = fresh();
    await new Vault(storage, master).addKey('alice', API_KEY, API_SECRET);
    const document = JSON.parse(readFileSync(path, 'utf8')) as { keys: Array<{ name: string }> };
    (document.keys[0] as { name: string }).name = 'mallory';
    writeFileSync(path, JSON.stringify(document));
    await expect(new Vault(storage, master).listKeys()).rejects.toThrow(VaultKeyError);
  });

  it('lists keys by name and id, replaces a key under the same name and removes one', async () => {
    const { storage, master } = fresh();
    const vault = new Vault(storage, master);
    const first = await vault.addKey('alice', API_KEY, null);
    const again = await vault.addKey('alice', 'alice-new-key', API_SECRET);
    expect(again.id).toBe(first.id);
    await vault.addKey('bob', 'bob-key', null);
    expect((await vault.listKeys()).map((key) => [key.name, key.id, key.hasSecret])).toEqual([
      ['alice', first.id, true],
      ['bob', expect.stringMatching(/^key_[0-9a-f]{12}$/), false],
    ]);
    await vault.removeKey('bob');
    expect((await vault.listKeys()).map((key) => key.name)).toEqual(['alice']);
    await expect(vault.removeKey('bob')).rejects.toThrow(VaultUsageError);
    await expect(vault.addKey('bad name', API_KEY, null)).rejects.toThrow(VaultUsageError);
  });

  it('rotates the master key: the records open with the new key alone, tokens keep working', async () => {
    const { storage, master, masterText } = fresh();
    await new Vault(storage, master).addKey('alice', API_KEY, API_SECRET);
    const { token } = await new Vault(storage, master).createToken({
      characters: ['alice'],
      grants: ['read'],
      expiresInMs: 60_000,
    });
    const newText = randomBytes(32).toString('base64');
    const rotated = await new Vault(storage, MasterKeys.parse(`${newText},${masterText}`)).rotate();
    expect(rotated).toEqual({
      records: 3,
      newlySigned: 0,
      refused: [],
      masterKeyId: MasterKeys.parse(newText).currentId,
    });
    const view = VaultView.fromText(await storage.read(), MasterKeys.parse(newText));
    const check = view.check(token);
    expect(check.kind === 'ok' && check.token.characters[0]).toEqual({
      id: expect.any(String),
      name: 'alice',
      apiKey: API_KEY,
      apiSecret: API_SECRET,
    });
    expect(() => VaultView.fromText(readFileSync(storage.where, 'utf8'), master)).toThrow(VaultKeyError);
  });
});

describe('access tokens', () => {
  it("are hashed once per holder (the request's credential) and vault token key, never keyed by their text", async () => {
    const { storage, master } = fresh();
    await new Vault(storage, master).addKey('alice', API_KEY, API_SECRET);
    const { token } = await new Vault(storage, master).createToken({
      characters: ['alice'],
      grants: ['read'],
      expiresInMs: 60_000,
    });
    const text = await storage.read();
    const view = VaultView.fromText(text, master);
    // The next document opened (same token key), as after a change of the vault.
    const reopened = VaultView.fromText(text, master, view);
    const credential = { kind: 'token', token, origin: null } as const;
    const hmac = jest.spyOn(crypto, 'createHmac');
    try {
      for (let request = 0; request < 5; request += 1) {
        expect(view.knows(credential)).toBe(true);
        expect(view.check(credential).kind).toBe('ok');
      }
      expect(reopened.check(credential).kind).toBe('ok');
      expect(hmac).toHaveBeenCalledTimes(1);
      // The text alone (the command line, tests) is hashed per lookup.
      expect(view.check(token).kind).toBe('ok');
      expect(hmac).toHaveBeenCalledTimes(2);
    } finally {
      hmac.mockRestore();
    }
  });

  it('have a prefix, random characters and a checksum that catches a typo', () => {
    const token = newToken();
    expect(token).toMatch(/^svg_[0-9A-Za-z]{46}$/);
    expect(tokenChecksumValid(token)).toBe(true);
    const typo = `${token.slice(0, 10)}${token[10] === 'a' ? 'b' : 'a'}${token.slice(11)}`;
    expect(tokenChecksumValid(typo)).toBe(false);
    expect(newToken()).not.toBe(token);
  });

  it('are looked up by keyed hash: usable, expired, revoked, unknown, malformed, or with a removed key', async () => {
    const { storage, master } = fresh();
    let now = new Date('2026-01-01T00:00:00Z');
    const vault = new Vault(storage, master, () => now);
    await vault.addKey('alice', API_KEY, null);
    await vault.addKey('bob', 'bob-key', null);
    const short = await vault.createToken({ characters: ['alice'], grants: ['read'], expiresInMs: 60_000 });
    const long = await vault.createToken({
      characters: ['alice', 'bob'],
      grants: ['factory:12', 'subscribe'],
      expiresInMs: 3_600_000,
      origin: 'https://shop.example',
      budgetShare: 3,
    });
    const view = (): VaultView => VaultView.fromText(readFileSync(storage.where, 'utf8'), master);
    const at = Date.parse('2026-01-01T00:00:30Z');
    const ok = view().check(long.token, at);
    expect(
      ok.kind === 'ok' && {
        id: ok.token.id,
        names: ok.token.characters.map((each) => each.name),
        grants: ok.token.grants,
        origin: ok.token.origin,
        share: ok.token.budgetShare,
      },
    ).toEqual({
      id: long.id,
      names: ['alice', 'bob'],
      grants: [{ kind: 'factory', factoryId: '12' }, { kind: 'subscribe' }],
      origin: 'https://shop.example',
      share: 3,
    });
    expect(view().check(short.token, at)).toMatchObject({ kind: 'ok' });
    expect(view().check(short.token, Date.parse('2026-01-01T00:01:00Z'))).toEqual({
      kind: 'refused',
      reason: 'expired',
    });
    expect(view().check(newToken(), at)).toEqual({ kind: 'refused', reason: 'unknown' });
    expect(view().check(`${short.token.slice(0, -1)}${short.token.endsWith('0') ? '1' : '0'}`, at)).toEqual({
      kind: 'refused',
      reason: 'malformed',
    });
    now = new Date('2026-01-01T00:00:10Z');
    await vault.revokeToken(short.id);
    expect(view().check(short.token, at)).toEqual({ kind: 'refused', reason: 'revoked' });
    await vault.removeKey('bob');
    expect(view().check(long.token, at)).toEqual({ kind: 'refused', reason: 'key-removed' });
    expect(
      (await vault.listTokens()).map((token) => [token.id, token.characters, token.revokedAt?.toISOString() ?? null]),
    ).toEqual([
      [short.id, ['alice'], '2026-01-01T00:00:10.000Z'],
      [long.id, ['alice', expect.stringMatching(/^key_/)], null],
    ]);
  });

  it('refuses unknown characters and grants at creation', async () => {
    const { storage, master } = fresh();
    const vault = new Vault(storage, master);
    await vault.addKey('alice', API_KEY, null);
    await expect(vault.createToken({ characters: ['nobody'], grants: ['read'], expiresInMs: 1000 })).rejects.toThrow(
      'no key named "nobody"',
    );
    await expect(
      vault.createToken({ characters: ['alice'], grants: ['write:everything'], expiresInMs: 1000 }),
    ).rejects.toThrow('The grant "write:everything"');
    await expect(vault.createToken({ characters: ['alice'], grants: [], expiresInMs: 1000 })).rejects.toThrow(
      VaultUsageError,
    );
  });

  it('parses every grant form', () => {
    expect(
      [
        'read',
        'read:Factory.inventory',
        'factory:42',
        'write:siteDocument:catalogue',
        'write:option:3',
        'subscribe',
      ].map(parseGrant),
    ).toEqual([
      { kind: 'read' },
      { kind: 'read-field', type: 'Factory', field: 'inventory' },
      { kind: 'factory', factoryId: '42' },
      { kind: 'write-site-document', name: 'catalogue' },
      { kind: 'write-option', slot: 3 },
      { kind: 'subscribe' },
    ]);
    for (const bad of [
      '',
      'READ',
      'read:Factory',
      'factory:',
      'write:option:0',
      'write:option:100',
      'write:siteDocument:a b',
    ])
      expect(parseGrant(bad)).toBeNull();
  });
});

describe("a running gateway's vault", () => {
  it('sees a revocation and a new token without a restart', async () => {
    const { storage, master, masterText } = fresh();
    const vault = new Vault(storage, master);
    await vault.addKey('alice', API_KEY, null);
    const first = await vault.createToken({ characters: ['alice'], grants: ['read'], expiresInMs: 60_000 });
    // The storage's change signal, seen by the test too.
    let signalled: () => void = () => undefined;
    const watched: VaultStorage = {
      where: storage.where,
      read: () => storage.read(),
      write: (text) => storage.write(text),
      readUsage: () => storage.readUsage(),
      recordUsage: (uses) => storage.recordUsage(uses),
      watch: (changed) =>
        storage.watch(() => {
          changed();
          signalled();
        }),
    };
    const live = await LiveVault.start(watched, masterText, (error) => {
      throw error;
    });
    try {
      expect(live.check(first.token).kind).toBe('ok');
      const second = await vault.createToken({ characters: ['alice'], grants: ['read'], expiresInMs: 60_000 });
      const change = new Promise<void>((resolve) => (signalled = resolve));
      await vault.revokeToken(first.id);
      await change;
      await live.reload();
      expect(live.check(first.token)).toEqual({ kind: 'refused', reason: 'revoked' });
      expect(live.check(second.token).kind).toBe('ok');
    } finally {
      await live.close();
    }
    // The gateway recorded each token's last use when it stopped; tokens list shows it.
    const listed = await vault.listTokens();
    expect(listed.map((token) => token.lastUsedAt instanceof Date)).toEqual([true, true]);
    expect(statSync(`${storage.where}.usage`).mode & 0o777).toBe(0o600);
    expect(readFileSync(`${storage.where}.usage`, 'utf8')).not.toContain('svg_');
  });
});
