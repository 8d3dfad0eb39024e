/**
 * GraphQL over HTTP conformance: the audits of `graphql-http` (the reference implementation
 * of the GraphQL-over-HTTP spec) against the running gateway, once as a client with its own
 * key and once keyless against public-site mode (the audits' documents are introspection-only,
 * which public mode still answers). Every MUST audit has to pass; how many SHOULD (and MAY)
 * audits pass is printed, not asserted (Apollo Server answers 400, not 200, to invalid
 * documents under `accept: application/json`).
 */
import { join } from 'node:path';
import { serverAudits } from 'graphql-http';
import type { AuditResult } from 'graphql-http';
import type { GatewayConfig } from '../../src/config';
import { DEMO_KEYS } from '../../src/simulator';
import { useStack } from '../support';

const SITE_MANIFEST = join(__dirname, '../../examples/company-site/generated/persisted-documents.json');

/**
 * The audits' fetch, adding the bearer key (when given) to every request.
 *
 * No `apollo-require-preflight` header is added. The `csrf` step (Apollo's CSRF prevention)
 * refuses a GET that has neither a non-simple content type nor such a header, but that hits
 * only three MAY audits
 * (5A70, D6D5, 6A70: GETs with just an `accept` header); every MUST and SHOULD audit passes
 * without relaxing it, so the audits run against the real setup. The MAY count is printed.
 */
function auditFetch(key: string | null): (input: Parameters<typeof fetch>[0], init?: RequestInit) => Promise<Response> {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    if (key !== null) headers.set('authorization', `Bearer ${key}`);
    return fetch(input, { ...init, headers });
  };
}

function describeResult(result: AuditResult): string {
  return result.status === 'ok' ? `${result.id} ${result.name}` : `${result.id} ${result.name}: ${result.reason}`;
}

describe.each<[string, Partial<GatewayConfig>, string | null]>([
  ['with a bearer key', {}, DEMO_KEYS.premium.key],
  ['keyless, in public-site mode', { serverApiKey: DEMO_KEYS.premium.key, trustedDocumentsPath: SITE_MANIFEST }, null],
])('graphql-http server audits %s', (label, config, key) => {
  const stack = useStack({ http: true, config });

  it('passes every MUST audit of the GraphQL-over-HTTP spec', async () => {
    const results: AuditResult[] = [];
    for (const audit of serverAudits({ url: stack.endpoint, fetchFn: auditFetch(key) })) results.push(await audit.fn());

    const level = (prefix: string): { all: AuditResult[]; failed: string[] } => {
      const all = results.filter((result) => result.name.startsWith(prefix));
      return { all, failed: all.filter((result) => result.status !== 'ok').map(describeResult) };
    };
    const must = level('MUST ');
    const should = level('SHOULD ');
    const may = level('MAY ');

    console.log(
      `graphql-http audits ${label}: MUST ${must.all.length - must.failed.length}/${must.all.length} pass, ` +
        `SHOULD ${should.all.length - should.failed.length}/${should.all.length} pass, ` +
        `MAY ${may.all.length - may.failed.length}/${may.all.length} pass` +
        (should.failed.length > 0 ? `\nSHOULD audits not passed:\n  ${should.failed.join('\n  ')}` : '') +
        (may.failed.length > 0 ? `\nMAY audits not passed:\n  ${may.failed.join('\n  ')}` : ''),
    );
    expect(must.all.length).toBeGreaterThan(0);
    expect(must.failed).toEqual([]);
    // The audits ask nothing of the upstream.
    expect(stack.simulator.requests).toHaveLength(0);
  });
});
