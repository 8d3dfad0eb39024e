/**
 * The console's codes, sessions and audit log in both stores (a folder beside the vault
 * file, and Redis for replicas): a code is taken once even by two stores (replicas) at
 * the same time; a forged or edited record is refused; sign-out-all ends every session.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConsoleAuth } from '../../src/admin/console-auth';
import { FileConsoleStore, RedisConsoleStore } from '../../src/admin/console-store';
import type { ConsoleStore } from '../../src/admin/console-store';
import { RecordMac } from '../../src/vault';
import { describeWithRedis, startTestRedis } from '../support/redis';
import type { TestRedis } from '../support/redis';

function cases(name: string, open: () => [ConsoleStore, ConsoleStore]): void {
  describe(name, () => {
    const mac = RecordMac.fromSetting(randomBytes(32).toString('base64'));
    let stores: [ConsoleStore, ConsoleStore];
    beforeAll(() => {
      stores = open();
    });
    afterAll(async () => {
      for (const store of stores) await store.close();
    });

    it('lets one of two replicas take a code, once', async () => {
      const [one, two] = stores.map((store) => new ConsoleAuth(store, mac)) as [ConsoleAuth, ConsoleAuth];
      const { code } = await one.issueCode();
      const taken = await Promise.all([one.redeemCode(code), two.redeemCode(code)]);
      expect(taken.filter((each) => each !== null)).toHaveLength(1);
      const cookie = taken.find((each) => each !== null)?.cookieValue ?? '';
      expect(await two.session(cookie)).toEqual({ id: expect.stringMatching(/^ses_/) });
      expect(await one.redeemCode(code)).toBeNull();
    });

    it('refuses records under another master key, and ends every session on sign-out-all', async () => {
      const auth = new ConsoleAuth(stores[0], mac);
      const forger = new ConsoleAuth(stores[0], RecordMac.fromSetting(randomBytes(32).toString('base64')));
      expect(await auth.redeemCode((await forger.issueCode()).code)).toBeNull();
      const signedIn = await auth.redeemCode((await auth.issueCode()).code);
      expect(await forger.session(signedIn?.cookieValue ?? '')).toBeNull();
      expect(await auth.session(signedIn?.cookieValue ?? '')).not.toBeNull();
      expect(await auth.signOutAll()).toBeGreaterThanOrEqual(1);
      expect(await auth.session(signedIn?.cookieValue ?? '')).toBeNull();
    });

    it('keeps the audit log newest first, dropping entries whose MAC does not verify', async () => {
      const auth = new ConsoleAuth(stores[0], mac);
      const forger = new ConsoleAuth(stores[0], RecordMac.fromSetting(randomBytes(32).toString('base64')));
      await auth.audit('token:tok_1', 'removeVaultKey', 'shop');
      await forger.audit('token:tok_2', 'addVaultKey', 'evil');
      await auth.audit('session:ses_1', 'signIn', null, 'done');
      const entries = await auth.auditLog(10);
      expect(entries.map((entry) => `${entry.actor} ${entry.action}`)).toEqual([
        'session:ses_1 signIn',
        'token:tok_1 removeVaultKey',
      ]);
    });
  });
}

cases('the console store in a folder', () => {
  const folder = join(mkdtempSync(join(tmpdir(), 'console-store-')), 'vault.json.console');
  return [new FileConsoleStore(folder), new FileConsoleStore(folder)];
});

describeWithRedis('the console store in Redis', () => {
  let redis: TestRedis;
  const prefix = `console-test-${randomBytes(4).toString('hex')}:`;
  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(async () => {
    await redis.stop();
  });
  cases('shared by two replicas', () => [
    new RedisConsoleStore(redis.url, prefix),
    new RedisConsoleStore(redis.url, prefix),
  ]);
});
