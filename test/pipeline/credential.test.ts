/**
 * One credential per request or connection: the transport reads it once, the context
 * takes it as it is (never from the `Authorization` header again), and its key is hashed
 * once however many operations (or subscription events) use it.
 */
import crypto from 'node:crypto';
import { createContext } from '../../src/context';
import type { GatewayServices } from '../../src/context';
import { keyId } from '../../src/economy';
import type { UpstreamEconomy } from '../../src/economy';
import { hashedKey, hashKey, readCredential } from '../../src/pipeline/credential';
import type { ActiveToken } from '../../src/vault';

const SECRET = 'test key-hash secret';
// Building a context only binds the session to the economy; nothing here goes upstream.
const services: GatewayServices = { economy: {} as UpstreamEconomy, config: { keyHashSecret: SECRET, loadersEnabled: true } };

afterEach(() => jest.restoreAllMocks());

describe('hashedKey', () => {
  it('hashes a key credential once, and gives none for no key or a malformed one', () => {
    const expected = keyId('key-one', SECRET);
    const hmac = jest.spyOn(crypto, 'createHmac');
    const credential = readCredential('Bearer key-one');
    const first = hashedKey(credential, SECRET);
    expect(hmac).toHaveBeenCalledTimes(1);
    expect(first).toEqual({ apiKey: 'key-one', keyId: expected });
    hmac.mockClear();
    expect(hashedKey(credential, SECRET)).toBe(first);
    expect(hmac).not.toHaveBeenCalled();
    expect(hashedKey(readCredential(undefined), SECRET)).toBeNull();
    expect(hashedKey(readCredential('key-one'), SECRET)).toBeNull();
  });
});

describe('createContext', () => {
  it('runs with the credential it is given, not with an Authorization header', () => {
    const context = createContext(services, new Map([['authorization', 'Bearer someone-else']]), readCredential('Bearer key-one'));
    expect(context.apiKey).toBe('key-one');
    const anonymous = createContext(services, new Map([['authorization', 'Bearer someone-else']]), readCredential(undefined));
    expect(anonymous.apiKey).toBeNull();
  });

  it('hashes one credential once across many contexts (a subscription refreshes its context per event)', () => {
    const credential = readCredential('Bearer key-two');
    const hmac = jest.spyOn(crypto, 'createHmac');
    for (let event = 0; event < 5; event += 1) expect(createContext(services, new Map(), credential).apiKey).toBe('key-two');
    expect(hmac).toHaveBeenCalledTimes(1);
  });

  it('runs with the server key in public-site mode, hashed once for the process', () => {
    // The public-site policy hands out one credentials object per kind of trusted document (see PublicSite).
    const expected = keyId('server-key', SECRET);
    const hmac = jest.spyOn(crypto, 'createHmac');
    const server = { apiKey: 'server-key', apiSecret: null };
    for (let request = 0; request < 3; request += 1) {
      const context = createContext(services, new Map([['x-api-secret', 'browser secret']]), readCredential(undefined), server);
      expect(context.apiKey).toBe('server-key');
      expect(context.apiSecretHeader).toBeNull();
      expect(context.serverCredentials).toBe(true);
      expect(context.session.keyId).toBe(expected);
    }
    expect(hmac).toHaveBeenCalledTimes(1);
  });

  it("runs an access token with its vault key, hashed once per character whatever the request's credentials object", () => {
    const character = { id: 'c1', name: 'First', apiKey: 'vault-key', apiSecret: 'vault-secret' };
    const token = { id: 't1', characters: [character], grantTexts: [], grants: [], expiresAt: new Date(8.64e15), origin: null, budgetShare: null } as unknown as ActiveToken;
    const expected = keyId('vault-key', SECRET);
    const hmac = jest.spyOn(crypto, 'createHmac');
    for (let request = 0; request < 4; request += 1) {
      // The token step builds the credentials per request, over the vault's character.
      const context = createContext(services, new Map(), readCredential('Bearer svg_token'), { apiKey: character.apiKey, apiSecret: character.apiSecret, token });
      expect(context.session.keyId).toBe(expected);
    }
    expect(hmac).toHaveBeenCalledTimes(1);
  });
});

describe('hashKey', () => {
  it('is the one memo: a key credential and hashedKey share the hash, and a holder whose key changed is hashed again', () => {
    const credential = readCredential('Bearer key-three');
    const hmac = jest.spyOn(crypto, 'createHmac');
    if (credential.kind !== 'key') throw new Error('expected a key');
    expect(hashKey(credential, SECRET)).toBe(hashedKey(credential, SECRET));
    expect(hmac).toHaveBeenCalledTimes(1);
    const holder = { apiKey: 'before' };
    expect(hashKey(holder, SECRET).keyId).toBe(keyId('before', SECRET));
    holder.apiKey = 'after';
    expect(hashKey(holder, SECRET).keyId).toBe(keyId('after', SECRET));
  });
});
