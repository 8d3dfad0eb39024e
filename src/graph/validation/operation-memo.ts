import { hash } from 'node:crypto';
import type { OperationDefinitionNode } from 'graphql';
import { LRUCache } from 'lru-cache';
import { variablesDigest } from './variables-digest';

/** Bytes one remembered result is counted as: its hashed key, a small result and the LRU's bookkeeping. */
const ENTRY_BYTES = 256;

/** Default memory bound of one memo and those {@link OperationMemo.scoped} from it: 2 MiB, about 8,000 results. */
export const OPERATION_MEMO_MAX_BYTES = 2 * 1024 * 1024;

/** What identifies one request's checks: the document's hash, the operation and the variables it declares. */
export interface MemoRequest {
  /** sha256 of the query text (Apollo's `requestContext.queryHash`). */
  queryHash: string;
  /** The operation that runs. */
  operation: OperationDefinitionNode;
  /** The request's variables; only those the operation declares count. */
  variables: Readonly<Record<string, unknown>> | undefined;
}

/**
 * The variables an operation declares, taken from the request's variables: the others
 * are ignored without being looked at, as graphql-js and Apollo ignore them.
 */
export function declaredVariables(
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>> | undefined,
): Record<string, unknown> {
  const declared: Record<string, unknown> = {};
  if (!variables) return declared;
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    if (Object.prototype.hasOwnProperty.call(variables, name)) declared[name] = variables[name];
  }
  return declared;
}

/**
 * Remembers what a pure function of (document, operation, declared variables) returned,
 * so that checks running before every execution (cost, bounds) walk a document only once
 * per distinct request, including response-cache hits.
 *
 * Memory is bounded in bytes (an `lru-cache` with `maxSize`), and keys are sha256 hashes
 * of the query hash, the operation name and the digest of the declared variables' JSON
 * (`variablesDigest`, once per variables object): never the raw text, so a request with
 * large variables costs one fixed-size entry and one serialization for all its memos, and
 * variables the operation does not declare are never serialized. Several checks share one
 * bound ({@link scoped}): a stream of distinct requests fills one bound, not one per check
 * (three bounds of 2 MiB each held 4 MB of entries that V8's heap doubled in resident memory).
 *
 * When to use: only for results that depend on nothing else (the schema of a server
 * never changes while it runs).
 */
export class OperationMemo<T> {
  private readonly results: LRUCache<string, { value: unknown }>;

  /**
   * @param maxBytes - memory bound of the remembered results, bytes; or the results of the memo this one is scoped from
   * @param scope - what sets this memo's keys apart from those of the memos it shares its results with
   */
  constructor(
    maxBytes: number | LRUCache<string, { value: unknown }> = OPERATION_MEMO_MAX_BYTES,
    private readonly scope = '',
  ) {
    this.results =
      typeof maxBytes === 'number'
        ? new LRUCache<string, { value: unknown }>({ maxSize: maxBytes, sizeCalculation: () => ENTRY_BYTES })
        : maxBytes;
  }

  /**
   * A memo of another check in this memo's bound: the same remembered results (one LRU,
   * one bound in bytes), its keys apart by `scope`.
   *
   * @param scope - a name no other memo of the same bound has
   */
  scoped<U>(scope: string): OperationMemo<U> {
    return new OperationMemo<U>(this.results, scope);
  }

  /** Results remembered now, of every memo of the same bound. */
  get size(): number {
    return this.results.size;
  }

  /** The remembered result for this request, or `compute()` (remembered when `keep` says so). */
  get(request: MemoRequest, compute: () => T, keep: (result: T) => boolean = () => true): T {
    const key = memoKey(request, this.scope);
    const known = key === null ? undefined : this.results.get(key);
    // Its scope's key: the value is this memo's T.
    if (known) return known.value as T;
    const value = compute();
    if (key !== null && keep(value)) this.results.set(key, { value });
    return value;
  }
}

/** True when every variable in `variables` is one the operation declares (the pipeline's variables after `operation-shape`). */
function onlyDeclared(operation: OperationDefinitionNode, variables: Readonly<Record<string, unknown>>): boolean {
  const definitions = operation.variableDefinitions ?? [];
  for (const name of Object.keys(variables))
    if (!definitions.some((definition) => definition.variable.name.value === name)) return false;
  return true;
}

/** The last identity hashed for each operation node, and its hash (see {@link memoKey}). */
const lastKeys = new WeakMap<OperationDefinitionNode, { readonly identity: string; readonly key: string }>();

/**
 * The memo's scope and the sha256 of the request's identity, or null when its variables cannot be serialized (then
 * nothing is remembered). The variables enter as their digest ({@link variablesDigest}):
 * the same variables object is serialized and hashed once for all the memos of a request.
 * The identity last hashed for an operation node (a document's requests share it) is
 * remembered with its hash: a request of the same document, operation and variables
 * gets the same key without hashing again; the memos of one bound (their scopes) share that hash.
 */
function memoKey(request: MemoRequest, scope: string): string | null {
  const { operation, variables } = request;
  const digest = variablesDigest(
    variables === undefined || onlyDeclared(operation, variables) ? variables : declaredVariables(operation, variables),
  );
  if (digest === null) return null;
  const identity = `${request.queryHash}\0${operation.name?.value ?? ''}\0${operation.loc ? String(operation.loc.start) : ''}\0${digest}`;
  const last = lastKeys.get(operation);
  if (last?.identity === identity) return `${scope}\0${last.key}`;
  // One-shot hashing: no Hash object per request.
  const key = hash('sha256', identity, 'base64url');
  lastKeys.set(operation, { identity, key });
  return `${scope}\0${key}`;
}
