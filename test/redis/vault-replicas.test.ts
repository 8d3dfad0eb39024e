/**
 * The vault in Redis (`REDIS_URL` set): every replica reads the same vault, a token made
 * or revoked with the command line's code takes effect on each of them without a restart,
 * and Redis holds no key, secret or token in clear.
 */
import { randomBytes } from 'node:crypto';
import { DEMO_KEYS } from '../../src/simulator';
import { MasterKeys, Vault } from '../../src/vault';
import { RedisVaultStorage } from '../../src/vault/redis-storage';
import { describeWithRedis, send, startStack, startTestRedis } from '../support';
import type { HttpStack, TestRedis } from '../support';

const VIEWER = '{ viewer { kind tokenId } }';

describeWithRedis('a vault in Redis shared by replicas', () => {
  let redis: TestRedis;
  const prefix = `vault-test-${process.pid}:`;
  const masterKey = randomBytes(32).toString('base64');

  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  const status = async (stack: HttpStack, token: string): Promise<{ status: number; text: string }> => {
    const response = await send(stack.gateway.url, {
      method: 'POST',
      path: '/graphql',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: VIEWER }),
    });
    return { status: response.status, text: response.text };
  };

  it('serves a token on every replica and refuses it on every replica once revoked', async () => {
    const storage = new RedisVaultStorage(redis.url, prefix);
    const vault = new Vault(storage, MasterKeys.parse(masterKey));
    const replicas: HttpStack[] = [];
    try {
      await vault.addKey('shop', DEMO_KEYS.premium.key, DEMO_KEYS.premium.secret);
      const early = await vault.createToken({ characters: ['shop'], grants: ['read'], expiresInMs: 3_600_000 });
      for (let index = 0; index < 2; index += 1) {
        replicas.push(
          await startStack({
            http: true,
            redis,
            config: { redisPrefix: prefix, vaultMasterKey: masterKey, vaultFile: '/nonexistent/never-read.json' },
          }),
        );
      }
      for (const replica of replicas) expect((await status(replica, early.token)).status).toBe(200);

      // A token made after the replicas started works at once on each (no wait, no retry), then revoked: each replica follows.
      const late = await vault.createToken({ characters: ['shop'], grants: ['read'], expiresInMs: 3_600_000 });
      const atOnce = await Promise.all(replicas.map((replica) => status(replica, late.token)));
      expect(atOnce.map((answer) => answer.status)).toEqual([200, 200]);
      await vault.revokeToken(late.id);
      for (const replica of replicas) {
        for (let attempt = 0; attempt < 1000 && (await status(replica, late.token)).status === 200; attempt += 1);
        const refused = await status(replica, late.token);
        expect(refused.status).toBe(401);
        expect(JSON.parse(refused.text)).toMatchObject({
          errors: [{ extensions: { code: 'UNAUTHENTICATED', reason: 'revoked' } }],
        });
        expect((await status(replica, early.token)).status).toBe(200);
      }

      const stored = (await storage.read()) ?? '';
      expect(stored).toContain('"name": "shop"');
      for (const secret of [DEMO_KEYS.premium.key, DEMO_KEYS.premium.secret, early.token, late.token, masterKey])
        expect(stored.includes(secret)).toBe(false);
      expect(storage.where).not.toContain(redis.url);

      // Stopped replicas have recorded each token's last use in Redis: tokens list shows it.
      for (const replica of replicas.splice(0)) await replica.close();
      expect((await vault.listTokens()).map((token) => token.lastUsedAt instanceof Date)).toEqual([true, true]);
    } finally {
      for (const replica of replicas) await replica.close();
      await storage.close();
    }
  });
});
