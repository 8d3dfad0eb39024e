import type { IncomingMessage } from 'node:http';

/** What {@link readBody} makes of a body: each called once, as the reading ends. */
export interface BodyReader<T> {
  /** The body's bytes, read to its end. */
  body(bytes: Buffer): T;
  /** The body is over the limit: `bytes` read when reading stopped (the rest is not read). */
  tooLarge(bytes: number): T;
  /** The reading failed (the client went away before the body's end). */
  failed(error: Error): T;
}

/**
 * Reads a request's body, at most `limit` bytes, and settles with what `reader` makes of
 * it. The reader is called as the reading ends, so the promise settles with the caller's
 * value with no turn between (a reader that throws rejects it). Past `limit` the request
 * is destroyed once what arrived with that chunk is parsed, as `for await` leaving the
 * stream: a request that arrived whole keeps its socket (its 413 is sent), an unfinished
 * one loses it.
 */
export function readBody<T>(req: IncomingMessage, limit: number, reader: BodyReader<T>): Promise<T> {
  // Events, not `for await`: an async iterator costs a promise and a turn per chunk (most bodies are one chunk).
  return new Promise<T>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (answer: () => T): void => {
      if (settled) return;
      settled = true;
      try {
        resolve(answer());
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      req.off('data', onData);
      setImmediate(() => req.destroy());
      settle(() => reader.tooLarge(size));
    };
    const onError = (error: Error): void => settle(() => reader.failed(error));
    // The listeners stay on the request once it ended (taking four off cost more than the rest
    // of the reading): none does anything after the first settles, and nothing follows an end.
    req.on('data', onData);
    req.on('end', () =>
      settle(() => reader.body(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size))),
    );
    req.on('error', onError);
    // Closed before its end (the client went away): what `for await` would have thrown.
    req.on('close', () => {
      if (!req.complete) onError(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
    });
  });
}
