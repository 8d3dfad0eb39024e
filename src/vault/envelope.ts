/**
 * Envelope encryption of the vault: each record's fields are sealed with AES-256-GCM under
 * a data key of its own, and that data key is wrapped (AES-256-GCM too) under the master
 * key from `VAULT_MASTER_KEY`. Everything here is node:crypto; nothing is hand-rolled.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

/** AES-256-GCM's key, nonce and tag lengths, bytes. */
const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** A value sealed with AES-256-GCM: `<nonce>.<tag>.<ciphertext>`, each base64url. */
type Box = string;

/** A data key wrapped under one master key: the master key's id and the sealed data key. */
export interface WrappedKey {
  /** The id of the master key that wrapped it (see {@link MasterKeys.idOf}); never the key. */
  readonly kid: string;
  /** The data key, sealed under that master key. */
  readonly box: Box;
}

/** A vault's content could not be opened: a wrong master key, or bytes that were altered. */
export class VaultKeyError extends Error {}

/** Seals `plain` under `key`, bound to `context` (additional authenticated data). */
export function seal(key: Buffer, plain: Buffer, context: string): Box {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const data = Buffer.concat([cipher.update(plain), cipher.final()]);
  return [nonce, cipher.getAuthTag(), data].map((part) => part.toString('base64url')).join('.');
}

/**
 * Opens a box sealed by {@link seal} with the same key and context.
 *
 * @throws VaultKeyError when the key or context differ or a byte changed
 */
export function open(key: Buffer, box: Box, context: string): Buffer {
  const [nonce, tag, data] = box.split('.').map((part) => Buffer.from(part, 'base64url'));
  if (!nonce || !tag || !data || nonce.length !== NONCE_BYTES || tag.length !== TAG_BYTES)
    throw new VaultKeyError('A vault record is not a sealed value.');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, nonce);
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(data), decipher.final()]);
  } catch {
    throw new VaultKeyError(
      'A vault record does not open with the master key (a wrong VAULT_MASTER_KEY, or an altered vault).',
    );
  }
}

/** A fresh random data key (32 bytes). */
export function newDataKey(): Buffer {
  return randomBytes(KEY_BYTES);
}

/**
 * The master keys of `VAULT_MASTER_KEY`: the first wraps new data keys, every one opens
 * data keys it wrapped (during a rotation the setting lists the new key, then the old).
 */
export class MasterKeys {
  private readonly byId = new Map<string, Buffer>();
  private readonly current: { readonly id: string; readonly key: Buffer };

  /**
   * @param keys - 32-byte keys, newest first (at least one)
   * @throws Error when there is none or one is not 32 bytes
   */
  constructor(keys: readonly Buffer[]) {
    for (const key of keys) {
      if (key.length !== KEY_BYTES) throw new Error('A vault master key is 32 bytes.');
      this.byId.set(MasterKeys.idOf(key), key);
    }
    const [first] = keys;
    if (!first) throw new Error('No vault master key.');
    this.current = { id: MasterKeys.idOf(first), key: first };
  }

  /**
   * Reads `VAULT_MASTER_KEY`: base64 keys (as `openssl rand -base64 32` prints), comma-separated, newest first.
   *
   * @throws Error when a part is not 32 bytes of base64
   */
  static parse(setting: string): MasterKeys {
    return new MasterKeys(setting.split(',').map((part) => Buffer.from(part.trim(), 'base64')));
  }

  /** A master key's public id: 16 hex digits of HMAC-SHA-256 under the key (it identifies the key, never reveals it). */
  static idOf(key: Buffer): string {
    return createHmac('sha256', key).update('statev-gateway vault master key id').digest('hex').slice(0, 16);
  }

  /**
   * A key derived from each master key with HKDF-SHA-256 (node:crypto) for another purpose
   * than wrapping (the record MACs, see `RecordMac`), by master key id, with the current id.
   *
   * @param salt - HKDF's salt
   * @param info - HKDF's info: the purpose
   */
  derive(salt: string, info: string): { readonly currentId: string; readonly keys: ReadonlyMap<string, Buffer> } {
    const keys = new Map<string, Buffer>();
    for (const [id, key] of this.byId) keys.set(id, Buffer.from(hkdfSync('sha256', key, salt, info, KEY_BYTES)));
    return { currentId: this.current.id, keys };
  }

  /** The id of the key new data keys are wrapped with. */
  get currentId(): string {
    return this.current.id;
  }

  /** Wraps a data key under the current master key, bound to `context` (the record it belongs to). */
  wrap(dataKey: Buffer, context: string): WrappedKey {
    return { kid: this.current.id, box: seal(this.current.key, dataKey, `wrap:${context}`) };
  }

  /**
   * Unwraps a data key with the master key that wrapped it.
   *
   * @throws VaultKeyError when that master key is not among these, or the box does not open
   */
  unwrap(wrapped: WrappedKey, context: string): Buffer {
    const key = this.byId.get(wrapped.kid);
    if (!key)
      throw new VaultKeyError(
        `A vault record is wrapped by master key ${wrapped.kid}, which VAULT_MASTER_KEY does not hold (current: ${this.current.id}).`,
      );
    return open(key, wrapped.box, `wrap:${context}`);
  }
}
