/**
 * What `tokens create` accepts: a lifetime of at most
 * TOKEN_MAX_LIFETIME_DAYS (366 by default), a budget share of at most the key's own limit
 * (UPSTREAM_RATE_LIMIT), and grants that name a field of the public schema and a slot of
 * 1 to 10. Run in process through the command line's entry (`vaultCommand`).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { vaultCommand } from '../../src/cli/vault-cli';
import { MasterKeys, Vault, VaultUsageError } from '../../src/vault';
import { FileVaultStorage } from '../../src/vault/storage';

const env = {
  VAULT_MASTER_KEY: randomBytes(32).toString('base64'),
  VAULT_FILE: join(mkdtempSync(join(tmpdir(), 'token-bounds-')), 'vault.json'),
};
const create = (...flags: string[]): ReturnType<typeof vaultCommand> =>
  vaultCommand(['tokens', 'create', '--character', 'shop', ...flags], async () => '', env);

beforeAll(async () => {
  expect(await vaultCommand(['keys', 'add', 'shop'], async () => 'shop-key-0123456789\n', env)).toMatchObject({
    exitCode: 0,
  });
});

describe('tokens create', () => {
  it('refuses a lifetime over 366 days, or over TOKEN_MAX_LIFETIME_DAYS, naming the setting', async () => {
    expect(await create('--grant', 'read', '--expires-in', '999999w')).toMatchObject({
      exitCode: 1,
      stderr: expect.stringContaining('at most 366 days (TOKEN_MAX_LIFETIME_DAYS)'),
    });
    expect(await create('--grant', 'read', '--expires-in', '367d')).toMatchObject({ exitCode: 1 });
    expect(await create('--grant', 'read', '--expires-in', '366d')).toMatchObject({
      exitCode: 0,
      stdout: expect.stringMatching(/^svg_/),
    });
    expect(
      await vaultCommand(
        ['tokens', 'create', '--character', 'shop', '--grant', 'read', '--expires-in', '31d'],
        async () => '',
        { ...env, TOKEN_MAX_LIFETIME_DAYS: '30' },
      ),
    ).toMatchObject({
      exitCode: 1,
      stderr: expect.stringContaining('at most 30 days'),
    });
    expect(
      await vaultCommand(['keys', 'list'], async () => '', { ...env, TOKEN_MAX_LIFETIME_DAYS: '367' }),
    ).toMatchObject({ exitCode: 2, stderr: expect.stringContaining('TOKEN_MAX_LIFETIME_DAYS') });
  });

  it("refuses a budget share over the key's own limit per window (UPSTREAM_RATE_LIMIT)", async () => {
    expect(await create('--grant', 'read', '--expires-in', '1d', '--budget-share', '999999')).toMatchObject({
      exitCode: 1,
      stderr: expect.stringContaining('at most 10'),
    });
    expect(
      await vaultCommand(
        ['tokens', 'create', '--character', 'shop', '--grant', 'read', '--expires-in', '1d', '--budget-share', '31'],
        async () => '',
        { ...env, UPSTREAM_RATE_LIMIT: '30/60' },
      ),
    ).toMatchObject({
      exitCode: 1,
      stderr: expect.stringContaining('at most 30'),
    });
    expect(await create('--grant', 'read', '--expires-in', '1d', '--budget-share', '10')).toMatchObject({
      exitCode: 0,
    });
  });

  it('refuses grants that name no field of the public schema, an introspection type or a slot outside 1-10', async () => {
    for (const grant of [
      'read:__Schema.types',
      'read:Factory.__typename',
      'read:Factory.nope',
      'read:Nope.id',
      'write:option:99',
      'write:option:11',
      'write:option:0',
    ]) {
      expect({ grant, ...(await create('--grant', grant, '--expires-in', '1d')) }).toMatchObject({
        grant,
        exitCode: 1,
      });
    }
    expect(await create('--grant', 'read:Factory.nope', '--expires-in', '1d')).toMatchObject({
      stderr: expect.stringContaining('Factory.nope, which the public schema does not have'),
    });
    expect(
      await create(
        '--grant',
        'read:Factory.inventory',
        '--grant',
        'write:option:10',
        '--grant',
        'write:option:1',
        '--expires-in',
        '1d',
      ),
    ).toMatchObject({ exitCode: 0 });
  });

  it('is bounded the same through the Vault API (what the admin graph calls)', async () => {
    const vault = new Vault(new FileVaultStorage(env.VAULT_FILE), MasterKeys.parse(env.VAULT_MASTER_KEY));
    await expect(
      vault.createToken({ characters: ['shop'], grants: ['read'], expiresInMs: 400 * 86_400_000 }),
    ).rejects.toThrow(VaultUsageError);
    await expect(
      vault.createToken({ characters: ['shop'], grants: ['read'], expiresInMs: 86_400_000, budgetShare: 11 }),
    ).rejects.toThrow(VaultUsageError);
    await expect(
      vault.createToken({ characters: ['shop'], grants: ['read:__Schema.types'], expiresInMs: 86_400_000 }),
    ).rejects.toThrow(VaultUsageError);
  });
});
