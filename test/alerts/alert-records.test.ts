/**
 * Alert rules as vault records: a running gateway's view opens them (URL and signing
 * secret unsealed, the key that watches), refuses one edited outside the command line (its
 * MAC) and leaves out one whose key was removed; after `vault rotate` they open under the new
 * master key alone. And what rules last saw, in a file and in Redis, survives reopening.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileAlertState, RedisAlertState } from '../../src/alerts/alert-state';
import { MasterKeys, Vault } from '../../src/vault';
import { FileVaultStorage } from '../../src/vault/storage';
import { VaultView } from '../../src/vault/vault-view';
import { describeWithRedis, startTestRedis } from '../support/redis';
import type { TestRedis } from '../support/redis';

const DISCORD = 'https://discord.com/api/webhooks/42/sealed-token-part';

describe('alert rules in the vault', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'alert-records-')), 'vault.json');
  const first = randomBytes(32).toString('base64');

  it('opens a rule for the gateway, refuses an edited one, and opens them after a rotation', async () => {
    const vault = new Vault(new FileVaultStorage(file), MasterKeys.parse(first));
    await vault.addKey('shop', 'records-test-key', null);
    const discord = await vault.addAlert({
      character: 'shop',
      kind: 'OUTBID',
      params: {},
      target: 'DISCORD',
      url: DISCORD,
    });
    const hook = await vault.addAlert({
      character: 'shop',
      kind: 'RENT_OVERDUE',
      params: { buildingId: 'b1', days: 3 },
      target: 'WEBHOOK',
      url: 'https://hooks.example/alerts',
    });
    expect(readFileSync(file, 'utf8')).not.toContain('sealed-token-part');

    const view = VaultView.fromText(readFileSync(file, 'utf8'), MasterKeys.parse(first));
    expect(view.problems).toEqual([]);
    expect(view.alerts).toEqual([
      expect.objectContaining({
        id: discord.id,
        character: 'shop',
        kind: 'OUTBID',
        target: 'DISCORD',
        url: DISCORD,
        shownUrl: 'https://discord.com/api/webhooks/42/…',
        secret: null,
        apiKey: 'records-test-key',
      }),
      expect.objectContaining({
        id: hook.id,
        kind: 'RENT_OVERDUE',
        params: { buildingId: 'b1', days: 3 },
        url: 'https://hooks.example/alerts',
        secret: hook.secret,
      }),
    ]);

    // An edit by hand (another building) is refused: its MAC no longer verifies.
    const document = JSON.parse(readFileSync(file, 'utf8')) as { alerts: Array<{ params: Record<string, unknown> }> };
    const original = JSON.stringify(document);
    (document.alerts[1] as { params: Record<string, unknown> }).params.buildingId = 'someone-elses';
    const edited = VaultView.fromText(JSON.stringify(document), MasterKeys.parse(first));
    expect(edited.alerts.map((each) => each.id)).toEqual([discord.id]);
    expect(edited.problems).toEqual([
      expect.stringMatching(new RegExp(`^Alert record ${hook.id} is refused: its MAC does not verify`)),
    ]);
    expect((await vault.listAlerts()).map((each) => each.refused)).toEqual([null, null]);
    writeFileSync(file, original);

    const second = randomBytes(32).toString('base64');
    await new Vault(new FileVaultStorage(file), MasterKeys.parse(`${second},${first}`)).rotate();
    const rotated = VaultView.fromText(readFileSync(file, 'utf8'), MasterKeys.parse(second));
    expect(rotated.problems).toEqual([]);
    expect(rotated.alerts.map((each) => each.url)).toEqual([DISCORD, 'https://hooks.example/alerts']);

    await new Vault(new FileVaultStorage(file), MasterKeys.parse(second)).removeKey('shop');
    expect(VaultView.fromText(readFileSync(file, 'utf8'), MasterKeys.parse(second)).alerts).toEqual([]);
  });

  it('keeps what rules saw in a file across reopening', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'alert-state-')), 'vault.json.alerts-state');
    const store = await FileAlertState.open(path);
    await store.set('alr_1|inventory/f1', { below: true, crossings: 2 });
    await store.set('alr_2|tenants/b1', { reported: { x: '2026-01-01T00:00:00.000Z' } });
    await store.forget('alr_2');
    const reopened = await FileAlertState.open(path);
    expect(await reopened.get('alr_1|inventory/f1')).toEqual({ below: true, crossings: 2 });
    expect(await reopened.get('alr_2|tenants/b1')).toBeNull();
  });
});

describeWithRedis('alert rule state in Redis', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startTestRedis();
  });

  afterAll(async () => {
    await redis.stop();
  });

  it('is shared by every store on the same prefix, and forgotten per rule', async () => {
    const prefix = `alerts-test-${randomBytes(4).toString('hex')}:`;
    const one = new RedisAlertState(redis.url, prefix);
    const other = new RedisAlertState(redis.url, prefix);
    try {
      await one.set('alr_1|inventory/f1', { below: true, crossings: 1 });
      await one.set('alr_2|inventory/f1', { below: false, crossings: 0 });
      expect(await other.get('alr_1|inventory/f1')).toEqual({ below: true, crossings: 1 });
      await other.forget('alr_1');
      expect(await one.get('alr_1|inventory/f1')).toBeNull();
      expect(await one.get('alr_2|inventory/f1')).toEqual({ below: false, crossings: 0 });
    } finally {
      await one.close();
      await other.close();
    }
  });
});
