/**
 * The order of the request checks is data: one array (src/pipeline/steps.ts), whose
 * phases run in order, and from which Apollo's options are built.
 */
import { DEFAULT_CONFIG } from '../../src/config';
import { buildGatewaySchema } from '../../src/graph/schema';
import { readCredential } from '../../src/pipeline/credential';
import { RequestPipeline } from '../../src/pipeline/pipeline';
import { STEPS } from '../../src/pipeline/steps';
import { PHASES } from '../../src/pipeline/step-types';

describe('the request steps', () => {
  it('run in this order, phase by phase', () => {
    expect(STEPS.map((step) => step.name)).toEqual([
      'body-size',
      'operation-cap',
      'key',
      'batch',
      'document-size',
      'public-site',
      'token',
      'subscription-limit',
      'csrf',
      'http-shape',
      'accept',
      'parse',
      'depth',
      'introspection',
      'get-query-only',
      'operation-shape',
      'variables',
      'grants',
      'bounds',
      'cost',
      'operation-cap-parsed',
      'result',
    ]);
    const phases = STEPS.map((step) => PHASES.indexOf(step.phase));
    expect(phases).toEqual([...phases].sort((a, b) => a - b));
  });

  it('give Apollo the parse limit, one validation rule per validate step and one plugin', async () => {
    const pipeline = RequestPipeline.fromConfig(await buildGatewaySchema(), DEFAULT_CONFIG);
    const options = pipeline.apolloOptions();
    expect(options.parseOptions.maxTokens).toBeGreaterThan(0);
    expect(options.validationRules).toHaveLength(STEPS.filter((step) => step.phase === 'validate').length);
    expect(pipeline.steps).toEqual(STEPS.map((step) => step.name));
  });

  it('stop a streaming request at the first refusal and report the steps they ran', async () => {
    const pipeline = RequestPipeline.fromConfig(await buildGatewaySchema(), DEFAULT_CONFIG);
    const ran: string[] = [];
    const stop = pipeline.observe((step) => ran.push(step));
    const refused = pipeline.prepare('graphql-ws', { query: '{ __typename }' }, readCredential('not a bearer'));
    expect(refused).toMatchObject({
      kind: 'refused',
      step: 'key',
      errors: [{ extensions: { code: 'UNAUTHENTICATED' } }],
    });
    expect(ran).toEqual(['body-size', 'operation-cap', 'key']);
    ran.length = 0;
    expect(pipeline.prepare('graphql-sse', { query: '{ __typename }' }, readCredential(undefined))).toMatchObject({
      kind: 'run',
      key: null,
    });
    expect(ran).toEqual(STEPS.filter((step) => step.phase !== 'result').map((step) => step.name));
    stop();
  });

  it('parse and validate a streaming document once: the next subscribe with the same text gets the same document, and the steps still report', async () => {
    const pipeline = RequestPipeline.fromConfig(await buildGatewaySchema(), DEFAULT_CONFIG);
    const ran: string[] = [];
    const stop = pipeline.observe((step) => ran.push(step));
    const first = pipeline.prepare('graphql-ws', { query: '{ __typename }' }, readCredential(undefined));
    const second = pipeline.prepare('graphql-sse', { query: '{ __typename }' }, readCredential(undefined));
    const steps = STEPS.filter((step) => step.phase !== 'result').map((step) => step.name);
    expect(ran).toEqual([...steps, ...steps]);
    expect(first.kind === 'run' && second.kind === 'run' && second.document === first.document).toBe(true);
    // An invalid document is refused every time.
    const invalid = { query: '{ noSuchField }' };
    expect(pipeline.prepare('graphql-ws', invalid, readCredential(undefined))).toMatchObject({
      kind: 'refused',
      errors: [{ extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }],
    });
    expect(pipeline.prepare('graphql-ws', invalid, readCredential(undefined))).toMatchObject({
      kind: 'refused',
      errors: [{ extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }],
    });
    stop();
  });
});

describe('readCredential', () => {
  it.each([
    [undefined, { kind: 'none' }],
    ['', { kind: 'none' }],
    ['   ', { kind: 'none' }],
    ['Bearer abc', { kind: 'key', apiKey: 'abc' }],
    ['bearer  abc ', { kind: 'key', apiKey: 'abc' }],
    ['abc', { kind: 'malformed' }],
    ['Bearer a b', { kind: 'malformed' }],
    ['Bearer', { kind: 'malformed' }],
    [42, { kind: 'malformed' }],
  ])('reads %j as %j', (value, credential) => {
    expect(readCredential(value)).toEqual(credential);
  });
});
