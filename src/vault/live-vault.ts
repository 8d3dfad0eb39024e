/**
 * The vault as a running gateway sees it: opened at start, opened again within 1 s of
 * each change (a file's poll, or Redis' change message), so keys and tokens added,
 * changed or revoked with the command line take effect without a restart.
 */
import { MasterKeys } from './envelope';
import type { VaultStorage } from './storage';
import { VaultView } from './vault-view';
import type { TokenCheck } from './vault-view';
import type { OpenedWebhook } from './webhooks';


/** Looks bearer tokens up: what the pipeline reads. */
export interface TokenResolver {
  /** Checks a bearer value that has the token prefix (synchronous: an in-memory lookup). */
  check(token: string): TokenCheck;
}

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
  /** Last uses not yet recorded in the storage, by token id. */
  private uses = new Map<string, string>();
  private flushTimer: NodeJS.Timeout | null = null;
  /** Told after each new view (see {@link onChange}). */
  private readonly changeListeners = new Set<() => void>();

  /**
   * @param storage - where the document is
   * @param master - the master keys
   * @param onError - told when a changed document does not open (the previous view stays)
   */
  private constructor(
    private readonly storage: VaultStorage,
    private readonly master: MasterKeys,
    private readonly onError: (error: unknown) => void,
  ) {}

  /**
   * Opens the vault and starts watching it.
   *
   * @param masterKey - `VAULT_MASTER_KEY`
   * @throws when the stored document does not open with the master key (a wrong key stops the start)
   */
  static async start(storage: VaultStorage, masterKey: string, onError: (error: unknown) => void): Promise<LiveVault> {
    const vault = new LiveVault(storage, MasterKeys.parse(masterKey), onError);
    vault.view = VaultView.fromText(await storage.read(), vault.master);
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
          this.view = VaultView.fromText(await this.storage.read(), this.master);
          for (const listener of this.changeListeners) listener();
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

  /** {@inheritDoc TokenResolver.check}; a usable token's use is noted (see `tokens list`). */
  check(token: string): TokenCheck {
    const checked = this.view.check(token);
    if (checked.kind === 'ok') this.uses.set(checked.token.id, new Date().toISOString());
    return checked;
  }

  /** Records the noted last uses in the storage (every 10 s, and at close); a failure keeps them for the next time. */
  async flushUses(): Promise<void> {
    if (this.uses.size === 0) return;
    const uses = Object.fromEntries(this.uses);
    this.uses = new Map();
    try {
      await this.storage.recordUsage(uses);
    } catch (error) {
      for (const [id, at] of Object.entries(uses)) if (!this.uses.has(id)) this.uses.set(id, at);
      this.onError(error);
    }
  }

  /** The webhooks of the vault as it is now (their keys and secrets opened; never log them). */
  webhooks(): readonly OpenedWebhook[] {
    return this.view.webhooks;
  }

  /** Every StateV key of the vault as it is now (opened; never log them): the gateway polls for their open payment requests by itself. */
  apiKeys(): readonly string[] {
    return this.view.apiKeys;
  }

  /** True when a token that is not revoked is bound to this browser origin. */
  allowsOrigin(origin: string): boolean {
    return this.view.allowsOrigin(origin);
  }

  /** Stops watching and records the last uses noted since the last time. */
  async close(): Promise<void> {
    this.stopWatching?.();
    this.stopWatching = null;
    if (this.flushTimer) clearInterval(this.flushTimer);
    this.flushTimer = null;
    await this.flushUses();
  }
}
