import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MasterKeys, Vault } from '../../src/vault';
import { FileVaultStorage } from '../../src/vault/storage';
import type { Scenario } from '../lib/bench';
import { PREMIUM_KEY } from '../lib/bench';
import { measureLoad } from '../lib/measure';

/**
 * warm-token: what access tokens cost. One gateway with a vault serves the warm dashboard
 * twice, 50 connections each: with the premium key (`warm-token-key`), then with an access
 * token over that key, grant `read` (`warm-token`): the token lookup and the grants check
 * run on every request. Compare the two throughputs (same process, same caches).
 */
export const warmToken: Scenario = {
  name: 'warm-token',
  async run(bench) {
    const vaultFile = join(mkdtempSync(join(tmpdir(), 'bench-vault-')), 'vault.json');
    const masterKey = randomBytes(32).toString('base64');
    const vault = new Vault(new FileVaultStorage(vaultFile), MasterKeys.parse(masterKey));
    await vault.addKey('premium', PREMIUM_KEY, null);
    const { token } = await vault.createToken({ characters: ['premium'], grants: ['read'], expiresInMs: 86_400_000 });
    const gateway = await bench.startGateway('gateway-vault', { VAULT_FILE: vaultFile, VAULT_MASTER_KEY: masterKey });
    try {
      const common = {
        server: gateway,
        serverLabel: 'gateway (VAULT_MASTER_KEY set)',
        gateway: true,
        query: 'dashboard',
        connections: 50,
        noCache: false,
      } as const;
      await measureLoad(bench, {
        ...common,
        name: 'warm-token-key',
        description: 'dashboard, warm caches, premium key, 50 connections, on a gateway with a vault',
        keys: PREMIUM_KEY,
      });
      await measureLoad(bench, {
        ...common,
        name: 'warm-token',
        description: 'dashboard, warm caches, an access token (grant read) over the premium key, 50 connections',
        keys: 'access token (read)',
        bearer: token,
      });
    } finally {
      await bench.stopServer(gateway);
    }
  },
};
