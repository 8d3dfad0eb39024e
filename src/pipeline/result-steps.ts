/**
 * The steps every result goes through before it is sent, in the order they run: THE list
 * of the result phase, as {@link STEPS} (steps.ts) is the list of the request checks.
 * Every transport runs them through one function of the request pipeline (pipeline.ts),
 * `RequestPipeline.finishResult`, in this order: HTTP (GET and POST) from one Apollo plugin
 * (`RequestPipeline.resultPhase`, http-result-phase.ts) and for a response cache hit
 * answered before Apollo; graphql-ws and graphql-sse on each result, subscription event and
 * live query result (in `onNext`); and a refusal before execution on every transport
 * (`RequestPipeline.refuse`: the `delivery` phase). Nothing else touches a result on its
 * way out.
 *
 * The steps come in two phases, in this order:
 *
 * - `execution`: what the execution that produced the result left in its context: the
 *   list-item errors, the upstream accounting and the warnings. A live query runs this phase at the end
 *   of each of its runs (each run has a context of its own), the other transports with the
 *   rest;
 * - `delivery`: the result as the client receives it: errors formatted and masked, the
 *   caller's credentials redacted, the size limit, and the operation's report (metrics,
 *   log line, span).
 *
 * A new step is one entry here, in its place.
 */
import { GraphQLError } from 'graphql';
import type { GraphQLFormattedError } from 'graphql';
import type { GatewayContext } from '../domains/gateway-context';
import { formatError } from '../errors/format-error';
import { MIN_REDACTABLE_LENGTH, redactorFor } from '../upstream/redact';
import type { Redactor } from '../upstream/redact';
import { tooLargeError, bytesOver } from './response-size';
import type { ResultText } from './response-size';
import { emptyBut, hitExtensions } from './hit-extensions';
import type { Transport } from './step-types';

/** An error of a result: raw (as graphql-js produced it) until `format-errors`, formatted after. */
type ResultError = GraphQLError | GraphQLFormattedError;

/**
 * A result on its way to the client: a query's or mutation's result, a subscription
 * event, a live query's result (or its patch, with `patch` and `revision`).
 */
export interface OutgoingResult {
  /** The data (absent in a live query's patch). */
  readonly data?: unknown;
  /** Its errors, raw or formatted. */
  readonly errors?: ReadonlyArray<ResultError>;
  /** Its extensions. */
  readonly extensions?: Readonly<Record<string, unknown>>;
}

/**
 * What the `execution` steps read of the execution's context (a whole operation's context
 * is one; so is the smaller one of a response-cache hit answered before Apollo).
 */
export interface ExecutionContext {
  /** The list-item errors the execution reported. */
  readonly itemErrors: Pick<GatewayContext['itemErrors'], 'size' | 'formatted'>;
  /** Its upstream accounting. */
  readonly session: Pick<GatewayContext['session'], 'accounting'>;
  /** Its warnings. */
  readonly warnings?: GatewayContext['warnings'];
}

/** What the `delivery` steps read of the operation's context. */
export type DeliveryContext = Pick<GatewayContext, 'apiKey' | 'apiSecret'>;

/** The result after the phase, as the operation's report sees it. */
export interface ResultReport<R extends OutgoingResult> {
  /** The result as it is sent. */
  readonly result: R;
  /** The codes of its errors, each once (`INTERNAL_SERVER_ERROR` for an error without one). */
  readonly errorCodes: string[];
}

/** One run of the result phase (or of one of its phases) on one result. */
export interface ResultState<R extends OutgoingResult> {
  /** The transport that sends it. */
  readonly transport: Transport;
  /** The result; steps replace it. */
  result: R;
  /** The context of the execution that produced it; null when nothing executed (a refusal). */
  readonly execution: ExecutionContext | null;
  /** The operation's context (its credentials); null when it has none. */
  readonly delivery: DeliveryContext | null;
  /** HTTP only: the age of a whole response served from the response cache, seconds; null when it was executed. */
  readonly responseCacheAgeSeconds?: number | null;
  /** The JSON text of the result (HTTP writes its fields in Apollo's order; a response-cache hit its stored bytes first); default `JSON.stringify`. */
  readonly serialize?: (result: R) => ResultText;
  /** Told the text `response-size` measured when the result is sent as it is (HTTP writes that text). */
  readonly measured?: (result: R, text: ResultText) => void;
  /** The operation's report: metrics, the `graphql operation` line, the span (the transport's own). */
  readonly report?: (report: ResultReport<R>) => void;
}

/** What the result steps share, built once per gateway. */
export interface ResultEnvironment {
  /** `MAX_RESPONSE_BYTES`. */
  readonly maxResponseBytes: number;
}

/** The phases of the result steps, in the order they run. */
export const RESULT_PHASES = ['execution', 'delivery'] as const;

/** One of {@link RESULT_PHASES}. */
export type ResultPhase = (typeof RESULT_PHASES)[number];

/** One result step. */
interface ResultStep<N extends string> {
  /** The step's name (tests, docs). */
  readonly name: N;
  /** Its phase. */
  readonly phase: ResultPhase;
  /** Applies the step to `state.result` (replacing it when it changes). */
  run<R extends OutgoingResult>(state: ResultState<R>, env: ResultEnvironment): void;
}

/** The codes of `errors`, each once (`INTERNAL_SERVER_ERROR` for an error without one). */
export function errorCodesOf(
  errors: ReadonlyArray<{ readonly extensions?: { readonly code?: unknown } }> | undefined,
): string[] {
  const codeOf = (error: { readonly extensions?: { readonly code?: unknown } }): string =>
    String(error.extensions?.code ?? 'INTERNAL_SERVER_ERROR');
  // Most results have no error or one (a refusal): no set for those.
  if (!errors || errors.length === 0) return [];
  const [only] = errors;
  if (errors.length === 1 && only) return [codeOf(only)];
  return [...new Set(errors.map(codeOf))];
}

/**
 * An error as a client receives it, as Apollo Server formats one over HTTP: `code` set
 * (`INTERNAL_SERVER_ERROR` when it has none), no `http` extension, then the gateway's
 * `formatError` (which masks unexpected errors).
 */
export function formatClientError(error: GraphQLError): GraphQLFormattedError {
  const { http: _http, ...extensions } = error.extensions as Record<string, unknown>;
  const enriched = {
    ...error.toJSON(),
    extensions: { ...extensions, code: extensions.code ?? 'INTERNAL_SERVER_ERROR' },
  };
  return formatError(enriched, error);
}

/** `value` with every string in it redacted (objects and arrays copied only where something changed). */
function redactValue(value: unknown, redactor: Redactor): unknown {
  if (typeof value === 'string') return redactor.redact(value) ?? value;
  if (Array.isArray(value)) {
    const items = value.map((item: unknown) => redactValue(item, redactor));
    return items.some((item, index) => item !== value[index]) ? items : value;
  }
  if (value !== null && typeof value === 'object') {
    let changed = false;
    const entries = Object.entries(value).map(([name, item]) => {
      const redacted = redactValue(item, redactor);
      changed ||= redacted !== item;
      return [name, redacted] as const;
    });
    return changed ? Object.fromEntries(entries) : value;
  }
  return value;
}

/** An error as a plain formatted object (the `format-errors` step has run: raw errors are rare here). */
function formattedOf(error: ResultError): GraphQLFormattedError {
  return error instanceof GraphQLError ? error.toJSON() : error;
}

/**
 * The JSON of results the `response-size` step measured without a serializer of the
 * transport's: one result object handed to several streams (the shared run of a live query,
 * a subscription event fanned out to its subscribers) is serialized once, not once per
 * stream. Held only as long as the result object is.
 */
const measuredTexts = new WeakMap<object, string>();

/** `JSON.stringify(result)`, once per result object (see {@link measuredTexts}). */
function measuredText(result: object): string {
  let text = measuredTexts.get(result);
  if (text === undefined) {
    text = JSON.stringify(result);
    measuredTexts.set(result, text);
  }
  return text;
}

/** The members a result step replaces, writable (see {@link withErrors}, {@link withExtensions}). */
type Replaceable = { errors?: ReadonlyArray<ResultError>; extensions?: Readonly<Record<string, unknown>> };

/**
 * A copy of a result's own members (as a spread copies them; no result has a `__proto__`
 * member), with `Object.assign`: V8 (Node 20) spent microseconds on a spread's copy, and
 * defined a member written after the spread on a slow path, for every result.
 */
function copyOf<T extends object>(value: T): T {
  return Object.assign({}, value);
}

/** The result with `extensions` replaced (in its place when it had them, else last). */
function withExtensions<R extends OutgoingResult>(result: R, extensions: Readonly<Record<string, unknown>>): R {
  const copy: Replaceable = copyOf(result);
  copy.extensions = extensions;
  return copy as R;
}

/** The result with `errors` replaced (and the rest as it was). */
function withErrors<R extends OutgoingResult>(result: R, errors: ReadonlyArray<ResultError>): R {
  const copy: Replaceable = copyOf(result);
  copy.errors = errors;
  return copy as R;
}

/**
 * THE ordered list of the result phase. HTTP, graphql-ws, graphql-sse and live queries
 * run every step, in this order.
 */
export const RESULT_STEPS = [
  // The items a fan-out field answered without (one failing option slot): each its own
  // error, with its path, formatted like every other error.
  {
    name: 'item-errors',
    phase: 'execution',
    run(state) {
      const itemErrors = state.execution?.itemErrors;
      if (!itemErrors || itemErrors.size === 0) return;
      state.result = withErrors(state.result, [...(state.result.errors ?? []), ...itemErrors.formatted(formatError)]);
    },
  },
  // extensions.upstream: what the execution cost upstream ({requests, cacheHits, coalesced,
  // stale, maxAgeSeconds}); extensions.stale for fields built from stale data (noted while
  // fields resolve over HTTP); extensions.responseCache for a whole response from the cache.
  {
    name: 'upstream',
    phase: 'execution',
    run(state) {
      const accounting = state.execution?.session.accounting;
      if (!accounting) return;
      const age = state.responseCacheAgeSeconds ?? null;
      if (age !== null) {
        accounting.responseCacheHit = true;
        accounting.noteAge(age * 1000);
      }
      const before = state.result.extensions;
      // A whole response from the response cache, nothing else in its accounting: the one
      // object of its age (its text made once, see hit-extensions.ts).
      if (age !== null && before === undefined && emptyBut(accounting, age)) {
        state.result = withExtensions(state.result, hitExtensions(age));
        return;
      }
      // Built member by member, not spread: the same members in the same order, on V8's
      // fast paths (see copyOf).
      const extensions: Record<string, unknown> = before === undefined ? {} : copyOf(before);
      extensions.upstream = accounting.toJSON();
      if (accounting.staleFields.length > 0) extensions.stale = accounting.staleFields;
      if (age !== null) extensions.responseCache = { hit: true, ageSeconds: age };
      state.result = withExtensions(state.result, extensions);
    },
  },
  // extensions.warnings: what the execution noted without failing (e.g. WINDOW_OVERRUN of a
  // payment request's account), each once.
  {
    name: 'warnings',
    phase: 'execution',
    run(state) {
      const warnings = state.execution?.warnings;
      if (!warnings || warnings.size === 0) return;
      state.result = { ...state.result, extensions: { ...state.result.extensions, warnings: [...warnings.values()] } };
    },
  },
  // Every error through formatError (unexpected ones masked as INTERNAL_SERVER_ERROR), with
  // its code set and no `http` extension. Over HTTP Apollo Server has formatted the errors
  // of the execution already, with the same function; errors formatted before pass as they are.
  {
    name: 'format-errors',
    phase: 'delivery',
    run(state) {
      const errors = state.result.errors;
      if (!errors?.some((error) => error instanceof GraphQLError)) return;
      state.result = withErrors(
        state.result,
        errors.map((error) => (error instanceof GraphQLError ? formatClientError(error) : error)),
      );
    },
  },
  // The caller's key and secret (the server's in public-site mode) out of every error's
  // message and extensions, in every form the upstream client looks for (`Redactor`). The
  // upstream client redacts what the upstream echoes; this covers every other text.
  {
    name: 'redact',
    phase: 'delivery',
    run(state) {
      const errors = state.result.errors;
      const context = state.delivery;
      if (!errors?.length || !context) return;
      // Shorter secrets cannot be found in free text (the upstream client withholds such texts).
      const secrets = [context.apiKey, context.apiSecret].filter(
        (secret): secret is string => secret !== null && secret.length >= MIN_REDACTABLE_LENGTH,
      );
      if (secrets.length === 0) return;
      const redactor = redactorFor(secrets);
      let changed = false;
      // The message and the extensions only: a path names the client's own fields and aliases.
      const redacted = errors.map((error) => {
        const message = redactor.redact(error.message) ?? error.message;
        const extensions = redactValue(error.extensions, redactor) as ResultError['extensions'];
        if (message === error.message && extensions === error.extensions) return error;
        changed = true;
        return { ...formattedOf(error), message, ...(extensions ? { extensions } : {}) };
      });
      if (changed) state.result = withErrors(state.result, redacted);
    },
  },
  // MAX_RESPONSE_BYTES: a result whose JSON is larger is replaced by `data: null` and one
  // QUERY_TOO_EXPENSIVE error naming the limit; a subscription goes on after it.
  {
    name: 'response-size',
    phase: 'delivery',
    run(state, env) {
      let text: ResultText;
      try {
        text = state.serialize ? state.serialize(state.result) : measuredText(state.result);
      } catch {
        return; // not JSON (e.g. a cycle): the transport reports its own error
      }
      const bytes = bytesOver(text, env.maxResponseBytes);
      if (bytes === null) {
        state.measured?.(state.result, text);
        return;
      }
      const { message, extensions } = tooLargeError(bytes, env.maxResponseBytes);
      state.result = {
        data: null,
        errors: [{ message, extensions: { ...extensions } }],
      } as unknown as typeof state.result;
    },
  },
  // The operation's metrics, its `graphql operation` log line and its span, from the
  // result as it is sent (over a streaming transport: its first answer).
  {
    name: 'report',
    phase: 'delivery',
    run(state) {
      state.report?.({ result: state.result, errorCodes: errorCodesOf(state.result.errors) });
    },
  },
] as const satisfies ReadonlyArray<ResultStep<string>>;

/** The name of a result step. */
export type ResultStepName = (typeof RESULT_STEPS)[number]['name'];

/**
 * Runs the steps of `phases` of {@link RESULT_STEPS} on `state`, in order, and returns the
 * result to send.
 */
export function runResultSteps<R extends OutgoingResult>(
  state: ResultState<R>,
  env: ResultEnvironment,
  phases: readonly ResultPhase[] = RESULT_PHASES,
): R {
  for (const step of RESULT_STEPS as readonly ResultStep<ResultStepName>[]) {
    if (phases.includes(step.phase)) step.run(state, env);
  }
  return state.result;
}
