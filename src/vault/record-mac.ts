/**
 * Authentication of the records the gateway keeps outside the vault's sealed boxes (token
 * records, webhook and alert definitions, outbox entries, payment requests): each carries a
 * MAC, and a record whose MAC does not verify is refused, logged and left alone. Without
 * the master key nobody can forge one, so an edit of the vault file or of a Redis key
 * cannot raise a token's grants, revive a revoked token or have the gateway sign an event.
 *
 * The MAC key of each master key of `VAULT_MASTER_KEY` is derived from it with HKDF-SHA-256
 * (node:crypto; nothing hand-rolled). A record is signed under the current (first) master
 * key and verifies under any master key of the setting, so a rotation (`new,old`) keeps
 * every record valid until it is signed again.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import stableStringify from 'safe-stable-stringify';
import { MasterKeys } from './envelope';

/** HKDF's salt and info: bind the derived key to this one purpose. */
const SALT = 'statev-gateway record mac';
const INFO = 'record-mac/v1';

/** The prefix of a MAC's text: `v1.` and the id of the master key it was made under, then `.` and the MAC. */
const VERSION = 'v1';

/**
 * Signs and verifies records of the gateway's stores. Use one per process, made from the
 * `VAULT_MASTER_KEY` setting ({@link RecordMac.fromSetting}) or from parsed master keys.
 */
export class RecordMac {
  private readonly keys: ReadonlyMap<string, Buffer>;
  private readonly currentId: string;

  /**
   * @param masterKeys - the raw 32-byte master keys, newest first (at least one), or the vault's parsed {@link MasterKeys}
   * @throws Error when there is none or one is not 32 bytes
   */
  constructor(masterKeys: readonly Buffer[] | MasterKeys) {
    const master = masterKeys instanceof MasterKeys ? masterKeys : new MasterKeys(masterKeys); // the same checks as the vault's
    const derived = master.derive(SALT, INFO);
    this.keys = derived.keys;
    this.currentId = derived.currentId;
  }

  /**
   * Reads `VAULT_MASTER_KEY` (base64 keys, comma-separated, newest first).
   *
   * @throws Error when a part is not 32 bytes of base64
   */
  static fromSetting(setting: string): RecordMac {
    return new RecordMac(setting.split(',').map((part) => Buffer.from(part.trim(), 'base64')));
  }

  /**
   * The MAC of a record: HMAC-SHA-256 over its kind and its stable JSON (keys sorted), under
   * the current master key's MAC key; `v1.<master key id>.<base64url>`.
   *
   * @param kind - what the record is (`token`, `webhook`, `outbox`, `payment-request`, …): a MAC of one kind never verifies as another
   * @param record - the record without its MAC (any JSON value)
   */
  sign(kind: string, record: unknown): string {
    return `${VERSION}.${this.currentId}.${this.digest(this.keys.get(this.currentId) as Buffer, kind, record).toString('base64url')}`;
  }

  /**
   * True when `mac` is a MAC of `record` of this kind under one of the master keys. False for
   * a missing, malformed or foreign MAC; compared in constant time.
   */
  verify(kind: string, record: unknown, mac: unknown): boolean {
    if (typeof mac !== 'string') return false;
    const [version, id, text, extra] = mac.split('.');
    if (version !== VERSION || id === undefined || text === undefined || extra !== undefined) return false;
    const key = this.keys.get(id);
    if (!key) return false;
    const given = Buffer.from(text, 'base64url');
    const expected = this.digest(key, kind, record);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** True when `mac` was made under an older master key than the current one (sign the record again). */
  isStale(mac: string): boolean {
    return mac.split('.')[1] !== this.currentId;
  }

  private digest(key: Buffer, kind: string, record: unknown): Buffer {
    return createHmac('sha256', key)
      .update(kind)
      .update('\0')
      .update(stableStringify(record) ?? 'null')
      .digest();
  }
}
