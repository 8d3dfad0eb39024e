/**
 * The payments file's journal (payment-request.file-store.ts keeps the store in memory): replays
 * its lines at a start (keeping those refused as they are), appends each change's lines (serialised; mode 0600), and rewrites it
 * from memory once it holds more than twice the live records.
 */
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { writePrivateFile } from '../../vault/storage';
import type { JournalLine } from './payment-request.store';

/** What the journal reads of the store's memory to decide on, and write, a compaction. */
export interface JournalMemory {
  /** Live records the file would hold after a compaction (besides the refused lines). */
  liveRecords(): number;
  /** The lines that rebuild memory, in the order they must be replayed (a few groups). */
  snapshot(): Iterable<JournalLine>[];
}

/** See the module comment. */
export class PaymentJournal {
  private writing: Promise<void> = Promise.resolve();
  private lines = 0;
  private compacting = false;
  /** Lines whose record was refused: kept as they are, through compactions. */
  private readonly refusedLines: string[] = [];

  constructor(
    private readonly path: string,
    private readonly memory: JournalMemory,
  ) {}

  /**
   * Replays the file's lines with `apply` (none when it does not exist yet: a first start, its
   * folder is made). A line that does not parse (reported) or that `apply` refuses is kept as it is.
   *
   * @throws Error when the file cannot be read
   */
  async replay(apply: (line: JournalLine) => boolean, onRefused?: (what: string) => void): Promise<void> {
    let lines: string[] = [];
    try {
      lines = (await readFile(this.path, 'utf8')).split('\n');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      await mkdir(dirname(this.path), { recursive: true, mode: 0o700 }); // a first start: its folder too
    }
    for (const text of lines) {
      if (text.trim() === '') continue;
      this.lines += 1;
      let line: JournalLine;
      try {
        line = JSON.parse(text) as JournalLine;
      } catch {
        onRefused?.('a line of the payments file that does not parse');
        this.refusedLines.push(text);
        continue;
      }
      if (!apply(line)) this.refusedLines.push(text);
    }
  }

  /** Appends the lines of one change (serialised), and compacts when the file holds more than twice the live records. */
  append(lines: readonly JournalLine[]): Promise<void> {
    const path = this.path;
    if (lines.length === 0) return Promise.resolve();
    const text = lines.map((line) => `${JSON.stringify(line)}\n`).join('');
    this.lines += lines.length;
    this.writing = this.writing.catch(() => undefined).then(() => appendFile(path, text, { mode: 0o600 })); // a failed write fails its own change only
    if (!this.compacting && this.lines > Math.max(1000, 2 * (this.memory.liveRecords() + this.refusedLines.length))) {
      this.compacting = true;
      this.writing = this.writing.then(() => this.compact()).finally(() => (this.compacting = false));
    }
    return this.writing;
  }

  /** Waits for the last write. */
  async close(): Promise<void> {
    await this.writing;
  }

  /**
   * Rewrites the file from memory (runs in the write queue, so no append is lost): the text
   * is built in slices of a few hundred records with a turn of the event loop between them,
   * so a large store never holds the loop long.
   */
  private async compact(): Promise<void> {
    const parts: string[] = [...this.refusedLines.map((line) => `${line}\n`)];
    for (const lines of this.memory.snapshot()) {
      let batch = 0;
      for (const line of lines) {
        parts.push(`${JSON.stringify(line)}\n`);
        batch += 1;
        if (batch % 500 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    }
    this.lines = parts.length;
    await writePrivateFile(this.path, parts.join(''));
  }
}
