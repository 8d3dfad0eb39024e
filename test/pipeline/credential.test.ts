/**
 * One credential per request or connection: the transport reads it once, the steps resolve
 * it once to the key it runs with (key-in-use.ts, THE memo of key hashes), and the context
 * takes that key as it is (never from the `Authorization` header again, never hashed again),
 * however many operations (or subscription events) use it.
 */
import crypto from 'node:crypto';
import { createContext } from '../../src/context';
import type { GatewayServices } from '../../src/context';
import { keyId } from '../../src/economy';
import type { UpstreamEconomy } from '../../src/economy';
import { readCredential } from '../../src/pipeline/credential';
import { callerKey, siteKey, tokenKey } from '../../src/pipeline/key-in-use';
import type { ActiveToken } from '../../src/vault';

const SECRET = 'test key-hash secret';
// Building a context only binds the session to the economy; nothing here goes upstream.
const services: GatewayServices = {
  economy: {} as UpstreamEconomy,
  config: { keyHashSecret: SECRET, loadersEnabled: true },
};

afterEach(() => jest.restoreAllMocks());

describe('callerKey', () => {
  it('hashes a key credential once, and gives none for no key, a malformed one or a token', () => {
    const expected = keyId('key-one', SECRET);
    const hmac = jest.spyOn(crypto, 'createHmac');
    const credential = readCredential('Bearer key-one');
    const first = callerKey(credential, SECRET);
    expect(hmac).toHaveBeenCalledTimes(1);
    expect(first).toEqual({ source: 'caller', key: { apiKey: 'key-one', keyId: expected } });
    hmac.mockClear();
    expect(callerKey(credential, SECRET)?.key).toBe(first?.key);
    expect(hmac).not.toHaveBeenCalled();
    expect(callerKey(readCredential(undefined), SECRET)).toBeNull();
    expect(callerKey(readCredential('key-one'), SECRET)).toBeNull();
    expect(callerKey(readCredential('Bearer svg_token'), SECRET)).toBeNull();
  });
});

describe('createContext', () => {
  it('runs with the key it is given, not with an Authorization header', () => {
    const context = createContext(
      services,
      new Map([['authorization', 'Bearer someone-else']]),
      callerKey(readCredential('Bearer key-one'), SECRET),
    );
    expect(context.apiKey).toBe('key-one');
    expect(context.keySource).toBe('caller');
    const anonymous = createContext(services, new Map([['authorization', 'Bearer someone-else']]), null);
    expect(anonymous.apiKey).toBeNull();
    expect(anonymous.keySource).toBeNull();
  });

  it('hashes nothing itself (a subscription refreshes its context per event)', () => {
    const key = callerKey(readCredential('Bearer key-two'), SECRET);
    const hmac = jest.spyOn(crypto, 'createHmac');
    for (let event = 0; event < 5; event += 1)
      expect(createContext(services, new Map([['x-api-secret', ' own secret ']]), key)).toMatchObject({
        apiKey: 'key-two',
        apiSecret: 'own secret',
      });
    expect(hmac).not.toHaveBeenCalled();
  });

  it("runs with the site's key in public-site mode, hashed once for the process, with its stored secret only", () => {
    // The public-site policy hands out one site key object per kind of trusted document (see PublicSite).
    const expected = keyId('server-key', SECRET);
    const hmac = jest.spyOn(crypto, 'createHmac');
    const server = { apiKey: 'server-key', apiSecret: null };
    for (let request = 0; request < 3; request += 1) {
      const context = createContext(services, new Map([['x-api-secret', 'browser secret']]), siteKey(server, SECRET));
      expect(context.apiKey).toBe('server-key');
      expect(context.apiSecret).toBeNull();
      expect(context.keySource).toBe('site');
      expect(context.session.keyId).toBe(expected);
    }
    expect(hmac).toHaveBeenCalledTimes(1);
  });

  it('runs an access token with its vault key and secret, hashed once per character of the opened vault', () => {
    const character = { id: 'c1', name: 'First', apiKey: 'vault-key', apiSecret: 'vault-secret' };
    const token = {
      id: 't1',
      characters: [character],
      grantTexts: [],
      grants: [],
      expiresAt: new Date(8.64e15),
      origin: null,
      budgetShare: null,
    } as unknown as ActiveToken;
    const expected = keyId('vault-key', SECRET);
    const hmac = jest.spyOn(crypto, 'createHmac');
    for (let request = 0; request < 4; request += 1) {
      // The token step resolves the token per request, over the vault's character.
      const context = createContext(services, new Map([['x-api-secret', 'browser secret']]), tokenKey(token, SECRET));
      expect(context).toMatchObject({ apiKey: 'vault-key', apiSecret: 'vault-secret', keySource: 'token', token });
      expect(context.session.keyId).toBe(expected);
    }
    expect(hmac).toHaveBeenCalledTimes(1);
  });
});

describe('the memo of key hashes', () => {
  it('is one: a key credential is hashed once whatever asks, and a holder whose key changed is hashed again', () => {
    const credential = readCredential('Bearer key-three');
    const hmac = jest.spyOn(crypto, 'createHmac');
    expect(callerKey(credential, SECRET)?.key).toBe(callerKey(credential, SECRET)?.key);
    expect(hmac).toHaveBeenCalledTimes(1);
    const holder = { apiKey: 'before', apiSecret: null };
    expect(siteKey(holder, SECRET).key.keyId).toBe(keyId('before', SECRET));
    holder.apiKey = 'after';
    expect(siteKey(holder, SECRET).key.keyId).toBe(keyId('after', SECRET));
  });
});
