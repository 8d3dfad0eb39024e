/**
 * `statev-gateway webhooks add|list|remove` (in process, as src/main.ts runs it): a
 * webhook needs a character of the vault and an https URL, its secret is printed once
 * and never listed, and a running gateway's vault view opens it with the key that polls.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { vaultCommand } from '../../src/cli/vault-cli';
import { LiveVault } from '../../src/vault';
import { FileVaultStorage } from '../../src/vault/storage';

describe('statev-gateway webhooks', () => {
  let folder: string;
  let env: Record<string, string>;

  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'webhook-cli-'));
    env = { VAULT_MASTER_KEY: randomBytes(32).toString('base64'), VAULT_FILE: join(folder, 'vault.json') };
  });

  afterEach(() => rm(folder, { recursive: true, force: true }));

  const run = (args: string[], stdin = ''): ReturnType<typeof vaultCommand> =>
    vaultCommand(args, () => Promise.resolve(stdin), env);

  it('adds, lists and removes a webhook; the secret is printed once and sealed in the vault', async () => {
    expect((await run(['keys', 'add', 'alice'], 'statev-key-of-alice\n')).exitCode).toBe(0);
    const added = await run([
      'webhooks',
      'add',
      '--character',
      'alice',
      '--factory',
      'f1',
      '--url',
      'https://shop.example/hooks',
    ]);
    expect(added).toMatchObject({
      exitCode: 0,
      stdout: expect.stringMatching(/^whk_[0-9a-f]{12} whsec_[A-Za-z0-9+/=]{32}\n$/),
    });
    const [id, secret] = added.stdout.trim().split(' ');
    const listed = await run(['webhooks', 'list']);
    expect(listed.stdout).toMatch(
      new RegExp(`^ID +CHARACTER +FACTORY +URL +ADDED +STATE\\n${id} +alice +f1 +https://shop.example/hooks +\\d{4}-`),
    );
    expect(listed.stdout).not.toContain(secret);
    const stored = await readFile(env.VAULT_FILE ?? '', 'utf8');
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain('statev-key-of-alice');
    const live = await LiveVault.start(
      new FileVaultStorage(env.VAULT_FILE ?? ''),
      env.VAULT_MASTER_KEY ?? '',
      () => undefined,
    );
    expect(live.webhooks()).toEqual([
      { id, factoryId: 'f1', url: 'https://shop.example/hooks', secret, apiKey: 'statev-key-of-alice' },
    ]);
    await live.close();
    expect(await run(['webhooks', 'remove', id ?? ''])).toMatchObject({ exitCode: 0 });
    expect((await run(['webhooks', 'list'])).stdout).toMatch(/^No webhooks/);
  });

  it('takes plain http to a receiver on this machine', async () => {
    await run(['keys', 'add', 'alice'], 'statev-key-of-alice\n');
    for (const url of ['http://127.0.0.1:9000/hook', 'http://localhost:9000/hook', 'http://[::1]:9000/hook']) {
      expect(await run(['webhooks', 'add', '--character', 'alice', '--factory', 'f1', '--url', url])).toMatchObject({
        exitCode: 0,
      });
    }
  });

  it.each([
    [['--character', 'bob', '--factory', 'f1', '--url', 'https://shop.example/'], 1, /no key named "bob"/],
    [['--character', 'alice', '--factory', 'f1', '--url', 'http://shop.example/'], 1, /https:\/\//],
    [
      ['--character', 'alice', '--factory', 'f1', '--url', 'http://10.0.0.7:9000/hook'],
      1,
      /http:\/\/ only to 127\.0\.0\.1/,
    ],
    [['--character', 'alice', '--factory', 'f1', '--url', 'https://user:pw@shop.example/'], 1, /without credentials/],
    [['--character', 'alice', '--url', 'https://shop.example/'], 2, /needs --character/],
  ])('refuses %j', async (args, exitCode, message) => {
    await run(['keys', 'add', 'alice'], 'statev-key-of-alice\n');
    const refused = await run(['webhooks', 'add', ...args]);
    expect(refused).toMatchObject({ exitCode, stderr: expect.stringMatching(message) });
  });
});
