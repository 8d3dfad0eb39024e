import type { Scenario } from '../lib/bench';
import { log, PREMIUM_KEY, round } from '../lib/bench';
import { graphqlHeaders, heapUsedMb } from '../lib/http';

/** Unused variables of about 900 KB, the size of the attack the memo bound answers. */
const UNUSED_900_KB = { unused: 'x'.repeat(900_000) };

/** The lowest of `samples`: a heap's floor, after its collections, is what a leak raises. */
function floorOf(samples: readonly number[]): number | null {
  return samples.length === 0 ? null : Math.min(...samples);
}

/**
 * distinct-documents: a fresh gateway that accepts 1 MiB of variables gets 5,000 distinct
 * documents (quick: 300), each with about 900 KB of variables it does not declare. Undeclared
 * variables are dropped before any analysis and every per-document cache is byte-bounded, so
 * the heap's floor at the end stays within 50 MB of its floor at the start (target).
 * The floor is the lowest `nodejs_heap_size_used_bytes` sampled in the first and the last
 * tenth of the run: garbage not yet collected raises single samples, a leak raises the floor.
 */
export const distinctDocuments: Scenario = {
  name: 'distinct-documents',
  async run(bench) {
    const documents = bench.args.quick ? 300 : 5000;
    const gateway = await bench.startGateway(
      'gateway-distinct-documents',
      { MAX_VARIABLES_BYTES: String(1024 * 1024) },
      { pinned: true },
    );
    try {
      const url = `${gateway.origin}/graphql`;
      const headers = graphqlHeaders(PREMIUM_KEY, false);
      const samples: { at: number; heapMb: number }[] = [];
      let sent = 0;
      let errors = 0;
      const firstErrors: string[] = [];
      const sample = async (): Promise<void> => {
        const heap = await heapUsedMb(gateway.origin);
        if (heap !== null) samples.push({ at: sent / documents, heapMb: heap });
      };
      await sample();
      const worker = async (): Promise<void> => {
        while (sent < documents) {
          const n = sent;
          sent += 1;
          const body = JSON.stringify({
            query: `query Distinct${n} { __typename d${n}: __typename }`,
            variables: UNUSED_900_KB,
          });
          try {
            const response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(30_000) });
            const text = await response.text();
            if (response.status !== 200 || text.includes('"errors"'))
              throw new Error(`HTTP ${response.status} ${text.slice(0, 200)}`);
          } catch (error) {
            errors += 1;
            if (firstErrors.length < 5) firstErrors.push(error instanceof Error ? error.message : String(error));
          }
          if (n % 25 === 0) await sample();
        }
      };
      await Promise.all(Array.from({ length: 4 }, () => worker()));
      await sample();
      const start = floorOf(samples.filter((s) => s.at <= 0.1).map((s) => s.heapMb));
      const end = floorOf(samples.filter((s) => s.at >= 0.9).map((s) => s.heapMb));
      const growth = start === null || end === null ? null : end - start;
      const result = {
        ok: errors === 0 && growth !== null,
        description: `${documents} distinct documents, each with ~900 KB of undeclared variables, 4 connections, MAX_VARIABLES_BYTES 1 MiB`,
        documents,
        errors,
        firstErrors,
        heapFloorStartMb: start === null ? null : round(start, 1),
        heapFloorEndMb: end === null ? null : round(end, 1),
        heapGrowthMb: growth === null ? null : round(growth, 1),
        targets: { heapGrowthWithin50Mb: growth === null ? null : growth <= 50, zeroErrors: errors === 0 },
      };
      log(
        `distinct-documents: ${documents} documents, ${errors} errors, heap floor ${result.heapFloorStartMb} -> ${result.heapFloorEndMb} MB`,
      );
      bench.record('distinct-documents', result);
    } finally {
      await bench.stopServer(gateway);
    }
  },
};
