/**
 * OpenTelemetry traces of the gateway, off unless `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set: the OpenTelemetry JS SDK with its OTLP
 * HTTP exporter, W3C `traceparent` continued from the request.
 *
 * The spans (docs/observability.md#traces):
 * - one SERVER span per GraphQL request on `/graphql`, named by operation type and name
 *   (`query CompanyPage`), a child of the caller's `traceparent` when one came;
 * - one SERVER span per operation over graphql-ws or graphql-sse, named the same way, from
 *   its subscribe message to its first answer (a live query's first result, a
 *   subscription's start), with `statev.transport`;
 * - under it one CLIENT span per upstream request the operation made, named by its route
 *   pattern (`GET /factory/inventory/{id}`), with the cache outcome, the HTTP status, the
 *   time waited for the key's budget, the priority and the retries;
 * - background fill, refresh-ahead and subscription polls get root spans of their own,
 *   background fill's linked to the operation whose request it fetches.
 *
 * No span carries an API key or secret: keys appear only as the HMAC id the logs use
 * (`statev.key_id`), and upstream errors only by their code.
 *
 * Off, none of this runs: the runtime installs no hook at all.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, createContextKey, trace } from '@opentelemetry/api';
import type { Link, Span, SpanContext, Tracer } from '@opentelemetry/api';
import type { ApolloServerPlugin } from '@apollo/server';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base';
import type { Sampler, SpanExporter } from '@opentelemetry/sdk-trace-base';
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVICE_NAME,
  ATTR_URL_PATH,
} from '@opentelemetry/semantic-conventions';
import type { TracingSettings } from '../config';
import type { GatewayContext } from '../context';
import type { EconomyEvents, TracedRequest } from '../economy';
import type { UpstreamObservation } from '../upstream/client';
import { errorCodesOf } from '../pipeline/result-steps';

/** Attribute names of the semantic conventions' incubating part (not importable from the stable entry). */
const ATTR_GRAPHQL_OPERATION_TYPE = 'graphql.operation.type';
const ATTR_GRAPHQL_OPERATION_NAME = 'graphql.operation.name';
const ATTR_URL_TEMPLATE = 'url.template';

/** The gateway's own attributes. */
export const TRACE_ATTRIBUTES = {
  /** `hit`, `miss`, `stale` or `coalesced` (a shared flight, in this process or another replica). */
  cache: 'statev.cache',
  /** ms this request waited for the key's budget and a slot before it was sent (summed over retries). */
  budgetWaitMs: 'statev.budget.wait_ms',
  /** `operation`, `missed` (background fill) or `background` (refresh-ahead, subscription polls). */
  priority: 'statev.priority',
  /** Retries sent after the first attempt (0 or 1). */
  retries: 'statev.retries',
  /** The HMAC id of the API key, as logs and metrics show it. */
  keyId: 'statev.key_id',
  /** The gateway's error code of a failed upstream request (`UPSTREAM_ERROR`, `RATE_LIMITED`, …). */
  errorCode: 'statev.error_code',
  /** The error codes of an operation's response, comma-separated. */
  errorCodes: 'graphql.error_codes',
  /** The whole response came from the per-key response cache. */
  responseCache: 'statev.response_cache',
  /** The subscription transport an operation came over (`graphql-ws`, `graphql-sse`); absent over HTTP. */
  transport: 'statev.transport',
} as const;

/** What an upstream span gathers while its request runs (held in the context, read by the hooks). */
interface UpstreamTrace {
  readonly span: Span;
  /** The operation's span this request is a child of (none for background work). */
  readonly operation: SpanContext | undefined;
  attempts: number;
}

const UPSTREAM_TRACE = createContextKey('statev upstream trace');
const QUEUED_BY = createContextKey('statev queued by');

let contextManagerInstalled = false;

/** Context propagation through async calls for every gateway of the process (OpenTelemetry's is global). */
function installContextManager(): void {
  if (contextManagerInstalled) return;
  contextManagerInstalled = context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
}

/** The sampler `OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG` name. */
function samplerOf(settings: TracingSettings): Sampler {
  const ratio = new TraceIdRatioBasedSampler(settings.samplerRatio);
  switch (settings.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio;
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** `OTEL_EXPORTER_OTLP_HEADERS` as a header map (validated by src/config/index.ts). */
function exportHeaders(raw: string | null): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (raw ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at > 0) headers[pair.slice(0, at).trim()] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return headers;
}

/**
 * The SERVER span of one operation over graphql-ws or graphql-sse, from
 * {@link GatewayTracing.streamOperation}. It is named `graphql` until {@link named} knows the
 * operation, and ends with the operation's first answer: a query's or mutation's result, a
 * live query's first result, a subscription's start (its events come from polls, which have
 * spans of their own), or the refusal.
 */
export interface StreamOperationSpan {
  /** Names the span by the operation the pipeline let through (`query CompanyPage`) and adds the key's HMAC id. */
  named(operation: string, operationName: string | null | undefined, keyId: string | null): void;
  /** Runs `work` with this span active: the upstream requests it makes are children of it. */
  run<T>(work: () => T): T;
  /** Ends the span, with the error codes of `errors` when there are any; later calls do nothing. */
  end(errors?: ReadonlyArray<{ readonly extensions?: { readonly code?: unknown } }>): void;
}

/** Reads a request's headers for W3C trace context (`traceparent`, `tracestate`). */
const headerGetter = {
  keys: (carrier: IncomingHttpHeaders) => Object.keys(carrier),
  get: (carrier: IncomingHttpHeaders, key: string) => carrier[key.toLowerCase()],
};

/**
 * The gateway's tracer and its hooks. Create it with {@link GatewayTracing.fromSettings};
 * the runtime wires {@link economyEvents}, {@link observeUpstream} and {@link plugin}, and the
 * router runs each GraphQL request through {@link operation}.
 */
export class GatewayTracing {
  private readonly tracer: Tracer;
  private readonly propagator = new W3CTraceContextPropagator();

  private constructor(private readonly provider: BasicTracerProvider) {
    this.tracer = provider.getTracer('statev-graphql-gateway');
  }

  /**
   * Tracing for these settings, or undefined when it is off (no endpoint and no exporter).
   *
   * @param exporter - where spans go instead of OTLP, each at once (tests pass an in-memory exporter)
   */
  static fromSettings(settings: TracingSettings, exporter?: SpanExporter): GatewayTracing | undefined {
    const url = settings.tracesEndpoint ?? (settings.endpoint ? `${settings.endpoint}/v1/traces` : null);
    if (!exporter && !url) return undefined;
    installContextManager();
    const processor = exporter
      ? new SimpleSpanProcessor(exporter)
      : new BatchSpanProcessor(
          new OTLPTraceExporter({ url: url ?? undefined, headers: exportHeaders(settings.headers) }),
        );
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName }),
      sampler: samplerOf(settings),
      spanProcessors: [processor],
    });
    return new GatewayTracing(provider);
  }

  /**
   * Runs one GraphQL HTTP request in a SERVER span, continuing the request's `traceparent`.
   * The span is named `graphql` until {@link plugin} knows the operation.
   */
  async operation<T>(headers: IncomingHttpHeaders, res: ServerResponse, work: () => Promise<T>): Promise<T> {
    const parent = this.propagator.extract(ROOT_CONTEXT, headers, headerGetter);
    const span = this.tracer.startSpan(
      'graphql',
      { kind: SpanKind.SERVER, attributes: { [ATTR_URL_PATH]: '/graphql' } },
      parent,
    );
    try {
      return await context.with(trace.setSpan(parent, span), work);
    } finally {
      span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
  }

  /**
   * Starts the SERVER span of one operation over a subscription transport (`graphql-ws`
   * or `graphql-sse`), continuing the `traceparent` of `carrier`: the SSE request's
   * headers, or the WebSocket's upgrade request headers with its connection parameters
   * over them (a browser cannot set a WebSocket's headers).
   */
  streamOperation(transport: 'graphql-ws' | 'graphql-sse', carrier: IncomingHttpHeaders): StreamOperationSpan {
    const parent = this.propagator.extract(ROOT_CONTEXT, carrier, headerGetter);
    const span = this.tracer.startSpan(
      'graphql',
      { kind: SpanKind.SERVER, attributes: { [TRACE_ATTRIBUTES.transport]: transport } },
      parent,
    );
    const active = trace.setSpan(parent, span);
    let ended = false;
    return {
      named(operation, operationName, keyId) {
        nameOperationSpan(span, operation, operationName);
        if (keyId) span.setAttribute(TRACE_ATTRIBUTES.keyId, keyId);
      },
      run: (work) => context.with(active, work),
      end(errors) {
        if (ended) return;
        ended = true;
        if (errors?.length) span.setAttribute(TRACE_ATTRIBUTES.errorCodes, errorCodesOf(errors).join(','));
        span.end();
      },
    };
  }

  /**
   * An HTTP answer as the result phase's `report` step sends it: its error codes (list-item
   * errors included) on the operation's span (the active one), which is marked failed when
   * the answer has no data.
   */
  answered(errorCodes: readonly string[], hasData: boolean): void {
    const span = trace.getActiveSpan();
    if (!span || errorCodes.length === 0) return;
    span.setAttribute(TRACE_ATTRIBUTES.errorCodes, errorCodes.join(','));
    if (!hasData) span.setStatus({ code: SpanStatusCode.ERROR });
  }

  /**
   * Adds the request's HTTP method and the key's HMAC id to the operation's span (the active
   * one): from {@link plugin}, and for a request the pipeline refused after its `request`
   * phase, which Apollo never sees; with the operation, when an `operation` step refused it,
   * the span is named by it as {@link plugin} names it.
   */
  requested(
    method: string,
    keyId: string | null | undefined,
    operation?: { readonly type?: string; readonly name?: string | null },
  ): void {
    const span = trace.getActiveSpan();
    if (!span) return;
    setRequestAttributes(span, method, keyId);
    if (operation?.type) nameOperationSpan(span, operation.type, operation.name);
  }

  /**
   * An Apollo plugin that names the operation's span by type and name (`query CompanyPage`,
   * `query` when anonymous) and adds the key's HMAC id, the response cache's answer and
   * the response's error codes (set by {@link answered}).
   */
  plugin(): ApolloServerPlugin<GatewayContext> {
    return {
      async requestDidStart({ request, contextValue }) {
        const span = trace.getActiveSpan();
        if (!span) return;
        setRequestAttributes(span, request.http?.method ?? 'POST', contextValue.session.keyId);
        return {
          async didResolveOperation({ operation, operationName }) {
            if (operation) nameOperationSpan(span, operation.operation, operationName);
          },
          async willSendResponse({ metrics }) {
            if (metrics.responseCacheHit === true) span.setAttribute(TRACE_ATTRIBUTES.responseCache, 'hit');
            // The error codes come from the result phase's report step (see `answered`), as sent.
          },
        };
      },
    };
  }

  /**
   * The economy's events with tracing's hooks added (`base`'s own handlers still run):
   * each GET, refresh and POST in an upstream span; the cache outcome, the budget wait and
   * the retries (the economy's `upstreamRequest` event) on it; background fill's work
   * linked to the operation that queued it.
   */
  economyEvents(base: EconomyEvents): EconomyEvents {
    return {
      ...base,
      traced: (request, work) => this.upstreamSpan(request, work),
      cache: (outcome) => {
        base.cache?.(outcome);
        current()?.span.setAttribute(TRACE_ATTRIBUTES.cache, outcome);
      },
      coalesced: () => {
        base.coalesced?.();
        current()?.span.setAttribute(TRACE_ATTRIBUTES.cache, 'coalesced');
      },
      upstreamRequest: (event) => {
        base.upstreamRequest?.(event);
        const upstream = current();
        if (!upstream) return;
        if (event.outcome !== 'write') upstream.span.setAttribute(TRACE_ATTRIBUTES.cache, event.outcome);
        upstream.span.setAttribute(TRACE_ATTRIBUTES.retries, event.retries);
        // Only a request of its own waits for budget (a hit or a joined flight does not).
        if (event.outcome === 'miss' || event.outcome === 'write' || event.budgetWaitMs > 0)
          upstream.span.setAttribute(TRACE_ATTRIBUTES.budgetWaitMs, Math.round(event.budgetWaitMs));
      },
      queued: (work) => {
        // The operation's span, not that of its request that missed (a child of it).
        const queuedBy = current()?.operation ?? trace.getSpan(context.active())?.spanContext();
        return queuedBy ? () => context.with(ROOT_CONTEXT.setValue(QUEUED_BY, queuedBy), work) : work;
      },
    };
  }

  /** Notes one upstream attempt on the running upstream span: its status and the retries so far (register with `UpstreamClient.observe`). */
  observeUpstream(observation: UpstreamObservation): void {
    const upstream = current();
    if (!upstream) return;
    upstream.attempts += 1;
    if (observation.status !== null) upstream.span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, observation.status);
    upstream.span.setAttribute(TRACE_ATTRIBUTES.retries, upstream.attempts - 1);
  }

  /** Sends the spans still buffered and stops (at shutdown). */
  async shutdown(): Promise<void> {
    await this.provider.shutdown();
  }

  /**
   * Runs one upstream request (a GET through the economy, or a POST) in a CLIENT span. An
   * operation's is a child of its operation's span; background work's is a root span, linked
   * to the operation that queued it when there is one (background fill).
   */
  private async upstreamSpan<T>(request: TracedRequest, work: () => Promise<T>): Promise<T> {
    const background = request.priority !== 'operation';
    const queuedBy = context.active().getValue(QUEUED_BY) as SpanContext | undefined;
    const links: Link[] = background && queuedBy ? [{ context: queuedBy }] : [];
    const [method = 'GET', ...rest] = request.route.split(' ');
    const span = this.tracer.startSpan(
      request.route,
      {
        kind: SpanKind.CLIENT,
        root: background,
        links,
        attributes: {
          [ATTR_HTTP_REQUEST_METHOD]: method,
          [ATTR_URL_TEMPLATE]: rest.join(' '),
          [TRACE_ATTRIBUTES.priority]: request.priority,
          [TRACE_ATTRIBUTES.keyId]: request.keyId,
        },
      },
      background ? ROOT_CONTEXT : context.active(),
    );
    const state: UpstreamTrace = {
      span,
      operation: background ? undefined : trace.getSpan(context.active())?.spanContext(),
      attempts: 0,
    };
    // Background work runs in a context of its own: nothing it starts (timers) inherits an operation's.
    const parent = background ? ROOT_CONTEXT : context.active();
    try {
      return await context.with(trace.setSpan(parent, span).setValue(UPSTREAM_TRACE, state), work);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      span.setStatus({ code: SpanStatusCode.ERROR });
      if (typeof code === 'string') span.setAttribute(TRACE_ATTRIBUTES.errorCode, code);
      throw error;
    } finally {
      span.end();
    }
  }
}

/** Sets an HTTP operation's span's method and key id (the key's HMAC id, when it has a key). */
function setRequestAttributes(span: Span, method: string, keyId: string | null | undefined): void {
  span.setAttribute(ATTR_HTTP_REQUEST_METHOD, method);
  if (keyId) span.setAttribute(TRACE_ATTRIBUTES.keyId, keyId);
}

/** Names an operation's span by its type and name (`query CompanyPage`; `query` when anonymous), with the matching attributes. */
function nameOperationSpan(span: Span, operation: string, operationName: string | null | undefined): void {
  span.updateName(operationName ? `${operation} ${operationName}` : operation);
  span.setAttribute(ATTR_GRAPHQL_OPERATION_TYPE, operation);
  if (operationName) span.setAttribute(ATTR_GRAPHQL_OPERATION_NAME, operationName);
}

/** The upstream span of the running request, if any. */
function current(): UpstreamTrace | undefined {
  return context.active().getValue(UPSTREAM_TRACE) as UpstreamTrace | undefined;
}
