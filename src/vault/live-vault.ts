/**
 * The vault as a running gateway sees it: opened at start, opened again within 1 s of
 * each change (a file's poll, or Redis' change message), so keys and tokens added,
 * changed or revoked with the command line take effect without a restart.
 */
import { MasterKeys } from './envelope';
import type { VaultStorage } from './storage';
import { VaultView } from './vault-view';
import type { TokenCharacter, TokenCheck, TokenText } from './vault-view';
import type { OpenedWebhook } from './webhooks';
import type { OpenedAlert } from './alert-rules';
import { wellFormed } from './vault-view';

/** Looks bearer tokens up: what the pipeline reads. */
export interface TokenResolver {
  /** Checks a bearer value that has the token prefix (synchronous: an in-memory lookup; its hash once per holder, see `TokenText`). */
  check(token: TokenText): TokenCheck;
  /**
   * For a well-formed token this gateway does not know: a promise that settles once the
   * stored vault was read again after this call (a token printed by `tokens create` a
   * moment ago works at once), else null (nothing to wait for). Transports await it before
   * they run the pipeline. Never rejects.
   */
  whenKnown?(token: TokenText): Promise<void> | null;
}

/**
 * The shortest time between two reads of the vault that unknown tokens ask for, ms: a
 * flood of made-up tokens makes at most one read per this time (each waits for the next
 * read, coalesced), and a token just created waits at most this long plus one read.
 */
const UNKNOWN_TOKEN_REREAD_MS = 100;

/** How often a gateway records its tokens' last uses in the vault's storage, ms. */
const USAGE_FLUSH_MS = 10_000;

/** The resolver of a gateway without a vault: every token is refused, naming `VAULT_MASTER_KEY`. */
export const NO_VAULT: TokenResolver = { check: () => ({ kind: 'refused', reason: 'no-vault' }) };

/** A vault kept open and current. */
export class LiveVault implements TokenResolver {
  private view = VaultView.empty();
  private stopWatching: (() => void) | null = null;
  private loading: Promise<void> | null = null;
  private again = false;
  /** Last uses not yet recorded in the storage (ms since the epoch; written as ISO text at flush), by token id. */
  private uses = new Map<string, number>();
  private flushTimer: NodeJS.Timeout | null = null;
  /** Told after each new view (see {@link onChange}). */
  private readonly changeListeners = new Set<() => void>();
  /** The text the current view was opened from: an unchanged text is not opened again. */
  private text: string | null = null;
  /** The read unknown tokens wait for, when one is planned or running, and when the last one started. */
  private reread: Promise<void> | null = null;
  private lastRereadAt = Number.NEGATIVE_INFINITY;
  private closed = false;

  /**
   * @param storage - where the document is
   * @param master - the master keys
   * @param onError - told when a changed document does not open (the previous view stays)
   * @param onRefused - told, once per opened document, of each token or webhook record it refuses (malformed, unsigned or with a MAC that does not verify): one line naming the record, never a secret
   */
  private constructor(
    private readonly storage: VaultStorage,
    private readonly master: MasterKeys,
    private readonly onError: (error: unknown) => void,
    private readonly onRefused: (problem: string) => void,
  ) {}

  /**
   * Opens the vault and starts watching it.
   *
   * @param masterKey - `VAULT_MASTER_KEY`
   * @param onRefused - told of each record the vault refuses (see the constructor); default: `onError`
   * @throws when the stored document does not open with the master key (a wrong key stops the start)
   */
  static async start(
    storage: VaultStorage,
    masterKey: string,
    onError: (error: unknown) => void,
    onRefused: (problem: string) => void = (problem) => onError(new Error(problem)),
  ): Promise<LiveVault> {
    const vault = new LiveVault(storage, MasterKeys.parse(masterKey), onError, onRefused);
    vault.open(await storage.read());
    vault.stopWatching = storage.watch(() => vault.reload());
    vault.flushTimer = setInterval(() => void vault.flushUses(), USAGE_FLUSH_MS);
    vault.flushTimer.unref();
    return vault;
  }

  /** Opens the stored document again (one load at a time; a change during a load loads once more). */
  reload(): Promise<void> {
    if (this.loading) {
      this.again = true;
      return this.loading;
    }
    this.loading = (async () => {
      do {
        this.again = false;
        try {
          this.open(await this.storage.read());
        } catch (error) {
          this.onError(error);
        }
      } while (this.again);
      this.loading = null;
    })();
    return this.loading;
  }

  /**
   * Calls `listener` each time a changed document was opened (the new view is in place), so
   * open streams can check their tokens again; returns the function that stops it.
   */
  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** Opens a stored text (unless it is the one the view was opened from) and reports the records it refuses. */
  private open(text: string | null): void {
    if (text === this.text && text !== null) return;
    const view = VaultView.fromText(text, this.master, this.view);
    this.view = view;
    this.text = text;
    for (const problem of view.problems) this.onRefused(problem);
    for (const listener of this.changeListeners) listener();
  }

  /**
   * {@inheritDoc TokenResolver.whenKnown}. Coalesced and rate-bounded: every unknown token
   * that arrives before a read starts waits for that same read, and reads start at most once
   * per {@link UNKNOWN_TOKEN_REREAD_MS}, so a flood of made-up tokens cannot make the gateway
   * read the vault per request. An unchanged text is not opened again.
   */
  whenKnown(token: TokenText): Promise<void> | null {
    if (this.closed || !wellFormed(token) || this.view.knows(token)) return null;
    if (this.reread) return this.reread;
    const wait = Math.max(0, this.lastRereadAt + UNKNOWN_TOKEN_REREAD_MS - Date.now());
    const reread = new Promise<void>((resolve) => {
      const start = (): void => {
        if (this.closed) {
          resolve();
          return;
        }
        // From here on, a new unknown token waits for the next read (this one may miss it).
        this.reread = null;
        this.lastRereadAt = Date.now();
        void this.storage.read().then(
          (text) => {
            try {
              this.open(text);
            } catch (error) {
              this.onError(error);
            }
            resolve();
          },
          (error: unknown) => {
            this.onError(error);
            resolve();
          },
        );
      };
      if (wait === 0) queueMicrotask(start);
      else setTimeout(start, wait).unref();
    });
    this.reread = reread;
    return reread;
  }

  /** {@inheritDoc TokenResolver.check}; a usable token's use is noted (see `tokens list`). */
  check(token: TokenText): TokenCheck {
    const checked = this.view.check(token);
    if (checked.kind === 'ok') this.uses.set(checked.token.id, Date.now());
    return checked;
  }

  /** Records the noted last uses in the storage (every 10 s, and at close); a failure keeps them for the next time. */
  async flushUses(): Promise<void> {
    if (this.uses.size === 0) return;
    const noted = this.uses;
    this.uses = new Map();
    const uses: Record<string, string> = {};
    for (const [id, at] of noted) uses[id] = new Date(at).toISOString();
    try {
      await this.storage.recordUsage(uses);
    } catch (error) {
      for (const [id, at] of noted) if (!this.uses.has(id)) this.uses.set(id, at);
      this.onError(error);
    }
  }

  /** The webhooks of the vault as it is now (their keys and secrets opened; never log them). */
  webhooks(): readonly OpenedWebhook[] {
    return this.view.webhooks;
  }

  /** The alert rules of the vault as it is now (their URLs, secrets and keys opened; never log them). */
  alerts(): readonly OpenedAlert[] {
    return this.view.alerts;
  }

  /**
   * Every character of the vault as it is now, its key and secret opened (never log them):
   * the gateway polls for their open payment requests by itself. The same objects as an
   * access token's characters, so a key is hashed once per opened document (see `hashedKey`).
   */
  characters(): readonly TokenCharacter[] {
    return this.view.characters;
  }

  /** True when a token that is not revoked is bound to this browser origin. */
  allowsOrigin(origin: string): boolean {
    return this.view.allowsOrigin(origin);
  }

  /** Stops watching and records the last uses noted since the last time. */
  async close(): Promise<void> {
    this.closed = true;
    this.stopWatching?.();
    this.stopWatching = null;
    if (this.flushTimer) clearInterval(this.flushTimer);
    this.flushTimer = null;
    await this.flushUses();
  }
}
