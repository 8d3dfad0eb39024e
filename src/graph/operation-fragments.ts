import { Kind, visit } from 'graphql';
import type { DocumentNode, FragmentDefinitionNode, OperationDefinitionNode, SelectionSetNode } from 'graphql';

const executed = new WeakMap<OperationDefinitionNode, DocumentNode>();

/**
 * The part of a document one operation executes: the operation and every fragment it
 * uses, directly or through other fragments, each once, in document order. As graphql-js's
 * `separateOperations` does, each definition's spreads are read once and the fragments
 * are then followed by name, so a document whose fragments spread each other many
 * times costs no more than its size; unlike it, the closure is iterative (no recursion,
 * however long a chain of fragments).
 *
 * When to use: before walking an operation with its fragments (cost, bounds), so every
 * walk is linear in the document's size. Results are remembered per operation node
 * (Apollo's document store reuses parsed documents).
 */
export function executedDocument(document: DocumentNode, operation: OperationDefinitionNode): DocumentNode {
  const known = executed.get(operation);
  if (known) return known;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION && !fragments.has(definition.name.value)) fragments.set(definition.name.value, definition);
  }
  const used = new Set<string>();
  const pending = spreadNames(operation.selectionSet);
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    const fragment = fragments.get(name);
    if (!fragment || used.has(name)) continue;
    used.add(name);
    pending.push(...spreadNames(fragment.selectionSet));
  }
  const part: DocumentNode = {
    kind: Kind.DOCUMENT,
    definitions: document.definitions.filter((d) => d === operation || (d.kind === Kind.FRAGMENT_DEFINITION && used.has(d.name.value) && fragments.get(d.name.value) === d)),
  };
  executed.set(operation, part);
  return part;
}

/** The fragments one operation uses (directly or through other fragments), each once. */
export function operationFragments(document: DocumentNode, operation: OperationDefinitionNode): FragmentDefinitionNode[] {
  return executedDocument(document, operation).definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION);
}

/** The distinct fragment names spread anywhere in a selection set (graphql-js's `visit` is iterative). */
export function spreadNames(selectionSet: SelectionSetNode): string[] {
  const names = new Set<string>();
  visit(selectionSet, {
    FragmentSpread(spread) {
      names.add(spread.name.value);
    },
  });
  return [...names];
}
