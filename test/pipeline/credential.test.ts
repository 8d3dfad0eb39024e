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
import { hashedKey, readCredential } from '../../src/pipeline/credential';

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
    const hmac = jest.spyOn(crypto, 'createHmac');
    for (let request = 0; request < 3; request += 1) {
      const context = createContext(services, new Map([['x-api-secret', 'browser secret']]), readCredential(undefined), { apiKey: 'server-key', apiSecret: null });
      expect(context.apiKey).toBe('server-key');
      expect(context.apiSecretHeader).toBeNull();
      expect(context.serverCredentials).toBe(true);
    }
    expect(hmac).toHaveBeenCalledTimes(1);
  });
});
