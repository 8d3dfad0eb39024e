import type { DocumentNode } from 'graphql';

/** Most results remembered per document (distinct operation names and variable values). */
const MAX_PER_DOCUMENT = 64;

/**
 * Remembers what a pure function of (document, operation name, variables) returned, so
 * that checks running before every execution (cost, depth, bounds) walk a document only
 * once per distinct request. Apollo's document store hands out the same parsed
 * `DocumentNode` for the same query text, so a `WeakMap` on it forgets a document
 * together with that store; each document keeps at most {@link MAX_PER_DOCUMENT} results.
 *
 * When to use: only for results that depend on nothing else (the schema of a server
 * never changes while it runs).
 */
export class OperationMemo<T> {
  private readonly byDocument = new WeakMap<DocumentNode, Map<string, T>>();

  /** The remembered result for this request, or `compute()` (remembered when `keep` says so). */
  get(
    document: DocumentNode,
    operationName: string | null | undefined,
    variables: Readonly<Record<string, unknown>> | undefined,
    compute: () => T,
    keep: (result: T) => boolean = () => true,
  ): T {
    let results = this.byDocument.get(document);
    const key = `${operationName ?? ''}\n${variables === undefined ? '' : JSON.stringify(variables)}`;
    const known = results?.get(key);
    if (known !== undefined) return known;
    const result = compute();
    if (!keep(result)) return result;
    if (!results) {
      results = new Map();
      this.byDocument.set(document, results);
    }
    if (results.size >= MAX_PER_DOCUMENT) results.clear();
    results.set(key, result);
    return result;
  }
}
