/**
 * The result phase is data: one ordered list (src/pipeline/result-steps.ts) that every
 * transport runs on every result. Here the steps themselves, on results built by hand;
 * test/pipeline/transports.test.ts checks that every transport answers the same.
 */
import type { GraphQLRequestContextWillSendResponse, GraphQLRequestListener } from '@apollo/server';
import { GraphQLError } from 'graphql';
import type { ExecutionResult, FormattedExecutionResult, GraphQLFormattedError, GraphQLResolveInfo } from 'graphql';
import { DEFAULT_CONFIG } from '../../src/config';
import type { GatewayContext } from '../../src/context';
import { ListItemErrors } from '../../src/domains/shared/list-item-errors';
import { OperationAccounting } from '../../src/economy';
import type { UpstreamSession } from '../../src/economy';
import { GatewayError } from '../../src/errors/gateway-error';
import { buildGatewaySchema } from '../../src/graph/schema';
import { RequestPipeline } from '../../src/pipeline/pipeline';
import type { HttpResultReport } from '../../src/pipeline/http-result-phase';
import { extensionsText } from '../../src/pipeline/hit-extensions';
import { RESULT_PHASES, RESULT_STEPS, runResultSteps } from '../../src/pipeline/result-steps';
import type { ResultReport } from '../../src/pipeline/result-steps';

const KEY = 'sk-live-0123456789abcdef';
const SECRET = 'secret-fedcba9876543210';

/** A context as the steps read it: item errors, a session with its accounting, the credentials. */
function contextWith(
  accounting = new OperationAccounting(),
): Pick<GatewayContext, 'itemErrors' | 'session' | 'apiKey' | 'apiSecret'> {
  return {
    itemErrors: new ListItemErrors(),
    session: { accounting, keyId: 'k' } as unknown as UpstreamSession,
    apiKey: KEY,
    apiSecret: SECRET,
  };
}

/** Reports a failed item at `options[index]` of `factory`. */
function failItem(context: Pick<GatewayContext, 'itemErrors'>, index: number, error: Error): void {
  const info = {
    path: { prev: { prev: undefined, key: 'factory', typename: 'Query' }, key: 'options', typename: 'Factory' },
    fieldNodes: [],
  } as unknown as GraphQLResolveInfo;
  context.itemErrors.report(info, index, error, { slot: index + 1 });
}

describe('the result steps', () => {
  it('run in this order, phase by phase', () => {
    expect(RESULT_STEPS.map((step) => step.name)).toEqual([
      'item-errors',
      'upstream',
      'warnings',
      'format-errors',
      'redact',
      'response-size',
      'report',
    ]);
    const phases = RESULT_STEPS.map((step) => RESULT_PHASES.indexOf(step.phase));
    expect(phases).toEqual([...phases].sort((a, b) => a - b));
  });

  it('add the item errors and extensions.upstream, format and mask every error, redact the credentials, then report what is sent', () => {
    const accounting = new OperationAccounting();
    accounting.requests = 3;
    accounting.cacheHits = 1;
    const context = contextWith(accounting);
    failItem(
      context,
      1,
      new GatewayError('UPSTREAM_ERROR', 'slot 2 failed', {
        upstream: { status: 500, endpoint: 'GET /factory/options/{id}/{slot}', message: 'boom' },
      }),
    );
    const reports: Array<ResultReport<ExecutionResult>> = [];
    const result: ExecutionResult = {
      data: { factory: { options: [{ slot: 1 }] } },
      errors: [
        new GatewayError('FORBIDDEN', `refused for Bearer ${KEY}`, { upstream: { message: `secret ${SECRET}` } }, 403),
        new GraphQLError('boom', { path: ['factory', 'name'], originalError: new Error(`internal detail ${KEY}`) }),
      ],
    };
    const sent = runResultSteps<ExecutionResult>(
      {
        transport: 'graphql-ws',
        result,
        execution: context,
        delivery: context,
        report: (report) => reports.push(report),
      },
      { maxResponseBytes: DEFAULT_CONFIG.maxResponseBytes },
    );
    const errors = sent.errors as unknown as GraphQLFormattedError[];
    expect(errors).toEqual([
      // No `http` extension; the key and the secret redacted in the message and the extensions.
      {
        message: 'refused for Bearer [redacted]',
        extensions: { code: 'FORBIDDEN', upstream: { message: 'secret [redacted]' } },
      },
      // An unexpected error is masked.
      { message: 'Internal server error', path: ['factory', 'name'], extensions: { code: 'INTERNAL_SERVER_ERROR' } },
      // The item error, at the item's path.
      expect.objectContaining({
        message: 'slot 2 failed',
        path: ['factory', 'options', 1],
        extensions: expect.objectContaining({ code: 'UPSTREAM_ERROR', slot: 2 }) as unknown,
      }),
    ]);
    expect(sent.extensions).toEqual({
      upstream: { requests: 3, cacheHits: 1, coalesced: 0, stale: 0, maxAgeSeconds: 0 },
    });
    expect(JSON.stringify(sent)).not.toContain(KEY);
    expect(reports).toEqual([{ result: sent, errorCodes: ['FORBIDDEN', 'INTERNAL_SERVER_ERROR', 'UPSTREAM_ERROR'] }]);
  });

  it('give a response-cache hit the extensions of its age, written as the step builds them for any other result', () => {
    const env = { maxResponseBytes: DEFAULT_CONFIG.maxResponseBytes };
    const hit = (age: number, accounting = new OperationAccounting()): FormattedExecutionResult => {
      const context = contextWith(accounting);
      return runResultSteps<FormattedExecutionResult>(
        {
          transport: 'http',
          result: { data: {} },
          execution: context,
          delivery: context,
          responseCacheAgeSeconds: age,
        },
        env,
      );
    };
    const extensionsOf = (age: number): Record<string, unknown> => ({
      upstream: { requests: 0, cacheHits: 0, coalesced: 0, stale: 0, maxAgeSeconds: age },
      responseCache: { hit: true, ageSeconds: age },
    });
    for (const age of [0, 3, 3, 4000]) {
      const sent = hit(age);
      expect(sent.extensions).toEqual(extensionsOf(age));
      // The same text, member for member, as JSON.stringify of the object built member by member.
      expect(extensionsText(sent.extensions as Record<string, unknown>)).toBe(JSON.stringify(extensionsOf(age)));
      // Shared by the hits of one age: frozen, so no request changes another's.
      expect(Object.isFrozen(sent.extensions)).toBe(true);
      expect(Object.isFrozen(sent.extensions?.upstream)).toBe(true);
    }
    // An accounting with anything else in it gets its own extensions.
    const worked = new OperationAccounting();
    worked.cacheHits = 2;
    const sent = hit(3, worked);
    expect(sent.extensions).toEqual({
      upstream: { requests: 0, cacheHits: 2, coalesced: 0, stale: 0, maxAgeSeconds: 3 },
      responseCache: { hit: true, ageSeconds: 3 },
    });
    expect(Object.isFrozen(sent.extensions)).toBe(false);
    expect(extensionsText(sent.extensions as Record<string, unknown>)).toBe(JSON.stringify(sent.extensions));
    // A warning added after the step copies the shared object.
    const context = { ...contextWith(), warnings: new Map([['w', { code: 'WINDOW_OVERRUN' }]]) };
    const warned = runResultSteps<FormattedExecutionResult>(
      { transport: 'http', result: { data: {} }, execution: context, delivery: context, responseCacheAgeSeconds: 3 },
      env,
    );
    expect(warned.extensions).toEqual({ ...extensionsOf(3), warnings: [{ code: 'WINDOW_OVERRUN' }] });
    expect(hit(3).extensions).toEqual(extensionsOf(3));
  });

  it("redact messages and extensions, never a path (it names the client's own fields and aliases)", () => {
    const context = contextWith();
    const result = {
      data: null,
      errors: [{ message: `no ${KEY}`, path: [KEY, 0], extensions: { code: 'NOT_FOUND', detail: [`${SECRET}!`] } }],
    };
    const sent = runResultSteps(
      { transport: 'http', result, execution: null, delivery: context },
      { maxResponseBytes: DEFAULT_CONFIG.maxResponseBytes },
    );
    expect(sent.errors).toEqual([
      { message: 'no [redacted]', path: [KEY, 0], extensions: { code: 'NOT_FOUND', detail: ['[redacted]!'] } },
    ]);
  });

  it('give the same result run phase by phase (a live query: execution at the end of its run, delivery when sent)', () => {
    const make = (): { context: ReturnType<typeof contextWith>; result: ExecutionResult } => {
      const context = contextWith();
      failItem(context, 4, new GatewayError('RATE_LIMITED', 'no budget', { retryAfterSeconds: 3 }));
      return { context, result: { data: { factory: { options: [] } } } };
    };
    const env = { maxResponseBytes: DEFAULT_CONFIG.maxResponseBytes };
    const whole = make();
    const atOnce = runResultSteps(
      { transport: 'graphql-sse', result: whole.result, execution: whole.context, delivery: whole.context },
      env,
    );
    const split = make();
    const executed = runResultSteps(
      { transport: 'graphql-sse', result: split.result, execution: split.context, delivery: null },
      env,
      ['execution'],
    );
    // The run's context may be refreshed before the result is sent: delivery does not read its item errors.
    split.context.itemErrors = new ListItemErrors();
    const delivered = runResultSteps(
      { transport: 'graphql-sse', result: executed, execution: split.context, delivery: split.context },
      env,
      ['delivery'],
    );
    expect(delivered).toEqual(atOnce);
    expect(delivered.errors?.map((error) => [error.path, error.extensions?.code])).toEqual([
      [['factory', 'options', 4], 'RATE_LIMITED'],
    ]);
  });

  it('replace a result over MAX_RESPONSE_BYTES, and report the replacement', () => {
    const reports: string[][] = [];
    const sent = runResultSteps(
      {
        transport: 'graphql-ws',
        result: { data: { text: 'x'.repeat(5000) } } as ExecutionResult,
        execution: null,
        delivery: null,
        report: ({ errorCodes }) => reports.push(errorCodes),
      },
      { maxResponseBytes: 1024 },
    );
    expect(sent.data).toBeNull();
    expect(sent.errors?.[0]?.extensions).toEqual({
      code: 'QUERY_TOO_EXPENSIVE',
      responseBytes: 5020,
      maxResponseBytes: 1024,
    });
    expect(reports).toEqual([['QUERY_TOO_EXPENSIVE']]);
  });

  it('measure one result handed to several streams once (a live query shared by its subscribers)', () => {
    const shared = {
      data: { factories: Array.from({ length: 100 }, (_, i) => ({ id: `f${i}`, name: `Factory ${i}` })) },
    } as ExecutionResult;
    const stringify = jest.spyOn(JSON, 'stringify');
    try {
      for (let stream = 0; stream < 50; stream += 1) {
        const sent = runResultSteps(
          { transport: 'graphql-sse', result: shared, execution: null, delivery: null },
          { maxResponseBytes: 1_000_000 },
          ['delivery'],
        );
        expect(sent).toBe(shared);
      }
      expect(stringify.mock.calls.filter(([value]) => value === shared)).toHaveLength(1);
    } finally {
      stringify.mockRestore();
    }
  });
});

describe('the result phase over HTTP', () => {
  it('runs every step in one plugin, and Apollo writes the text the size step measured (one serialization)', async () => {
    const pipeline = RequestPipeline.fromConfig(await buildGatewaySchema(), DEFAULT_CONFIG);
    const reports: HttpResultReport[] = [];
    const { plugin, stringifyResult } = pipeline.resultPhase((report) => reports.push(report));
    let serialized = 0;
    const counted = {
      toJSON() {
        serialized += 1;
        return 'counted';
      },
    };
    const context = contextWith();
    failItem(context, 0, new GatewayError('UPSTREAM_ERROR', 'slot 1 failed'));
    const singleResult: FormattedExecutionResult = { data: { factory: { options: [], counted } } };
    const requestContext = {
      response: { body: { kind: 'single', singleResult }, http: { headers: new Map<string, string>() } },
      contextValue: context,
      operationName: 'Slots',
      metrics: {},
    };
    const listener = (await plugin.requestDidStart?.(
      requestContext as never,
    )) as GraphQLRequestListener<GatewayContext>;
    await listener.executionDidStart?.(requestContext as never);
    await listener.willSendResponse?.(
      requestContext as unknown as GraphQLRequestContextWillSendResponse<GatewayContext>,
    );
    const sent = requestContext.response.body.singleResult;
    expect(serialized).toBe(1);
    // What Apollo Server hands stringifyResult: the result's fields in its order, in a new object.
    const text = stringifyResult({ errors: sent.errors, data: sent.data, extensions: sent.extensions });
    expect(serialized).toBe(1);
    expect(text).toBe(`${JSON.stringify({ errors: sent.errors, data: sent.data, extensions: sent.extensions })}\n`);
    expect(sent.errors?.map((error) => [error.path, error.extensions?.code])).toEqual([
      [['factory', 'options', 0], 'UPSTREAM_ERROR'],
    ]);
    expect(sent.extensions?.upstream).toEqual({ requests: 0, cacheHits: 0, coalesced: 0, stale: 0, maxAgeSeconds: 0 });
    expect(reports).toEqual([
      expect.objectContaining({
        operationName: 'Slots',
        executed: true,
        errorCodes: ['UPSTREAM_ERROR'],
        responseCacheAgeSeconds: null,
      }),
    ]);
    // Another result with the same parts is serialized afresh.
    expect(stringifyResult({ data: { other: true } })).toBe('{"data":{"other":true}}\n');
  });
});
