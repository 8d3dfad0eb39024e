/**
 * Where the vault's document lives: a file (mode 0600, written whole and renamed into
 * place) by default, or Redis when `REDIS_URL` is set, so every replica sees one vault.
 * Both tell a running gateway when the document changed.
 */
import { chmod, mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';

/** The vault's bytes, wherever they are kept. */
export interface VaultStorage {
  /** Where it is, for messages (a path or `redis <key>`, never a password). */
  readonly where: string;
  /** The document's text, or null when there is none yet. */
  read(): Promise<string | null>;
  /** Replaces the document. */
  write(text: string): Promise<void>;
  /** Calls `changed` (soon) after each change, by this process or another; returns the function that stops watching. */
  watch(changed: () => void): () => void;
  /** When each token was last used (ISO times by token id), as gateways recorded it. */
  readUsage(): Promise<Record<string, string>>;
  /** Records last uses (ISO times by token id), keeping the later time of each. */
  recordUsage(uses: Readonly<Record<string, string>>): Promise<void>;
}

/** Merges last uses: the later ISO time of each token id. */
export function laterUses(
  stored: Readonly<Record<string, string>>,
  uses: Readonly<Record<string, string>>,
): Record<string, string> {
  const merged = { ...stored };
  for (const [id, at] of Object.entries(uses)) if (!merged[id] || merged[id] < at) merged[id] = at;
  return merged;
}

/** How often a file vault is checked for changes, ms (changes take effect within 1 s). */
const FILE_POLL_MS = 250;

/**
 * Replaces `path` with `text` as only its owner may read it: a temporary file of mode 0600
 * beside it (its folder made with mode 0700), renamed into place, so a reader never sees
 * half a file. For the gateway's own stores of secrets and payments.
 */
export async function writePrivateFile(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temporary, text, { mode: 0o600, flag: 'wx' });
  await chmod(temporary, 0o600);
  await rename(temporary, path);
}

/** A vault in one file, mode 0600 in a folder of mode 0700 when it creates them. */
export class FileVaultStorage implements VaultStorage {
  /** @param path - the file (`VAULT_FILE`) */
  constructor(private readonly path: string) {}

  /** The file's path. */
  get where(): string {
    return this.path;
  }

  /** The file's text, or null when it does not exist. */
  async read(): Promise<string | null> {
    try {
      return await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  /** Writes a temporary file of mode 0600 beside it and renames it into place (a reader never sees half a vault). */
  write(text: string): Promise<void> {
    return writePrivateFile(this.path, text);
  }

  /** The usage file beside the vault (`<VAULT_FILE>.usage`): token ids and times only. */
  private get usagePath(): string {
    return `${this.path}.usage`;
  }

  /** Last uses from the usage file (none when it does not exist or does not parse). */
  async readUsage(): Promise<Record<string, string>> {
    try {
      const value = JSON.parse(await readFile(this.usagePath, 'utf8')) as unknown;
      return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, string>) : {};
    } catch {
      return {};
    }
  }

  /** Merges last uses into the usage file (mode 0600, renamed into place). */
  async recordUsage(uses: Readonly<Record<string, string>>): Promise<void> {
    const merged = laterUses(await this.readUsage(), uses);
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    const temporary = `${this.usagePath}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(temporary, JSON.stringify(merged), { mode: 0o600, flag: 'wx' });
    await rename(temporary, this.usagePath);
  }

  /** Polls the file's identity (inode, size, mtime) every 250 ms; the timer does not keep the process alive. */
  watch(changed: () => void): () => void {
    let last = '';
    let busy = false;
    const check = async (): Promise<void> => {
      if (busy) return;
      busy = true;
      try {
        const info = await stat(this.path).catch(() => null);
        const now = info ? `${info.ino}:${info.size}:${info.mtimeMs}` : 'none';
        if (last !== '' && now !== last) changed();
        last = now;
      } finally {
        busy = false;
      }
    };
    void check();
    const timer = setInterval(() => void check(), FILE_POLL_MS);
    timer.unref();
    return () => clearInterval(timer);
  }
}
