import { randomBytes } from 'node:crypto';
import { RecordMac } from '../../src/vault';

/** `mac` with one character of its digest changed (not the last: its low bits are base64url padding, which decoding ignores). */
function flipped(mac: string): string {
  const at = mac.length - 10;
  return `${mac.slice(0, at)}${mac[at] === 'A' ? 'B' : 'A'}${mac.slice(at + 1)}`;
}

describe('RecordMac', () => {
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  const record = { id: 'tok_0123456789ab', grants: ['read'], revokedAt: null };

  it('verifies its own MAC whatever the order of the record keys', () => {
    const mac = new RecordMac([oldKey]);
    const signed = mac.sign('token', record);
    expect(mac.verify('token', { revokedAt: null, grants: ['read'], id: 'tok_0123456789ab' }, signed)).toBe(true);
  });

  it('refuses an edited record, another kind, a foreign key and malformed MACs', () => {
    const mac = new RecordMac([oldKey]);
    const signed = mac.sign('token', record);
    expect(mac.verify('token', { ...record, grants: ['read', 'write:payments'] }, signed)).toBe(false);
    expect(mac.verify('webhook', record, signed)).toBe(false);
    expect(new RecordMac([newKey]).verify('token', record, signed)).toBe(false);
    for (const bad of [undefined, null, 42, '', 'v1', `${signed}.x`, flipped(signed)]) {
      expect(mac.verify('token', record, bad)).toBe(false);
    }
  });

  it('keeps records signed under an old master key valid during a rotation, and says they are stale', () => {
    const before = new RecordMac([oldKey]).sign('outbox', record);
    const rotating = RecordMac.fromSetting(`${newKey.toString('base64')},${oldKey.toString('base64')}`);
    expect(rotating.verify('outbox', record, before)).toBe(true);
    expect(rotating.isStale(before)).toBe(true);
    expect(rotating.isStale(rotating.sign('outbox', record))).toBe(false);
    expect(new RecordMac([newKey]).verify('outbox', record, before)).toBe(false);
  });
});
