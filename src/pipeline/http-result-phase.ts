/**
 * The result phase over HTTP: one Apollo Server plugin that hands the single result to THE
 * result phase of every transport (`RequestPipeline.finishResult`, the function the
 * streaming transports call in `onNext`), and the `stringifyResult` that writes the text the
 * `response-size` step measured, so a response is serialized once. The request pipeline
 * (pipeline.ts) hands it to Apollo.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import type { FormattedExecutionResult } from 'graphql';
import type { GatewayContext } from '../domains/gateway-context';
import { answeredLargeList } from '../graph/execution/large-lists';
import { stringifyInSlices } from './sliced-json';
import { extensionsText } from './hit-extensions';
import type { DeliveryContext, ExecutionContext, OutgoingResult, ResultState } from './result-steps';
import type { ResultText } from './response-size';

/** One HTTP operation, as the result phase's `report` step tells it (see {@link RequestPipeline.resultPhase}). */
export interface HttpResultReport {
  /** The result as it is sent. */
  readonly result: FormattedExecutionResult;
  /** The codes of its errors, each once. */
  readonly errorCodes: string[];
  /** What the report reads of the operation's context. */
  readonly context: ReportContext;
  /** The operation's name, null when anonymous or unknown. */
  readonly operationName: string | null;
  /** False when it was refused before execution (parse, validation, an `operation` step). */
  readonly executed: boolean;
  /** From the request to the result, ms. */
  readonly durationMs: number;
  /** The age of a whole response from the response cache, seconds; null when it was executed. */
  readonly responseCacheAgeSeconds: number | null;
}

/** What the operation's report reads of its context: the accounting, the hashed key and the token. */
export interface ReportContext {
  /** The operation's upstream accounting and hashed key. */
  readonly session: Pick<GatewayContext['session'], 'accounting' | 'keyId'>;
  /** The access token, when one was used. */
  readonly token?: GatewayContext['token'];
}

/**
 * The context of a response-cache hit answered before Apollo: only what its result phase
 * reads (nothing executes, so no session, loaders or upstream budget), built by
 * `createHitContext` (src/context.ts).
 */
export interface HitContext extends ExecutionContext, DeliveryContext, ReportContext {
  /** The operation's upstream accounting (all 0 but the age) and hashed key. */
  readonly session: Pick<GatewayContext['session'], 'accounting' | 'keyId'>;
  /** The length of the text the `response-size` step measured. */
  responseTextLength?: number;
}

/** What Apollo Server is given to run the result phase over HTTP. */
export interface ApolloResultPhase {
  /** One plugin running every result step, in order, in `willSendResponse` (place it after the response cache's). */
  readonly plugin: ApolloServerPlugin<GatewayContext>;
  /** Apollo's `stringifyResult`: writes the text `response-size` measured, so a response is serialized once. */
  readonly stringifyResult: (value: FormattedExecutionResult) => string;
  /**
   * The text Apollo Server writes for a whole response from the response cache, for a
   * hit answered before Apollo (see `ResponseCacheHits`): the same result steps, the same
   * report, the same text (`data` as stored, then the extensions, then a newline), as the
   * stored bytes of `{"data":…` and the text after them (one text when a step replaced the result).
   */
  readonly cachedResponse: (context: HitContext, hit: CachedAnswer) => ResultText;
}

/** A whole response from the response cache, answered before Apollo. */
export interface CachedAnswer {
  /** The UTF-8 bytes of `{"data":` and the JSON of its `data`, as stored. */
  readonly head: Buffer;
  /** Its age, whole seconds (what the plugin's `age` header says). */
  readonly ageSeconds: number;
  /** The operation's name as Apollo resolved it when it was stored. */
  readonly operationName: string | null;
  /** When the request began (`performance.now()`), for the report's duration. */
  readonly started: number;
}

/** THE result phase of every transport (`RequestPipeline.finishResult`): every result step, in order, on one result. */
export type FinishResult = <R extends OutgoingResult>(state: ResultState<R>) => R;

/** Measured texts kept for Apollo's serialization at once: more only if Apollo left some unserialized (they are dropped, oldest first). */
const MAX_KEPT = 256;

/** A result's JSON text with its fields in the order Apollo Server writes them (errors, data, extensions). */
function apolloText(result: OutgoingResult): string {
  return JSON.stringify({ errors: result.errors, data: result.data, extensions: result.extensions });
}

/**
 * A whole response from the response cache as {@link apolloText} writes it, with `data`
 * as the text the cache stored (`dataText`, from `ResponseCacheStore`) instead of
 * serialized again: the same text, since the cache stored `JSON.stringify` of the same
 * data and the result steps never change `data` in place. A result with errors is
 * serialized as usual.
 */
function cachedText(result: OutgoingResult, dataText: string): string {
  if (result.errors !== undefined || result.data === null || typeof result.data !== 'object') return apolloText(result);
  return result.extensions === undefined
    ? `{"data":${dataText}}`
    : `{"data":${dataText},"extensions":${extensionsText(result.extensions)}}`;
}

/**
 * A whole response from the response cache answered before Apollo, as {@link cachedText}
 * writes it, with the stored bytes of `{"data":…` (`head`) kept as they are: the text
 * after them is the extensions and the closing brace. A result with errors is serialized as usual.
 */
function cachedParts(result: OutgoingResult, head: Buffer): ResultText {
  if (result.errors !== undefined || result.data === null || typeof result.data !== 'object') return apolloText(result);
  return { head, tail: result.extensions === undefined ? '}' : extensionsTail(extensionsText(result.extensions)) };
}

/** The last extensions' text {@link extensionsTail} was given, and the tails made of it. */
let lastTail = { extensions: '', tail: ',"extensions":}', line: ',"extensions":}\n' };

/**
 * The text after a cached answer's stored bytes: `,"extensions":` and `extensions`, then
 * the closing brace. The same string while hits answer with the same extensions (the text
 * of a plain hit's is one string per age), so the early answer compares it by reference.
 */
function extensionsTail(extensions: string): string {
  if (extensions !== lastTail.extensions) {
    const tail = `,"extensions":${extensions}}`;
    lastTail = { extensions, tail, line: `${tail}\n` };
  }
  return lastTail.tail;
}

/** `tail` and the newline Apollo Server's serialization ends with: made once for {@link extensionsTail}'s last tail. */
function tailLine(tail: string): string {
  return tail === lastTail.tail ? lastTail.line : `${tail}\n`;
}

/**
 * A result as {@link apolloText} writes it, with `data` as `dataText` when the result's
 * `data` is still `data` (the object whose text that is), else serialized as usual.
 */
function textWithData(result: OutgoingResult, data: unknown, dataText: string): string {
  if (result.data !== data) return apolloText(result);
  const errors = JSON.stringify({ errors: result.errors }).slice(1, -1);
  const extensions = JSON.stringify({ extensions: result.extensions }).slice(1, -1);
  return `{${errors === '' ? '' : `${errors},`}"data":${dataText}${extensions === '' ? '' : `,${extensions}`}}`;
}

/** The object a measured result's text is remembered by: its first part that is an object. */
function anchorOf(result: OutgoingResult): object | null {
  const anchor = result.data ?? result.errors ?? result.extensions;
  return anchor !== null && typeof anchor === 'object' ? anchor : null;
}

/**
 * The result phase over HTTP (and `executeOperation` in tests): one Apollo plugin that
 * calls `finish` (the pipeline's result phase, every result step in order) on the single
 * result in `willSendResponse`, and the `stringifyResult` that writes the text the
 * `response-size` step measured. A whole response from the response cache answered before
 * Apollo goes through `finish` too ({@link ApolloResultPhase.cachedResponse}).
 *
 * The plugin goes after the response cache's (it reads the `age` that one sets on a hit);
 * the response cache must not store a response with list-item errors (its
 * `shouldWriteToCache` checks `itemErrors`).
 *
 * @param finish - the pipeline's result phase (`RequestPipeline.finishResult`)
 * @param report - the operation's report (metrics, log line), called by the `report` step
 */
export function httpResultPhase(finish: FinishResult, report: (report: HttpResultReport) => void): ApolloResultPhase {
  // The text of each measured result, by its anchor, until Apollo serializes it; Apollo
  // rebuilds the result object (errors, data, extensions in this order) before it
  // serializes, so the parts are compared. A Map whose entries stringifyResult takes out,
  // not a WeakMap: V8's young-generation collections keep a WeakMap's values while they
  // last, so every response's text and result lived until the next full collection (a
  // tenth of executing a dashboard was that garbage collection). At most MAX_KEPT
  // entries: one Apollo never serialized is dropped with the oldest.
  const texts = new Map<object, { readonly result: OutgoingResult; readonly text: string }>();
  const plugin: ApolloServerPlugin<GatewayContext> = {
    requestDidStart: async () => {
      const started = performance.now();
      let executed = false;
      return {
        executionDidStart: async () => {
          executed = true;
        },
        // Synchronous to the end, but for a large answer's data, serialized in slices first: the
        // response cache reads `errors` after its own await (and waits for `resultPhaseDone`).
        willSendResponse: async ({ response, contextValue, operationName, metrics }) => {
          if (response.body.kind !== 'single') return;
          const responseCacheAgeSeconds =
            metrics.responseCacheHit === true ? Number(response.http.headers.get('age') ?? 0) : null;
          const dataText = contextValue.responseCacheData;
          // Executed by a plugin (graphql-jit's answers through `responseForOperation`, for which
          // Apollo calls no execution hook): an answer with `data` that is not a cache hit.
          if (responseCacheAgeSeconds === null && 'data' in response.body.singleResult) executed = true;
          const { data } = response.body.singleResult;
          let serialize: (result: OutgoingResult) => string =
            responseCacheAgeSeconds !== null && dataText !== undefined
              ? (result) => cachedText(result, dataText)
              : apolloText;
          if (
            responseCacheAgeSeconds === null &&
            answeredLargeList(contextValue) &&
            data !== null &&
            typeof data === 'object'
          ) {
            let done = (): void => undefined;
            contextValue.resultPhaseDone = new Promise<void>((resolve) => (done = resolve));
            const text = await stringifyInSlices(data).catch(() => undefined);
            if (text !== undefined) serialize = (result) => textWithData(result, data, text);
            // After the steps below (synchronous): the text measured, the errors final.
            queueMicrotask(done);
          }
          response.body.singleResult = finish<FormattedExecutionResult>({
            transport: 'http',
            result: response.body.singleResult,
            // A refusal Apollo answers (an error of execution's start; `executeOperation` in tests)
            // carries extensions.upstream with zeros over HTTP, as documented (docs/errors.md).
            execution: contextValue,
            delivery: contextValue,
            responseCacheAgeSeconds,
            serialize,
            measured: (result, text) => {
              // Through Apollo every text is one string (cachedText, apolloText).
              if (typeof text !== 'string') return;
              contextValue.responseTextLength = text.length;
              const anchor = anchorOf(result);
              if (!anchor) return;
              if (texts.size >= MAX_KEPT) texts.delete(texts.keys().next().value as object);
              texts.set(anchor, { result, text });
            },
            report: ({ result, errorCodes }) =>
              report({
                result,
                errorCodes,
                context: contextValue,
                operationName: operationName ?? null,
                executed,
                durationMs: performance.now() - started,
                responseCacheAgeSeconds,
              }),
          });
        },
      };
    },
  };
  const stringifyResult = (value: FormattedExecutionResult): string => {
    const anchor = anchorOf(value);
    const kept = anchor ? texts.get(anchor) : undefined;
    if (anchor && kept) texts.delete(anchor);
    const same =
      kept !== undefined &&
      kept.result.data === value.data &&
      kept.result.errors === value.errors &&
      kept.result.extensions === value.extensions;
    // Apollo Server's own serialization ends with a newline.
    return `${same ? kept.text : JSON.stringify(value)}\n`;
  };
  const cachedResponse = (context: HitContext, hit: CachedAnswer): ResultText => {
    let measured: { readonly result: OutgoingResult; readonly text: ResultText } | null = null;
    const result = finish<FormattedExecutionResult>({
      transport: 'http',
      result: { data: {} },
      execution: context,
      delivery: context,
      responseCacheAgeSeconds: hit.ageSeconds,
      serialize: (value) => cachedParts(value, hit.head),
      measured: (value, text) => {
        context.responseTextLength = typeof text === 'string' ? text.length : text.head.length + text.tail.length;
        measured = { result: value, text };
      },
      report: ({ result: sent, errorCodes }) =>
        report({
          result: sent,
          errorCodes,
          context,
          operationName: hit.operationName,
          executed: false,
          durationMs: performance.now() - hit.started,
          responseCacheAgeSeconds: hit.ageSeconds,
        }),
    });
    const kept = measured as { readonly result: OutgoingResult; readonly text: ResultText } | null;
    const same =
      kept !== null &&
      kept.result.data === result.data &&
      kept.result.errors === result.errors &&
      kept.result.extensions === result.extensions;
    // Apollo Server's own serialization ends with a newline.
    if (!same)
      return `${JSON.stringify({ errors: result.errors, data: result.data, extensions: result.extensions })}\n`;
    return typeof kept.text === 'string' ? `${kept.text}\n` : { head: kept.text.head, tail: tailLine(kept.text.tail) };
  };
  return { plugin, stringifyResult, cachedResponse };
}
