/**
 * What a live operation is, read from the operation itself: whether it is `@live`, its
 * throttle, the patch format its client asked for, and what makes two of them identical
 * (see live-queries.ts, which runs them).
 */
import {
  getLiveDirectiveArgumentValues,
  getLiveDirectiveNode,
  isLiveQueryOperationDefinitionNode,
} from '@n1ru4l/graphql-live-query';
import { getOperationAST, print } from 'graphql';
import type { DocumentNode, ExecutionArgs, ExecutionResult } from 'graphql';
import stableStringify from 'safe-stable-stringify';
import type { SubscriptionContext } from './subscription-service';

/**
 * The patch format a client asked for in its subscribe message (`extensions.livePatch`),
 * or null for whole results (the default). `jsondiffpatch`: the first result is whole
 * (`data`, `revision: 1`), each later one a `patch` of the previous `data` with the next
 * `revision`, as `@n1ru4l/graphql-live-query-patch-jsondiffpatch`'s
 * `applyLiveQueryJSONDiffPatch` applies them on the client.
 */
export type LivePatchFormat = 'jsondiffpatch' | null;

/** The patch format of a subscribe message's `extensions` (see {@link LivePatchFormat}). */
export function livePatchFormat(extensions: unknown): LivePatchFormat {
  const asked =
    extensions && typeof extensions === 'object' ? (extensions as { livePatch?: unknown }).livePatch : undefined;
  return asked === 'jsondiffpatch' ? 'jsondiffpatch' : null;
}

/** True when `args` runs a query marked `@live` (and not `@live(if: false)`). */
export function isLiveOperation(args: Pick<ExecutionArgs, 'document' | 'operationName' | 'variableValues'>): boolean {
  const operation = getOperationAST(args.document, args.operationName);
  return (
    operation !== undefined &&
    operation !== null &&
    isLiveQueryOperationDefinitionNode(operation, args.variableValues as Record<string, unknown> | undefined)
  );
}

/**
 * A live query's throttle, ms: `LIVE_QUERY_THROTTLE_MS`, or the longer one the client
 * asked for with `@live(throttle: N)` (never a shorter one).
 */
export function liveThrottleMs(
  args: Pick<ExecutionArgs, 'document' | 'operationName' | 'variableValues'>,
  floorMs: number,
): number {
  const operation = getOperationAST(args.document, args.operationName);
  const directive = operation ? getLiveDirectiveNode(operation) : null;
  const asked = directive
    ? getLiveDirectiveArgumentValues(directive, args.variableValues as Record<string, unknown> | undefined)
        .throttleValue
    : null;
  return Math.max(floorMs, typeof asked === 'number' && Number.isFinite(asked) ? asked : 0);
}

/** Each document's text, printed once (the pipeline hands the same document to every subscriber of a trusted document). */
const documentTexts = new WeakMap<DocumentNode, string>();

/**
 * What makes two live operations identical: the key, whether it runs as the public site's
 * (trusted document with the server's key) or as which access token, the document, the operation name and the
 * variables (key order aside). Null for one never shared: a client's own API secret could
 * change what it may read.
 */
export function shareKeyOf(args: ExecutionArgs, context: SubscriptionContext, keyId: string): string | null {
  if (context.apiSecret !== null && context.keySource === 'caller') return null;
  let text = documentTexts.get(args.document);
  if (text === undefined) {
    text = print(args.document);
    documentTexts.set(args.document, text);
  }
  const variables = stableStringify(args.variableValues ?? {}) ?? '{}';
  // An access token's own: its grants and characters shape the answer.
  const runsAs = context.token ? `token:${context.token.id}` : context.keySource === 'site' ? 'site' : 'key';
  return [keyId, runsAs, args.operationName ?? '', variables, text].join('\u0000');
}

/** True for a result that is a stream (a subscription's events, a live query's results). */
export function isAsyncIterator<T>(value: unknown): value is AsyncIterableIterator<T> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

/** `source` with each result marked `isLive` again (what the patch generator reads). */
export function markedLive(
  source: AsyncIterableIterator<ExecutionResult>,
): AsyncIterableIterator<ExecutionResult & { isLive: true }> {
  const iterator: AsyncIterableIterator<ExecutionResult & { isLive: true }> = {
    async next() {
      const step = await source.next();
      return step.done ? step : { done: false, value: { ...step.value, isLive: true } };
    },
    async return() {
      await source.return?.();
      return { done: true, value: undefined };
    },
    // graphql-sse ends an operation (client gone, `complete`) only when it is an async
    // generator: `next`, `return` and `throw`. Without `throw` it never calls `return`.
    async throw(error: unknown) {
      await source.return?.();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
