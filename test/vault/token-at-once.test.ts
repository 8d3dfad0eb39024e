/**
 * A token works as soon as `tokens create` printed it: an unknown token
 * reads the vault again before it is refused, on HTTP, graphql-ws and graphql-sse, with
 * the reads coalesced and rate-bounded so a flood of made-up tokens costs one read per
 * 100 ms at most. And the bearer values that look like a token (`svg_` in any case) are
 * refused as tokens, never sent upstream as a key.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient as createSseClient } from 'graphql-sse';
import { DEMO_KEYS } from '../../src/simulator';
import { LiveVault, MasterKeys, Vault } from '../../src/vault';
import type { VaultStorage } from '../../src/vault';
import { FileVaultStorage } from '../../src/vault/storage';
import { newToken } from '../../src/vault/token-format';
import { readCredential } from '../../src/pipeline/credential';
import { send, useStack } from '../support';
import { collect, subscribeWs, wsClient } from '../subscriptions/clients';

const VIEWER = '{ viewer { kind tokenId } }';
const folder = mkdtempSync(join(tmpdir(), 'token-at-once-'));
const vaultFile = join(folder, 'vault.json');
const masterKey = randomBytes(32).toString('base64');
const vault = new Vault(new FileVaultStorage(vaultFile), MasterKeys.parse(masterKey));

describe('a token just created, at a running gateway', () => {
  const stack = useStack(async () => {
    await vault.addKey('shop', DEMO_KEYS.premium.key, DEMO_KEYS.premium.secret);
    return { http: true, config: { vaultFile, vaultMasterKey: masterKey } };
  });
  const post = async (
    authorization: string,
  ): Promise<{
    status: number;
    body: { data?: { viewer?: { tokenId?: string } }; errors?: Array<{ extensions?: Record<string, unknown> }> };
  }> => {
    const answer = await send(stack.gateway.url, {
      method: 'POST',
      path: '/graphql',
      headers: { 'content-type': 'application/json', authorization },
      body: JSON.stringify({ query: VIEWER }),
    });
    return { status: answer.status, body: JSON.parse(answer.text) as never };
  };

  it('works at once over HTTP, three times in a row, with no wait', async () => {
    for (let round = 0; round < 3; round += 1) {
      const { id, token } = await vault.createToken({ characters: ['shop'], grants: ['read'], expiresInMs: 3_600_000 });
      const answer = await post(`Bearer ${token}`);
      expect(answer.body.data?.viewer).toEqual({ kind: 'TOKEN', tokenId: id });
    }
  });

  it('works at once over graphql-ws and graphql-sse', async () => {
    const overWs = await vault.createToken({
      characters: ['shop'],
      grants: ['read', 'subscribe'],
      expiresInMs: 3_600_000,
    });
    const ws = wsClient(stack.endpoint, overWs.token);
    expect((await subscribeWs(ws, VIEWER).next()).data?.viewer).toEqual({ kind: 'TOKEN', tokenId: overWs.id });
    await ws.dispose();
    const overSse = await vault.createToken({
      characters: ['shop'],
      grants: ['read', 'subscribe'],
      expiresInMs: 3_600_000,
    });
    const sse = createSseClient({
      url: `${stack.origin}/graphql/stream`,
      headers: { authorization: `Bearer ${overSse.token}` },
      retryAttempts: 0,
    });
    expect((await collect((sink) => sse.subscribe({ query: VIEWER }, sink)).next()).data?.viewer).toEqual({
      kind: 'TOKEN',
      tokenId: overSse.id,
    });
    sse.dispose();
  });

  it('refuses a made-up token as unknown', async () => {
    const answer = await post(`Bearer ${newToken()}`);
    expect(answer.body.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'unknown' });
  });

  it('refuses SVG_… and other bearer values that look like a token as malformed tokens, before any upstream request', async () => {
    const { token } = await vault.createToken({ characters: ['shop'], grants: ['read'], expiresInMs: 3_600_000 });
    const before = stack.simulator.countRequests();
    for (const bearer of [
      `SVG_${token.slice(4)}`,
      `Svg_${token.slice(4)}`,
      token.toUpperCase(),
      token.slice(0, 20),
      'svg_',
      'SVG_not-a-token',
    ]) {
      const answer = await post(`Bearer ${bearer}`);
      expect({ bearer, status: answer.status, extensions: answer.body.errors?.[0]?.extensions }).toEqual({
        bearer,
        status: 401,
        extensions: expect.objectContaining({ code: 'UNAUTHENTICATED', reason: 'malformed' }),
      });
    }
    expect(stack.simulator.countRequests()).toBe(before);
    expect(readCredential(`Bearer SVG_${token.slice(4)}`)).toMatchObject({ kind: 'token' });
  });
});

/** A vault storage in memory that counts its reads. */
function memoryStorage(): VaultStorage & { reads: number } {
  let text: string | null = null;
  return {
    where: 'memory',
    reads: 0,
    async read() {
      this.reads += 1;
      return text;
    },
    async write(next: string) {
      text = next;
    },
    watch: () => () => undefined,
    readUsage: async () => ({}),
    recordUsage: async () => undefined,
  };
}

describe("an unknown token's re-read of the vault", () => {
  it('is coalesced and rate-bounded: a flood of made-up tokens reads the vault once per round, a created token is found', async () => {
    const storage = memoryStorage();
    const created = new Vault(storage, MasterKeys.parse(masterKey));
    await created.addKey('shop', DEMO_KEYS.premium.key, null);
    const live = await LiveVault.start(storage, masterKey, (error) => {
      throw error;
    });
    try {
      const startReads = storage.reads;
      await Promise.all(Array.from({ length: 500 }, () => live.whenKnown(newToken())));
      expect(storage.reads - startReads).toBe(1);
      // The next round waits for the next read (at most one per 100 ms), again one for all.
      const { token } = await created.createToken({ characters: ['shop'], grants: ['read'], expiresInMs: 3_600_000 });
      const before = storage.reads;
      await Promise.all([...Array.from({ length: 500 }, () => live.whenKnown(newToken())), live.whenKnown(token)]);
      expect(storage.reads - before).toBe(1);
      expect(live.check(token)).toMatchObject({ kind: 'ok' });
      // Known and malformed tokens read nothing.
      expect(live.whenKnown(token)).toBeNull();
      expect(live.whenKnown(`${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`)).toBeNull();
    } finally {
      await live.close();
    }
  });
});
