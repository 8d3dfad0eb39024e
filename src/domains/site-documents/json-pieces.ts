/**
 * A site document's value as canonical JSON (object keys sorted by UTF-16 code units, no
 * whitespace), and that text cut into pieces at element boundaries (an array element or
 * an object member, with its separator and key), so that chunks can be packed from whole
 * elements and a change of one item changes one chunk.
 */

/** Pieces are at most this many UTF-8 bytes, unless one element alone is larger (a long string is sliced). */
export const PIECE_BYTES = 512;

/** Thrown when a value is not JSON (a function, `undefined`, a non-finite number, a cycle). */
export class NotJsonError extends Error {
  /** Where in the value the first part that is not JSON is, e.g. `items[3].price` (empty: the value itself). */
  readonly path: string;

  /** @param path - see {@link NotJsonError.path} */
  constructor(path: string) {
    super(`not a JSON value at ${path || '(root)'}`);
    this.name = 'NotJsonError';
    this.path = path;
  }
}

/**
 * The canonical JSON text of a value: object keys sorted by UTF-16 code units, no
 * whitespace, numbers and strings as `JSON.stringify` writes them. Two values equal as
 * JSON give the same text.
 *
 * @throws NotJsonError naming the path of the first part that is not JSON
 */
export function canonicalJson(value: unknown): string {
  return pieceTokens(value, Number.MAX_SAFE_INTEGER).join('');
}

/**
 * The canonical text as tokens: one per value of at most `pieceBytes` bytes, else the
 * value's elements (with their separators and keys) recursively, long strings sliced.
 */
function pieceTokens(value: unknown, pieceBytes: number): string[] {
  const out: string[] = [];
  const seen = new Set<object>();
  const walk = (node: unknown, prefix: string, path: string): void => {
    if (node === null || typeof node === 'boolean') {
      out.push(prefix + String(node));
      return;
    }
    if (typeof node === 'number') {
      if (!Number.isFinite(node)) throw new NotJsonError(path);
      out.push(prefix + JSON.stringify(node));
      return;
    }
    if (typeof node === 'string') {
      const text = JSON.stringify(node);
      if (Buffer.byteLength(text) <= pieceBytes) out.push(prefix + text);
      else
        for (let i = 0; i < text.length; i += pieceBytes / 4)
          out.push((i === 0 ? prefix : '') + text.slice(i, i + pieceBytes / 4));
      return;
    }
    if (typeof node !== 'object') throw new NotJsonError(path);
    if (seen.has(node)) throw new NotJsonError(path);
    seen.add(node);
    const start = out.length;
    if (Array.isArray(node)) {
      out.push(prefix + '[');
      node.forEach((element: unknown, i) => walk(element, i === 0 ? '' : ',', `${path}[${i}]`));
      out.push(']');
    } else {
      const record = node as Record<string, unknown>;
      const keys = Object.keys(record)
        .filter((key) => record[key] !== undefined)
        .sort();
      out.push(prefix + '{');
      keys.forEach((key, i) =>
        walk(record[key], `${i === 0 ? '' : ','}${JSON.stringify(key)}:`, path ? `${path}.${key}` : key),
      );
      out.push('}');
    }
    seen.delete(node);
    // Small enough to be one piece: join what the walk pushed.
    const joined = out.slice(start).join('');
    if (Buffer.byteLength(joined) <= pieceBytes) out.splice(start, out.length - start, joined);
  };
  walk(value, '', '');
  return out;
}

/**
 * The canonical text cut into pieces: small tokens (a bracket, a short number) are joined
 * with the next ones until {@link PIECE_BYTES}; an element of a large array or object is
 * one piece when it fits.
 */
export function splitPieces(value: unknown): Buffer[] {
  const pieces: Buffer[] = [];
  let pending = '';
  for (const token of pieceTokens(value, PIECE_BYTES)) {
    const small = Buffer.byteLength(token) < PIECE_BYTES / 8;
    if (pending && Buffer.byteLength(pending) + Buffer.byteLength(token) > PIECE_BYTES) {
      pieces.push(Buffer.from(pending));
      pending = '';
    }
    pending += token;
    if (!small) {
      pieces.push(Buffer.from(pending));
      pending = '';
    }
  }
  if (pending) pieces.push(Buffer.from(pending));
  return pieces;
}
