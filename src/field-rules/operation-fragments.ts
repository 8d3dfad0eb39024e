import { Kind, visit } from 'graphql';
import type {
  DocumentNode,
  FragmentDefinitionNode,
  GraphQLNamedType,
  GraphQLSchema,
  OperationDefinitionNode,
  SelectionSetNode,
} from 'graphql';

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
    if (definition.kind === Kind.FRAGMENT_DEFINITION && !fragments.has(definition.name.value))
      fragments.set(definition.name.value, definition);
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
    definitions: document.definitions.filter(
      (d) =>
        d === operation ||
        (d.kind === Kind.FRAGMENT_DEFINITION && used.has(d.name.value) && fragments.get(d.name.value) === d),
    ),
  };
  executed.set(operation, part);
  return part;
}

/** The fragments one operation uses (directly or through other fragments), each once. */
export function operationFragments(
  document: DocumentNode,
  operation: OperationDefinitionNode,
): FragmentDefinitionNode[] {
  return executedDocument(document, operation).definitions.filter(
    (d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION,
  );
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

/**
 * A measure of each fragment by name (a cost, a count), computed once per fragment and
 * reused at every spread of it, so a walk over fragments that spread each other many
 * times stays linear. A name with no fragment, a fragment whose type condition is not in
 * the schema, or one asked for again while its own measure runs (a cycle, which
 * graphql-js validation reports) measures 0.
 *
 * @param measure - the measure of one fragment on its type condition (may ask for others)
 */
export function fragmentMeasure(
  schema: GraphQLSchema,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  measure: (fragment: FragmentDefinitionNode, type: GraphQLNamedType) => number,
): (name: string) => number {
  const known = new Map<string, number>();
  const active = new Set<string>();
  return (name) => {
    const cached = known.get(name);
    if (cached !== undefined) return cached;
    const fragment = fragments.get(name);
    const type = fragment ? schema.getType(fragment.typeCondition.name.value) : undefined;
    if (!fragment || !type || active.has(name)) return 0;
    active.add(name);
    const value = measure(fragment, type);
    active.delete(name);
    known.set(name, value);
    return value;
  };
}

/**
 * What a document-level validation rule's `Document` visitor returns once it has
 * refused the document: graphql-js's visitors delete a node whose visitor returns
 * `null`, and `validate` runs every rule in one parallel walk that then visits nothing
 * more, so the other rules (graphql-js's own included) never walk a document already
 * refused. A 33 KB document of 369 `__schema` aliases is refused after its parse and
 * one linear measure, not after graphql-js's rules have walked its 3,700 fields.
 * (A rule that only returns `false` skips the document for itself alone.)
 */
export const STOP_VALIDATION = null;
