/**
 * The console's sign-in without a password: `statev-gateway console` makes a one-time code
 * (32 random bytes, valid {@link CODE_TTL_MS}), the link carrying it is exchanged once for a
 * session (32 more random bytes in a cookie), and a session ends after {@link SESSION_IDLE_MS}
 * without a request or on `console --sign-out-all`. Only SHA-256 hashes of codes and
 * session ids are stored (see `ConsoleStore`), each record with a MAC under the vault's
 * master keys (`RecordMac`): an edit of the store cannot make a code or a session.
 * Also the audit log of administrative actions, whose entries carry a MAC too.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { RecordMac } from '../vault';
import type { ConsoleStore, StoredRecord } from './console-store';

/** How long a sign-in code works, ms (10 minutes). */
export const CODE_TTL_MS = 10 * 60_000;
/** How long a session lasts without a request, ms (12 hours). */
export const SESSION_IDLE_MS = 12 * 3_600_000;
/** A session's last use is written at most this often, ms (each write is a store round trip). */
const TOUCH_EVERY_MS = 60_000;

/** A code or session id as it travels: 32 random bytes, base64url (43 characters). */
const SECRET_FORM = /^[A-Za-z0-9_-]{43}$/;

/** One administrative action. */
export interface AuditEntry {
  /** When, ms since the epoch. */
  readonly at: number;
  /** `session:<id>`, `token:<id>` or `cli`. */
  readonly actor: string;
  /** What was done (the mutation's name, or `signIn`). */
  readonly action: string;
  /** What it acted on (a character name, token id, delivery id), or null. */
  readonly target: string | null;
  /** `done`, or `refused: <code>`. */
  readonly outcome: string;
}

/** A signed-in console session. */
export interface ConsoleSession {
  /** Its public id (`ses_…`, for the audit log; never the cookie's value). */
  readonly id: string;
}

/** The sign-in link of a code: `<PUBLIC_URL, or http://127.0.0.1:PORT>/console/sign-in?code=…`. */
export function signInLink(config: { readonly publicUrl: string | null; readonly port: number }, code: string): string {
  const base = config.publicUrl ?? `http://127.0.0.1:${config.port}`;
  return `${base}/console/sign-in?code=${encodeURIComponent(code)}`;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Codes, sessions and the audit log over a {@link ConsoleStore}. */
export class ConsoleAuth {
  /**
   * @param store - where records are kept
   * @param mac - signs and verifies them (from `VAULT_MASTER_KEY`)
   * @param now - the clock, ms (default `Date.now`, read at each use so fake timers move it)
   */
  constructor(
    private readonly store: ConsoleStore,
    private readonly mac: RecordMac,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** A new one-time code, valid {@link CODE_TTL_MS} on every replica; only its hash is stored. */
  async issueCode(): Promise<{ readonly code: string; readonly expiresAt: Date }> {
    const code = newSecret();
    const hash = sha256(code);
    const expiresAt = this.now() + CODE_TTL_MS;
    const fields = { hash, expiresAt };
    await this.store.putCode(hash, { fields, mac: this.mac.sign('console-code', fields) }, CODE_TTL_MS);
    return { code, expiresAt: new Date(expiresAt) };
  }

  /**
   * Exchanges a code for a new session, once: the code is taken away first, so a second
   * use (on any replica) finds nothing.
   *
   * @returns the session's cookie value and public id, or null for a malformed, unknown, used, forged or expired code
   */
  async redeemCode(code: string): Promise<{ readonly cookieValue: string; readonly session: ConsoleSession } | null> {
    if (!SECRET_FORM.test(code)) return null;
    const hash = sha256(code);
    const record = await this.store.takeCode(hash);
    if (!record || !this.mac.verify('console-code', record.fields, record.mac) || record.fields.hash !== hash)
      return null;
    const expiresAt = record.fields.expiresAt;
    if (typeof expiresAt !== 'number' || expiresAt <= this.now()) return null;
    const cookieValue = newSecret();
    const session = { id: `ses_${randomBytes(6).toString('hex')}` };
    await this.putSession(sha256(cookieValue), session.id, this.now(), this.now());
    return { cookieValue, session };
  }

  /**
   * The session a cookie value names, when it exists, verifies and was used within
   * {@link SESSION_IDLE_MS}; its last use is moved to now (written at most once a minute).
   */
  async session(cookieValue: string): Promise<ConsoleSession | null> {
    if (!SECRET_FORM.test(cookieValue)) return null;
    const hash = sha256(cookieValue);
    const record = await this.store.getSession(hash);
    if (!record || !this.mac.verify('console-session', record.fields, record.mac) || record.fields.hash !== hash)
      return null;
    const { id, createdAt, lastSeenAt } = record.fields;
    if (typeof id !== 'string' || typeof createdAt !== 'number' || typeof lastSeenAt !== 'number') return null;
    const now = this.now();
    if (now - lastSeenAt >= SESSION_IDLE_MS) return null;
    if (now - lastSeenAt >= TOUCH_EVERY_MS) await this.putSession(hash, id, createdAt, now);
    return { id };
  }

  /** Ends every session on every replica; returns how many there were. */
  signOutAll(): Promise<number> {
    return this.store.removeSessions();
  }

  /** Adds an entry to the audit log (never a key, secret or token: callers pass names and ids). */
  async audit(actor: string, action: string, target: string | null, outcome = 'done'): Promise<void> {
    const fields = { at: this.now(), actor, action, target, outcome };
    await this.store.appendAudit({ fields, mac: this.mac.sign('console-audit', fields) });
  }

  /** The newest `first` audit entries whose MAC verifies, newest first. */
  async auditLog(first: number): Promise<AuditEntry[]> {
    const records = await this.store.audit(first);
    return records
      .filter((record) => this.mac.verify('console-audit', record.fields, record.mac))
      .map((record) => auditEntry(record));
  }

  /** Remembers the companies a character owns, as `addVaultKey`'s key check found them. */
  async rememberFactories(name: string, factoryIds: readonly string[]): Promise<void> {
    const fields = { name, factories: factoryIds.join(','), checkedAt: this.now() };
    await this.store.putCharacter(sha256(name), { fields, mac: this.mac.sign('console-character', fields) });
  }

  /** The companies a character owns as last checked, or null when its key was never checked here. */
  async factoriesOf(name: string): Promise<string[] | null> {
    const record = await this.store.getCharacter(sha256(name));
    if (!record || !this.mac.verify('console-character', record.fields, record.mac) || record.fields.name !== name)
      return null;
    const factories = record.fields.factories;
    return typeof factories === 'string' && factories !== '' ? factories.split(',') : [];
  }

  private async putSession(hash: string, id: string, createdAt: number, lastSeenAt: number): Promise<void> {
    const fields = { hash, id, createdAt, lastSeenAt };
    await this.store.putSession(hash, { fields, mac: this.mac.sign('console-session', fields) });
  }
}

function auditEntry(record: StoredRecord): AuditEntry {
  const { at, actor, action, target, outcome } = record.fields;
  return {
    at: Number(at),
    actor: String(actor),
    action: String(action),
    target: typeof target === 'string' ? target : null,
    outcome: typeof outcome === 'string' ? outcome : 'done',
  };
}
