import { Writable } from 'node:stream';

/** A stream for pino (`logDestination`) that keeps every line. */
export class LineCollector extends Writable {
  readonly lines: string[] = [];

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    for (const line of String(chunk).split('\n')) if (line.trim() !== '') this.lines.push(line);
    callback();
  }

  /** Every line parsed as JSON. */
  records(): Array<Record<string, unknown>> {
    return this.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  }
}
