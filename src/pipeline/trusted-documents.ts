import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { Kind, OperationTypeNode, parse } from 'graphql';
import type { DocumentNode, SelectionSetNode } from 'graphql';
import { operationFragments } from '../field-rules/operation-fragments';

/** One trusted document of the manifest. */
export interface TrustedDocument {
  /** The document text, as GraphQL Code Generator wrote it. */
  text: string;
  /** True when it contains a mutation. */
  hasMutation: boolean;
}

/**
 * The trusted-documents manifest of public-site mode: `{ "<sha256 hex>": "<document>" }`,
 * the persisted-documents format of GraphQL Code Generator's client preset. A request
 * without its own API key may run only these documents, referenced by hash.
 */
export class TrustedDocuments {
  private readonly byHash = new Map<string, TrustedDocument>();

  /**
   * @throws Error naming the file when it cannot be read, is not `{hash: document}`, or
   *   a document does not parse or does not match its hash: better at start than later.
   */
  static load(path: string): TrustedDocuments {
    let manifest: unknown;
    try {
      manifest = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      throw new Error(
        `TRUSTED_DOCUMENTS ${path}: expected a readable JSON file {hash: document} (${error instanceof Error ? error.message : String(error)})`,
      );
    }
    if (!manifest || typeof manifest !== 'object' || Array.isArray(manifest)) {
      throw new Error(`TRUSTED_DOCUMENTS ${path}: expected a JSON object {hash: document}`);
    }
    const documents = new TrustedDocuments();
    for (const [hash, text] of Object.entries(manifest as Record<string, unknown>)) {
      if (typeof text !== 'string')
        throw new Error(`TRUSTED_DOCUMENTS ${path}: the document of ${hash} is not a string`);
      if (createHash('sha256').update(text).digest('hex') !== hash.toLowerCase()) {
        throw new Error(`TRUSTED_DOCUMENTS ${path}: ${hash} is not the sha256 of its document`);
      }
      let parsed: DocumentNode;
      try {
        parsed = parse(text);
      } catch (error) {
        throw new Error(
          `TRUSTED_DOCUMENTS ${path}: the document of ${hash} does not parse (${error instanceof Error ? error.message : String(error)})`,
        );
      }
      const hasMutation = parsed.definitions.some(
        (d) => d.kind === Kind.OPERATION_DEFINITION && d.operation === OperationTypeNode.MUTATION,
      );
      documents.byHash.set(hash.toLowerCase(), { text, hasMutation });
    }
    return documents;
  }

  /** Number of documents. */
  get size(): number {
    return this.byHash.size;
  }

  /** The document of a hash (`<hex>` or `sha256:<hex>`), or undefined. */
  get(hash: string): TrustedDocument | undefined {
    return this.byHash.get(hash.replace(/^sha256:/i, '').toLowerCase());
  }
}

/**
 * True when a document asks only for introspection (`__schema`, `__type`,
 * `__typename`): it never reaches the upstream, so it needs no key and no manifest.
 *
 * Every operation's top-level selections, and those of the fragments it uses that are
 * not on an introspection type (`__Schema`, `__Type`, ...: those are only spread inside
 * introspection fields), must be introspection fields. Each fragment is read once, so
 * the check is linear in the document's size.
 */
export function isIntrospectionOnly(document: DocumentNode): boolean {
  const onlyMeta = (selectionSet: SelectionSetNode): boolean =>
    selectionSet.selections.every((selection) => {
      if (selection.kind === Kind.FIELD) return selection.name.value.startsWith('__');
      if (selection.kind === Kind.INLINE_FRAGMENT) return onlyMeta(selection.selectionSet);
      return true; // a spread: its fragment is checked on its own, once
    });
  return document.definitions.every(
    (definition) =>
      definition.kind !== Kind.OPERATION_DEFINITION ||
      (onlyMeta(definition.selectionSet) &&
        operationFragments(document, definition).every(
          (fragment) => fragment.typeCondition.name.value.startsWith('__') || onlyMeta(fragment.selectionSet),
        )),
  );
}
