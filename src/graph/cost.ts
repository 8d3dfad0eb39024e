/**
 * The worst-case upstream cost of an operation, computed before execution.
 *
 * Every field occurrence counts (aliases and repeated fragments count again: no credit
 * for the deduplication that would happen at run time, which is what stops alias
 * amplification). A field that needs an upstream request costs its requests; a list of
 * companies, buildings, bank accounts or rooms multiplies what is below it by the
 * assumed list size. graphql-query-complexity walks the document; this module only
 * says what each field costs.
 */
import { Kind } from 'graphql';
import type { DocumentNode, FragmentDefinitionNode, OperationDefinitionNode, SelectionSetNode } from 'graphql';
import { getComplexity } from 'graphql-query-complexity';
import type { ComplexityEstimator } from 'graphql-query-complexity';
import type { GraphQLSchema } from 'graphql';
import type { CostAssumptions } from '../config';

/** What one field costs: its own upstream requests, and the list size its children repeat over. */
interface FieldCost {
  requests: number;
  list?: keyof CostAssumptions;
}

/** Upstream cost of every field that causes upstream requests, by `Type.field`. */
export const FIELD_COSTS: Readonly<Record<string, FieldCost>> = {
  'Query.factories': { requests: 1, list: 'factories' },
  'Query.factory': { requests: 1 },
  'Query.buildings': { requests: 1, list: 'buildings' },
  'Query.building': { requests: 1 },
  'Query.myImportAuctions': { requests: 1 },
  'Query.myExportAuctions': { requests: 1 },
  'Query.importAuctions': { requests: 1 },
  'Query.exportAuctions': { requests: 1 },
  'Mutation.updateFactoryOption': { requests: 1 },
  'UpdateFactoryOptionPayload.option': { requests: 1 },
  'Factory.inventory': { requests: 1 },
  'Factory.machineInventory': { requests: 1 },
  'Factory.counter': { requests: 1 },
  'Factory.productions': { requests: 1 },
  'Factory.bankAccounts': { requests: 1, list: 'bankAccounts' },
  'Factory.vehicles': { requests: 1 },
  'Factory.sellOffers': { requests: 1 },
  'Factory.buyOffers': { requests: 1 },
  'Factory.buyLog': { requests: 1 },
  'Factory.option': { requests: 1 },
  'Factory.options': { requests: 10 },
  'BankAccount.transactions': { requests: 1 },
  'FactoryBankAccount.transactions': { requests: 1 },
  'BuildingBankAccount.transactions': { requests: 1 },
  'Building.details': { requests: 1 },
  'Building.rooms': { requests: 1, list: 'rooms' },
  'Building.tenants': { requests: 1, list: 'rooms' },
  'Building.bankAccounts': { requests: 1, list: 'bankAccounts' },
  'Room.building': { requests: 1 },
  'Room.tenant': { requests: 1 },
  'Tenant.room': { requests: 1 },
};

/** The estimator for graphql-query-complexity: own requests + list size × children. */
export function upstreamCostEstimator(assumptions: CostAssumptions): ComplexityEstimator {
  return ({ type, field, childComplexity }) => {
    const cost = FIELD_COSTS[`${type.name}.${field.name}`];
    if (!cost) return childComplexity;
    return cost.requests + (cost.list ? assumptions[cost.list] : 1) * childComplexity;
  };
}

/**
 * The worst-case number of upstream requests of one operation.
 *
 * @throws GraphQLError from graphql-query-complexity when the document has more than
 *   10,000 nodes (treated as too expensive by the caller).
 */
export function estimateCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
  variables: Record<string, unknown> | undefined,
  assumptions: CostAssumptions,
): number {
  return getComplexity({ schema, query: document, operationName, variables: variables ?? {}, estimators: [upstreamCostEstimator(assumptions)] });
}

/** Depth of an operation: the longest chain of nested fields, fragments expanded, introspection left out. */
export function operationDepth(document: DocumentNode, operation: OperationDefinitionNode): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const depthOf = (selectionSet: SelectionSetNode | undefined, seen: ReadonlySet<string>): number => {
    let deepest = 0;
    for (const selection of selectionSet?.selections ?? []) {
      if (selection.kind === Kind.FIELD) {
        // Introspection (__schema, __type) never reaches the upstream; GraphiQL's and
        // codegen's introspection queries are deep by nature.
        if (selection.name.value.startsWith('__')) continue;
        deepest = Math.max(deepest, 1 + depthOf(selection.selectionSet, seen));
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        deepest = Math.max(deepest, depthOf(selection.selectionSet, seen));
      } else {
        const name = selection.name.value;
        const fragment = fragments.get(name);
        if (fragment && !seen.has(name)) deepest = Math.max(deepest, depthOf(fragment.selectionSet, new Set([...seen, name])));
      }
    }
    return deepest;
  };
  return depthOf(operation.selectionSet, new Set());
}
