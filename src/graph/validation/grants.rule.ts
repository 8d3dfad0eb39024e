/**
 * What an access token may ask for: a graphql-js validation rule over the operation that
 * runs, built per request from the token's grants and the operation's variables (the
 * pipeline's `grants` step runs it before any upstream request, on every transport).
 *
 * - Fields: `read` allows every field; `read:<Type>.<field>` only that field and
 *   everything below it, plus `id`, `__typename` and the fields leading to it; a token
 *   with no read grant but `factory:<id>` grants may read everything below its companies.
 * - Companies: with `factory:<id>` grants, only the roots that lead to a company
 *   (`factory`, `factories`, the company subscriptions and writes) are allowed, and a
 *   company id given to a subscription or a write must be granted (`factories` is filtered
 *   and `factory(id)` outside the grants is null with `FORBIDDEN`, by their resolvers).
 * - Writes: `updateFactoryOption` needs `write:option:<slot>`, and with a title in the site
 *   documents' namespace (`~sd:<name>:…`) also `write:siteDocument:<name>`; `setSiteDocument` and
 *   `deleteSiteDocument` need `write:siteDocument:<name>`; `createPaymentRequest` and
 *   `cancelPaymentRequest` need `write:payments`; their payloads may be read.
 * - Subscriptions and live queries (`@live`) need `subscribe`.
 *
 * A refusal is `FORBIDDEN` with `extensions.requiredGrant`, the grant that would allow it;
 * a value of the request is quoted in it cut to `QUOTED_VALUE_CHARS` (64) characters.
 *
 * The walk reads each fragment once per operation (and position: among the root fields or
 * below them), however often it is spread, so its work is linear in the document's size.
 */
import { isLiveQueryOperationDefinitionNode } from '@n1ru4l/graphql-live-query';
import {
  GraphQLError,
  getNamedType,
  isAbstractType,
  isInputObjectType,
  isObjectType,
  isInterfaceType,
  Kind,
  OperationTypeNode,
  valueFromAST,
} from 'graphql';
import type {
  FieldNode,
  FragmentDefinitionNode,
  GraphQLNamedType,
  GraphQLSchema,
  OperationDefinitionNode,
  SelectionSetNode,
  ValidationRule,
} from 'graphql';
import { quotedValue } from '../../domains/shared/quoted-value';
import { siteDocumentOfTitle } from '../../domains/shared/site-document-titles';
import type { Grant } from '../../vault';

/** The field a subscription watches, for `read:<Type>.<field>` grants. */
const SUBSCRIPTION_READS: Readonly<Record<string, string>> = {
  counterChanged: 'Factory.counter',
  factoryOptionChanged: 'Factory.options',
  inventoryChanged: 'Factory.inventory',
  siteDocumentChanged: 'Factory.siteDocument',
  roomChanged: 'Building.rooms',
  transactionAdded: 'BankAccount.transactions',
  myAuctionChanged: 'Query.myImportAuctions',
};

/** The company a root field is about: the argument or input field holding its id. */
const COMPANY_ARGUMENTS: Readonly<Record<string, readonly [string, string?]>> = {
  'Subscription.counterChanged': ['factoryId'],
  'Subscription.factoryOptionChanged': ['factoryId'],
  'Subscription.inventoryChanged': ['factoryId'],
  'Subscription.siteDocumentChanged': ['factoryId'],
  'Mutation.updateFactoryOption': ['input', 'factoryId'],
  'Mutation.setSiteDocument': ['input', 'factoryId'],
  'Mutation.deleteSiteDocument': ['input', 'factoryId'],
  'Mutation.createPaymentRequest': ['input', 'factoryId'],
};

/** The grants of a token, sorted for the checks. */
interface GrantSet {
  readonly readAll: boolean;
  readonly fields: ReadonlySet<string>;
  readonly factories: ReadonlySet<string>;
  readonly siteDocuments: ReadonlySet<string>;
  readonly optionSlots: ReadonlySet<number>;
  readonly payments: boolean;
  readonly subscribe: boolean;
}

function grantSet(grants: readonly Grant[]): GrantSet {
  const set = {
    readAll: false,
    fields: new Set<string>(),
    factories: new Set<string>(),
    siteDocuments: new Set<string>(),
    optionSlots: new Set<number>(),
    payments: false,
    subscribe: false,
  };
  for (const grant of grants) {
    if (grant.kind === 'read') set.readAll = true;
    else if (grant.kind === 'read-field') set.fields.add(`${grant.type}.${grant.field}`);
    else if (grant.kind === 'factory') set.factories.add(grant.factoryId);
    else if (grant.kind === 'write-site-document') set.siteDocuments.add(grant.name);
    else if (grant.kind === 'write-option') set.optionSlots.add(grant.slot);
    else if (grant.kind === 'write-payments') set.payments = true;
    else if (grant.kind === 'subscribe') set.subscribe = true;
  }
  return set;
}

/** The names of the types each type leads to (itself included), per schema. */
const reachCache = new WeakMap<GraphQLSchema, Map<string, ReadonlySet<string>>>();

function reachable(schema: GraphQLSchema, from: GraphQLNamedType): ReadonlySet<string> {
  let cache = reachCache.get(schema);
  if (!cache) reachCache.set(schema, (cache = new Map()));
  const known = cache.get(from.name);
  if (known) return known;
  const seen = new Set<string>();
  const queue: GraphQLNamedType[] = [from];
  while (queue.length > 0) {
    const type = queue.pop() as GraphQLNamedType;
    if (seen.has(type.name)) continue;
    seen.add(type.name);
    if (isAbstractType(type)) queue.push(...schema.getPossibleTypes(type));
    if (isObjectType(type) || isInterfaceType(type))
      for (const field of Object.values(type.getFields())) queue.push(getNamedType(field.type));
  }
  cache.set(from.name, seen);
  return seen;
}

/** A refusal naming the grant that would allow it. */
function forbidden(message: string, requiredGrant: string, node: FieldNode): GraphQLError {
  return new GraphQLError(message, {
    nodes: [node],
    extensions: { code: 'FORBIDDEN', requiredGrant, http: { status: 403 } },
  });
}

/** What the rule needs beyond the document. */
export interface GrantsRuleOptions {
  /** The token's grants. */
  readonly grants: readonly Grant[];
  /** The operation that runs (the others in the document are not checked). */
  readonly operation: OperationDefinitionNode;
  /** Its variables, coerced or not (ids and slots are read from them). */
  readonly variables: Readonly<Record<string, unknown>> | undefined;
}

/**
 * The validation rule for one token's operation: reports a `FORBIDDEN` error (with
 * `extensions.requiredGrant`) for the first thing the grants do not allow, and stops.
 */
export function grantsRule(options: GrantsRuleOptions): ValidationRule {
  const grants = grantSet(options.grants);
  const scopedToCompanies = grants.factories.size > 0;
  const readGrants = grants.readAll || grants.fields.size > 0;
  const companiesOnly = scopedToCompanies && !readGrants;
  return (context) => {
    const schema = context.getSchema();
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of context.getDocument().definitions)
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    const grantedTypes = new Set([...grants.fields].map((field) => field.split('.')[0] as string));
    let failed = false;
    const fail = (error: GraphQLError): void => {
      if (!failed) context.reportError(error);
      failed = true;
    };

    /** Reads an argument (or a field of an input argument) of a field, with variables. */
    const argumentValue = (node: FieldNode, parent: GraphQLNamedType, path: readonly [string, string?]): unknown => {
      if (!isObjectType(parent)) return undefined;
      const field = parent.getFields()[node.name.value];
      const definition = field?.args.find((arg) => arg.name === path[0]);
      const given = node.arguments?.find((arg) => arg.name.value === path[0]);
      if (!definition || !given) return undefined;
      const value = valueFromAST(
        given.value,
        definition.type,
        options.variables as Record<string, unknown> | undefined,
      ) as unknown;
      if (path[1] === undefined) return value;
      return isInputObjectType(getNamedType(definition.type)) && value && typeof value === 'object'
        ? (value as Record<string, unknown>)[path[1]]
        : undefined;
    };

    /** True when `Type.field` (or, on an interface or union, a possible type's) is granted by `read:<Type>.<field>`. */
    const fieldGranted = (parent: GraphQLNamedType, name: string): boolean => {
      if (grants.fields.has(`${parent.name}.${name}`)) return true;
      return (
        isAbstractType(parent) &&
        schema.getPossibleTypes(parent).some((type) => grants.fields.has(`${type.name}.${name}`))
      );
    };

    /** Checks a root field: company scope, writes, subscriptions. Returns whether its selection is then wholly allowed. */
    const checkRoot = (node: FieldNode, parent: GraphQLNamedType, kind: OperationTypeNode): boolean | null => {
      const name = node.name.value;
      const key = `${parent.name}.${name}`;
      if (name === 'viewer' || name.startsWith('__')) return true;
      // Query.factory(id) outside the grants is null with FORBIDDEN (its resolver); Query.factories is filtered.
      if (scopedToCompanies && name !== 'factories' && key !== 'Query.factory') {
        const path = COMPANY_ARGUMENTS[key];
        if (!path) {
          fail(
            forbidden(
              `This token is limited to its companies (factory:<id> grants): ${key} is outside them.`,
              'read',
              node,
            ),
          );
          return null;
        }
        const id = argumentValue(node, parent, path);
        if (typeof id !== 'string' || !grants.factories.has(id)) {
          fail(
            forbidden(
              `This token may not reach company ${quotedValue(id)}: it needs the grant factory:${quotedValue(id)}.`,
              `factory:${quotedValue(id)}`,
              node,
            ),
          );
          return null;
        }
      }
      if (kind === OperationTypeNode.MUTATION) {
        if (name === 'updateFactoryOption') {
          const slot = argumentValue(node, parent, ['input', 'slot']);
          if (typeof slot !== 'number' || !grants.optionSlots.has(slot)) {
            fail(
              forbidden(
                `Writing option slot ${quotedValue(slot)} needs the grant write:option:${quotedValue(slot)}.`,
                `write:option:${quotedValue(slot)}`,
                node,
              ),
            );
            return null;
          }
          // A title in the site documents' namespace builds (part of) a site document by hand.
          const title = argumentValue(node, parent, ['input', 'title']);
          const document = typeof title === 'string' ? siteDocumentOfTitle(title) : null;
          if (document !== null && !grants.siteDocuments.has(document)) {
            fail(
              forbidden(
                `The title "${quotedValue(title)}" belongs to the site document "${quotedValue(document)}": writing it needs the grant write:siteDocument:${quotedValue(document)}.`,
                `write:siteDocument:${quotedValue(document)}`,
                node,
              ),
            );
            return null;
          }
        } else if (name === 'createPaymentRequest' || name === 'cancelPaymentRequest') {
          if (!grants.payments) {
            fail(forbidden(`${name} needs the grant write:payments.`, 'write:payments', node));
            return null;
          }
        } else {
          const document = argumentValue(node, parent, ['input', 'name']);
          if (typeof document !== 'string' || !grants.siteDocuments.has(document)) {
            fail(
              forbidden(
                `Writing site document "${quotedValue(document)}" needs the grant write:siteDocument:${quotedValue(document)}.`,
                `write:siteDocument:${quotedValue(document)}`,
                node,
              ),
            );
            return null;
          }
        }
        // The write's payload may be read.
        return true;
      }
      if (kind === OperationTypeNode.SUBSCRIPTION) {
        const watched = SUBSCRIPTION_READS[name];
        if (grants.readAll || companiesOnly) return true;
        if (watched && grants.fields.has(watched)) return true;
        fail(
          forbidden(
            `The subscription ${name} needs the grant ${watched ? `read:${watched}` : 'read'}.`,
            watched ? `read:${watched}` : 'read',
            node,
          ),
        );
        return null;
      }
      // A token with factory:<id> grants and no read grant reads everything below its companies.
      return companiesOnly && (name === 'factory' || name === 'factories');
    };

    // Each fragment is walked once per operation and position (among the root fields or
    // below them): what it allows depends only on its own selections, its type condition
    // and that position, so walking it again at another spread finds nothing new. Marked
    // before its walk, which also ends a cycle (graphql-js validation reports it).
    const walked = new Set<string>();
    const walk = (
      selectionSet: SelectionSetNode,
      parent: GraphQLNamedType,
      inside: boolean,
      root: OperationTypeNode | null,
    ): void => {
      // Below an allowed field everything is allowed: nothing to walk.
      if (inside && root === null) return;
      for (const selection of selectionSet.selections) {
        if (failed) return;
        if (selection.kind === Kind.INLINE_FRAGMENT) {
          const type = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent;
          if (type) walk(selection.selectionSet, type, inside, root);
          continue;
        }
        if (selection.kind === Kind.FRAGMENT_SPREAD) {
          const fragment = fragments.get(selection.name.value);
          const key = `${selection.name.value}\u0000${root ?? ''}`;
          if (!fragment || walked.has(key)) continue;
          walked.add(key);
          const type = schema.getType(fragment.typeCondition.name.value);
          if (type) walk(fragment.selectionSet, type, inside, root);
          continue;
        }
        const name = selection.name.value;
        if (name === '__typename') continue;
        const field = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
        if (!field) continue; // graphql-js validation reports it
        const type = getNamedType(field.type);
        let childInside = inside;
        if (root !== null) {
          const decided = checkRoot(selection, parent, root);
          if (decided === null) return;
          childInside = decided;
        }
        if (!childInside && root !== OperationTypeNode.MUTATION) {
          const granted = grants.readAll || fieldGranted(parent, name);
          const onTheWay = name === 'id' || [...grantedTypes].some((wanted) => reachable(schema, type).has(wanted));
          if (!granted && !onTheWay) {
            fail(
              forbidden(
                `This token may not read ${parent.name}.${name}: it needs the grant read:${parent.name}.${name} (or read).`,
                `read:${parent.name}.${name}`,
                selection,
              ),
            );
            return;
          }
          // Everything below a granted field is allowed.
          childInside = granted;
        }
        if (selection.selectionSet) walk(selection.selectionSet, type, childInside, null);
      }
    };

    return {
      OperationDefinition(node) {
        if (node !== options.operation) return false;
        const kind = node.operation;
        if (
          (kind === OperationTypeNode.SUBSCRIPTION ||
            isLiveQueryOperationDefinitionNode(node, options.variables as Record<string, unknown> | undefined)) &&
          !grants.subscribe
        ) {
          const [first] = node.selectionSet.selections;
          fail(
            new GraphQLError('Subscriptions and live queries (@live) need the grant subscribe.', {
              nodes: first ? [first] : [node],
              extensions: { code: 'FORBIDDEN', requiredGrant: 'subscribe', http: { status: 403 } },
            }),
          );
          return false;
        }
        const rootType = schema.getRootType(kind);
        if (rootType) walk(node.selectionSet, rootType, false, kind);
        return false;
      },
      FragmentDefinition: () => false,
    };
  };
}
