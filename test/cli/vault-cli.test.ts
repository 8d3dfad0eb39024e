/**
 * `statev-gateway keys …`, `tokens …` and `vault rotate` run as processes, the way an
 * operator runs them: the key and secret on standard input, the token on one line of
 * stdout, and no key, secret or token anywhere else.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gatewayCommand } from '../../src/cli/gateway-cli';
import { SETTINGS } from '../../src/config';
import { compiledEntry } from '../support/compiled';
import { outputUntilExit } from '../support/gateway-process';

const root = join(__dirname, '..', '..');
// Each test starts several CLI processes (compiled src/main.ts: well under 1 s each, several on a loaded 2-core machine).
jest.setTimeout(180_000);
const API_KEY = 'cli-test-statev-key-1234567890';
const API_SECRET = 'cli-test-statev-secret-0987654321';

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs src/main.ts (compiled, as the statev-gateway bin runs it) with `args`, `stdin` and exactly `env` (plus PATH and HOME). */
function cli(args: readonly string[], env: Record<string, string>, stdin = ''): Promise<Ran> {
  const child = spawn(process.execPath, [compiledEntry('main.ts'), ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const output = outputUntilExit(child);
  child.stdin.end(stdin);
  return output;
}

describe('statev-gateway keys and tokens', () => {
  const folder = mkdtempSync(join(tmpdir(), 'vault-cli-'));
  const env = { VAULT_MASTER_KEY: randomBytes(32).toString('base64'), VAULT_FILE: join(folder, 'vault.json') };
  const outputs: string[] = [];
  const run = async (args: readonly string[], stdin = ''): Promise<Ran> => {
    const result = await cli(args, env, stdin);
    outputs.push(result.stdout, result.stderr);
    return result;
  };

  it('adds a key from stdin, lists it, makes, lists and revokes a token, and never prints a key or secret', async () => {
    const added = await run(['keys', 'add', 'alice'], `${API_KEY}\n${API_SECRET}\n`);
    expect(added).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^Added key alice \(key_[0-9a-f]{12}\) with its API secret\.\n$/),
    });
    const listed = await run(['keys', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(
      /^NAME +ID +ADDED +SECRET\nalice +key_[0-9a-f]{12} +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ +yes\n$/,
    );

    const created = await run([
      'tokens',
      'create',
      '--character',
      'alice',
      '--grant',
      'read',
      '--grant',
      'factory:12',
      '--expires-in',
      '30d',
      '--origin',
      'https://shop.example',
    ]);
    expect(created.code).toBe(0);
    expect(created.stderr).toBe('');
    expect(created.stdout).toMatch(/^svg_[0-9A-Za-z]{46}\n$/);
    const token = created.stdout.trim();

    const tokens = await run(['tokens', 'list']);
    const id = /^(tok_[0-9a-f]{12}) +alice +read,factory:12 +\S+ +active +never +https:\/\/shop\.example +- +-$/m.exec(
      tokens.stdout,
    )?.[1];
    expect(id).toBeDefined();
    expect(await run(['tokens', 'revoke', id ?? ''])).toMatchObject({ code: 0, stdout: `Revoked token ${id}.\n` });
    expect((await run(['tokens', 'list'])).stdout).toMatch(new RegExp(`^${id} .* revoked \\S+ `, 'm'));

    const plain = readFileSync(env.VAULT_FILE, 'utf8');
    for (const text of [...outputs.filter((output) => output !== created.stdout), plain]) {
      for (const secret of [API_KEY, API_SECRET, token, env.VAULT_MASTER_KEY])
        expect(text.includes(secret)).toBe(false);
    }
  });

  it('refuses without a master key, an unknown name, a bad grant and a missing key on stdin', async () => {
    const noMaster = await cli(['keys', 'list'], { VAULT_FILE: env.VAULT_FILE });
    expect(noMaster).toMatchObject({ code: 2, stderr: expect.stringContaining('VAULT_MASTER_KEY is not set') });
    const badMaster = await cli(['keys', 'list'], { VAULT_FILE: env.VAULT_FILE, VAULT_MASTER_KEY: 'c2hvcnQ=' });
    expect(badMaster.code).toBe(2);
    expect(badMaster.stderr).toContain('VAULT_MASTER_KEY');
    expect(badMaster.stderr).not.toContain('c2hvcnQ=');
    const wrongMaster = await cli(['keys', 'list'], {
      VAULT_FILE: env.VAULT_FILE,
      VAULT_MASTER_KEY: randomBytes(32).toString('base64'),
    });
    expect(wrongMaster).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('which VAULT_MASTER_KEY does not hold'),
    });
    expect(await run(['keys', 'remove', 'nobody'])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('no key named "nobody"'),
    });
    expect(
      await run(['tokens', 'create', '--character', 'alice', '--grant', 'all', '--expires-in', '1d']),
    ).toMatchObject({ code: 1, stderr: expect.stringContaining('The grant "all"') });
    expect(await run(['tokens', 'create', '--character', 'alice', '--grant', 'read'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--expires-in'),
    });
    expect(await run(['keys', 'add', 'bob'], '')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('standard input'),
    });
    // Never from a flag: a key on the command line is refused, and not repeated.
    const flagged = await run(['keys', 'add', 'bob', '--key', 'key-on-the-command-line'], 'bobs-key\n');
    expect(flagged).toMatchObject({ code: 2, stderr: expect.stringContaining('takes no option --key') });
    expect(flagged.stdout + flagged.stderr).not.toContain('key-on-the-command-line');
    expect((await run(['keys', 'list'])).stdout).not.toMatch(/^bob /m);
  });

  it('removes a key by name', async () => {
    expect(await run(['keys', 'add', 'carol'], 'carols-key\n')).toMatchObject({ code: 0 });
    expect((await run(['keys', 'list'])).stdout).toMatch(/^carol /m);
    expect(await run(['keys', 'remove', 'carol'])).toMatchObject({ code: 0, stdout: 'Removed key carol.\n' });
    expect((await run(['keys', 'list'])).stdout).not.toMatch(/^carol /m);
  });

  it('rotates the master key: the old key no longer opens the vault, the new one alone does', async () => {
    const newKey = randomBytes(32).toString('base64');
    const rotated = await cli(['vault', 'rotate'], { ...env, VAULT_MASTER_KEY: `${newKey},${env.VAULT_MASTER_KEY}` });
    expect(rotated).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^Re-wrapped and signed \d+ records under master key [0-9a-f]{16} /),
    });
    expect((await cli(['keys', 'list'], { ...env, VAULT_MASTER_KEY: newKey })).stdout).toMatch(/^alice /m);
    expect((await cli(['keys', 'list'], env)).code).toBe(1);
  });

  it('keeps VAULT_MASTER_KEY off the command line and out of --print-config', () => {
    expect(SETTINGS.find((definition) => definition.env === 'VAULT_MASTER_KEY')?.flag).toBeNull();
    const printed = gatewayCommand(['--print-config'], {
      VAULT_MASTER_KEY: env.VAULT_MASTER_KEY,
      VAULT_FILE: env.VAULT_FILE,
    });
    expect('stdout' in printed && printed.stdout).toContain('VAULT_MASTER_KEY=<redacted>');
    expect(JSON.stringify(printed)).not.toContain(env.VAULT_MASTER_KEY);
    const refused = gatewayCommand([], { VAULT_MASTER_KEY: 'not-base64-and-secret' });
    expect(refused).toMatchObject({ exitCode: 2 });
    expect(JSON.stringify(refused)).not.toContain('not-base64-and-secret');
  });

  it('prints its usage with --help', async () => {
    const help = await cli(['tokens', '--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('statev-gateway tokens create --character <name>');
  });
});
