/**
 * `statev-gateway alerts add|list|remove` (in process, as main.ts runs it): each kind with
 * its flags, the Discord URL sealed and listed with its token elided, a webhook's signing
 * secret printed once, refusals with exit code 2 (flags) or 1 (the vault), and rules that
 * survive `vault rotate` (their data keys re-wrapped, their MACs renewed).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { vaultCommand } from '../../src/cli/vault-cli';

const TOKEN_PART = 'cli-discord-token-part';
const DISCORD = `https://discord.com/api/webhooks/998877/${TOKEN_PART}`;

describe('statev-gateway alerts', () => {
  const folder = mkdtempSync(join(tmpdir(), 'alert-cli-'));
  const first = randomBytes(32).toString('base64');
  const env = { VAULT_MASTER_KEY: first, VAULT_FILE: join(folder, 'vault.json') };
  const run = (
    argv: readonly string[],
    stdin = '',
    over: Record<string, string> = {},
  ): ReturnType<typeof vaultCommand> => vaultCommand(argv, () => Promise.resolve(stdin), { ...env, ...over });

  it('adds a rule of each kind, lists them with the Discord token elided, and removes one', async () => {
    expect((await run(['keys', 'add', 'shop'], 'cli-alert-key\n')).exitCode).toBe(0);
    const stock = await run([
      'alerts',
      'add',
      '--character',
      'shop',
      '--kind',
      'stock-below',
      '--factory',
      'f1',
      '--item',
      'Wasser',
      '--store',
      'counter',
      '--below',
      '10',
      '--discord',
      DISCORD,
    ]);
    expect(stock).toEqual({ stdout: expect.stringMatching(/^alr_[0-9a-f]{12}\n$/), stderr: '', exitCode: 0 });
    const transfer = await run([
      'alerts',
      'add',
      '--character',
      'shop',
      '--kind',
      'transaction-added',
      '--bank-account',
      'acc1',
      '--min-amount',
      '250',
      '--webhook',
      'http://127.0.0.1:8080/alerts',
    ]);
    expect(transfer.stdout).toMatch(/^alr_[0-9a-f]{12} whsec_[A-Za-z0-9+/=]{32}\n$/);
    expect(
      (await run(['alerts', 'add', '--character', 'shop', '--kind', 'outbid', '--discord', DISCORD])).exitCode,
    ).toBe(0);
    expect(
      (
        await run([
          'alerts',
          'add',
          '--character',
          'shop',
          '--kind',
          'rent-overdue',
          '--building',
          'b1',
          '--days',
          '14',
          '--discord',
          DISCORD,
        ])
      ).exitCode,
    ).toBe(0);

    const listed = await run(['alerts', 'list']);
    expect(listed.exitCode).toBe(0);
    expect(listed.stdout).toMatch(/^ID +CHARACTER +KIND +INPUTS +TARGET +URL +ADDED +STATE\n/);
    expect(listed.stdout).toContain('factoryId=f1,item=Wasser,store=COUNTER,threshold=10');
    expect(listed.stdout).toContain('bankAccountId=acc1,minAmount=250');
    expect(listed.stdout).toContain('https://discord.com/api/webhooks/998877/…');
    expect(listed.stdout.split('\n').filter((line) => line.endsWith('active'))).toHaveLength(4);
    const secret = transfer.stdout.trim().split(' ')[1] ?? '';
    for (const text of [listed.stdout, readFileSync(env.VAULT_FILE, 'utf8')]) {
      expect(text).not.toContain(TOKEN_PART);
      expect(text).not.toContain(secret);
    }

    const id = stock.stdout.trim();
    expect(await run(['alerts', 'remove', id])).toEqual({
      stdout: `Removed alert rule ${id}.\n`,
      stderr: '',
      exitCode: 0,
    });
    expect((await run(['alerts', 'remove', id])).exitCode).toBe(1);
  });

  it('refuses a missing input, a bad kind, store or target, and a URL the outbound rules refuse', async () => {
    const base = ['alerts', 'add', '--character', 'shop'];
    const cases: Array<[string[], 1 | 2, RegExp]> = [
      [
        [...base, '--kind', 'stock-below', '--factory', 'f1', '--store', 'store', '--below', '5', '--discord', DISCORD],
        1,
        /needs --item/,
      ],
      [
        [...base, '--kind', 'rent-overdue', '--building', 'b1', '--days', 'soon', '--discord', DISCORD],
        1,
        /--days \/ days must be a whole number of days/,
      ],
      [
        [...base, '--kind', 'stock-low', '--discord', DISCORD],
        2,
        /needs --kind stock-below\|transaction-added\|outbid\|rent-overdue/,
      ],
      [
        [...base, '--kind', 'stock-below', '--store', 'cellar', '--discord', DISCORD],
        2,
        /--store takes store, machine or counter/,
      ],
      [[...base, '--kind', 'outbid'], 2, /one target: --discord <url> or --webhook <url>/],
      [[...base, '--kind', 'outbid', '--webhook', 'http://192.168.1.5/x'], 1, /plain http to 192\.168\.1\.5/],
      [[...base, '--kind', 'outbid', '--discord', 'https://discord.com/channels/1/2'], 1, /not a Discord webhook URL/],
      [
        ['alerts', 'add', '--character', 'nobody', '--kind', 'outbid', '--discord', DISCORD],
        1,
        /no key named "nobody"/,
      ],
    ];
    for (const [argv, exitCode, message] of cases) {
      const result = await run(argv);
      expect({ exitCode: result.exitCode, stderr: result.stderr }).toEqual({
        exitCode,
        stderr: expect.stringMatching(message),
      });
      expect(result.stderr).not.toContain(TOKEN_PART);
    }
  });

  it('keeps the rules through vault rotate to a new master key', async () => {
    const second = randomBytes(32).toString('base64');
    const rotated = await run(['vault', 'rotate'], '', { VAULT_MASTER_KEY: `${second},${first}` });
    expect(rotated.exitCode).toBe(0);
    const listed = await run(['alerts', 'list'], '', { VAULT_MASTER_KEY: second });
    expect(listed.stdout.split('\n').filter((line) => line.endsWith('active'))).toHaveLength(3);
  });
});
