import { SITE_DOCUMENT_ENCODINGS } from '../../src/config';
import { canonicalJson } from '../../src/domains/site-documents/json-pieces';
import { chunkValue, prepareValue } from '../../src/domains/site-documents/site-document.codec';
import { FIXTURE_IDS, realisticCatalogue } from '../../src/simulator';
import type { Scenario } from '../lib/bench';
import { log, round } from '../lib/bench';
import { graphqlHeaders, postGraphQL, simRequests, sleep } from '../lib/http';
import type { GraphQLReply } from '../lib/http';
import { stopService } from '../lib/processes';
import { companyPage, scenarioLimit, startLimitedSimulator } from './rate-limited';

/** The writing key (a fresh generated premium key of character 1; its secret is `<key>-secret`). */
const WRITER_KEY = 'sim-key-800101';
/** A second fresh key for the cold read: its own budget and an empty cache, the same slots. */
const READER_KEY = 'sim-key-800102';
/** Added latency of the scenario's simulator, ms. */
const LATENCY_MS = 20;
/** Option slots of a company. */
const SLOTS = 10;
/** The company written to: the farm of the fixtures, whose ten slots are all free. */
const FACTORY = FIXTURE_IDS.farm;

const SET = `mutation Set($input: SetSiteDocumentInput!) {
  setSiteDocument(input: $input) { upstreamWrites committed retryAfterSeconds document { version bytes slots } }
}`;
const READ = `query Read($id: ID!) { factory(id: $id) { siteDocument(name: "catalogue") { version bytes slots value } } }`;

interface SetReply {
  upstreamWrites: number;
  committed: boolean;
  retryAfterSeconds: number | null;
  document: { version: number; bytes: number; slots: number[] };
}

/** The largest realistic catalogue (items) whose chunks fit `SLOTS - 1` slots in `encoding`, and its bytes. */
function capacity(encoding: (typeof SITE_DOCUMENT_ENCODINGS)[number]): {
  items: number;
  bytes: number;
  writeMs: number;
} {
  const fits = (items: number): boolean =>
    chunkValue(prepareValue('c', realisticCatalogue(items), encoding).pieces, encoding).length <= SLOTS - 1;
  let low = 1;
  let high = 2000;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (fits(mid)) low = mid;
    else high = mid - 1;
  }
  const value = prepareValue('c', realisticCatalogue(200), encoding);
  const started = performance.now();
  const chunks = chunkValue(value.pieces, encoding).length;
  const writeMs = performance.now() - started;
  log(
    `site-documents: ${encoding}: the 200-item catalogue takes ${chunks} chunks; ${low} items fit ${SLOTS - 1} chunk slots`,
  );
  return { items: low, bytes: prepareValue('c', realisticCatalogue(low), encoding).bytes, writeMs: round(writeMs, 1) };
}

function setBody(value: unknown): string {
  return JSON.stringify({ query: SET, variables: { input: { factoryId: FACTORY, name: 'catalogue', value } } });
}

function payloadOf(reply: GraphQLReply, what: string): SetReply {
  const data = reply.json.data as { setSiteDocument?: SetReply } | undefined;
  if (!data?.setSiteDocument)
    throw new Error(`site-documents: ${what} failed: HTTP ${reply.status} ${reply.text.slice(0, 300)}`);
  return data.setSiteDocument;
}

/**
 * site-documents: a realistic catalogue (200 items with names, prices, descriptions and
 * image URLs, about 44 KB of JSON) written as a site document on a simulator of its own
 * limited to 10 requests per rolling 60 s (`--quick`: 6 s; 20 ms latency), through a gateway with its
 * defaults (`UPSTREAM_RATE_LIMIT=10/60`, patience 1500 ms). Measures: the JSON bytes that fit
 * ten slots per encoding (offline, with the codec; `--quick`: the default encoding only); the first write's upstream writes
 * against the minimum (chunks + 1) and its time to commit against the budget floor
 * (ceil((reads + writes) / 10 - 1) x 60 s); a one-item change's writes against the minimum
 * (changed chunks + 1: the replaced chunks are freed by the commit, not written); a cold
 * read's upstream reads (a second fresh key, same slots) against the minimum (the
 * committing slot + chunks); a busy key's one-item change, right after a page view of the
 * same key, with the commit its answer promised (`retryAfterSeconds`) beside the actual one
 * (target: within 5 s); and upstream 429s. `ok` is false on a failed write or read, a
 * value read back different, or an upstream 429.
 */
export const siteDocuments: Scenario = {
  name: 'site-documents',
  profilable: false,
  async run(bench) {
    const LIMIT = scenarioLimit(bench);
    // The denser encodings' searches take minutes of brotli (quality 11): the full run only.
    const measured = bench.args.quick ? SITE_DOCUMENT_ENCODINGS.slice(0, 1) : SITE_DOCUMENT_ENCODINGS;
    const encodings = Object.fromEntries(measured.map((encoding) => [encoding, capacity(encoding)]));
    const sim = await startLimitedSimulator(bench, 'simulator-site-documents');
    try {
      const gateway = await bench.startGateway(
        'gateway-site-documents',
        { STATEV_BASE_URL: `${sim.origin}/req`, UPSTREAM_RATE_LIMIT: `${LIMIT.requests}/${LIMIT.windowSeconds}` },
        { pinned: true },
      );
      try {
        const url = `${gateway.origin}/graphql`;
        const writer = { ...graphqlHeaders(WRITER_KEY, false), 'x-api-secret': `${WRITER_KEY}-secret` };
        const catalogue = realisticCatalogue(200);
        const requestsOf = async (
          label: string,
          route?: string,
        ): Promise<Array<{ status: number; at: number; route: string }>> =>
          (await simRequests(sim.origin)).requests.filter(
            (request) => request.keyLabel === label && (route === undefined || request.route === route),
          );
        const waitForWrites = async (count: number, maxMs: number): Promise<number> => {
          const started = performance.now();
          while (performance.now() - started < maxMs) {
            const posts = (await requestsOf('generated', 'POST /factory/options')).filter(
              (request) => request.status === 200,
            );
            if (posts.length >= count) return Math.max(...posts.map((request) => request.at));
            await sleep(250);
          }
          throw new Error(`site-documents: ${count} writes did not arrive within ${maxMs} ms`);
        };

        // First write: ten reads find the free slots, then one write per chunk and the commit.
        const firstSent = Date.now();
        const first = payloadOf(await postGraphQL(url, setBody(catalogue), writer, 30_000), 'the first write');
        const firstAnswerMs = Date.now() - firstSent;
        const chunks = first.document.slots.length - 1;
        const firstCommittedAt = await waitForWrites(chunks + 1, bench.args.quick ? 150_000 : 200_000);
        const firstWrites = (await requestsOf('generated', 'POST /factory/options')).length;
        const firstReads = (await requestsOf('generated', 'GET /factory/options/{id}/{slot}')).length;
        const firstSeconds = (firstCommittedAt - firstSent) / 1000;
        const firstFloor =
          Math.max(0, Math.ceil((firstReads + firstWrites) / LIMIT.requests - 1)) * LIMIT.windowSeconds;

        // A one-item change: the slots are cached (written through), so it reads nothing.
        const changed = structuredClone(catalogue);
        changed.items[120] = { ...changed.items[120]!, price: 999.99 };
        const before = await requestsOf('generated');
        const changeSent = Date.now();
        const change = payloadOf(
          await postGraphQL(url, setBody(changed), { ...writer, prefer: 'wait=10' }, 30_000),
          'the one-item change',
        );
        const previousSlots = new Set(first.document.slots);
        const nextSlots = new Set(change.document.slots);
        const changedChunks = change.document.slots.slice(1).filter((slot) => !previousSlots.has(slot)).length;
        // Slots of the first version the change's commit freed: free from then on, never written.
        const freedByCommit = first.document.slots.filter((slot) => !nextSlots.has(slot)).length;
        const changeCommittedAt = change.committed
          ? Date.now()
          : await waitForWrites(firstWrites + changedChunks + 1, 120_000);
        await sleep(500);
        const changeRequests = (await requestsOf('generated')).slice(before.length);
        const changeWrites = changeRequests.filter((request) => request.route === 'POST /factory/options').length;
        const changeReads = changeRequests.filter(
          (request) => request.route === 'GET /factory/options/{id}/{slot}',
        ).length;

        // A cold read: another key (its own empty cache and budget), the same slots. Its
        // upstream reads are those between its request and its answer (the writer's key is
        // a generated key too, and the busy-key phase below reads a slot of it).
        const readSent = performance.now();
        const readStartedAt = Date.now();
        const read = await postGraphQL(
          url,
          JSON.stringify({ query: READ, variables: { id: FACTORY } }),
          graphqlHeaders(READER_KEY, false),
          30_000,
        );
        const readEndedAt = Date.now();
        const readMs = performance.now() - readSent;
        const readDoc = (
          read.json.data as
            { factory?: { siteDocument?: { version: number; value: unknown; slots: number[] } } } | undefined
        )?.factory?.siteDocument;
        const readEqual = readDoc !== undefined && canonicalJson(readDoc.value) === canonicalJson(changed);

        // A busy key: a one-item change right after a page view of the same key, whose fill
        // and background work are queued on the key's budget. Its answer promises a commit
        // (committed, or retryAfterSeconds); the simulator's log says when it came.
        await postGraphQL(
          url,
          JSON.stringify({ query: companyPage(), variables: { id: FACTORY } }),
          graphqlHeaders(WRITER_KEY, false),
          30_000,
        );
        const busyValue = structuredClone(changed);
        busyValue.items[40] = { ...busyValue.items[40]!, price: 111.11 };
        const postsBeforeBusy = (await requestsOf('generated', 'POST /factory/options')).filter(
          (request) => request.status === 200,
        ).length;
        const busySent = Date.now();
        const busy = payloadOf(await postGraphQL(url, setBody(busyValue), writer, 30_000), 'the busy-key change');
        const busyChunks = busy.document.slots.slice(1).filter((slot) => !nextSlots.has(slot)).length;
        const busyCommittedAt = busy.committed
          ? Date.now()
          : await waitForWrites(postsBeforeBusy + busyChunks + 1, 120_000);
        const busyPromisedSeconds = busy.committed ? (Date.now() - busySent) / 1000 : (busy.retryAfterSeconds ?? null);
        const busyActualSeconds = (busyCommittedAt - busySent) / 1000;
        log(
          `site-documents: busy key: a one-item change right after a page view ${busy.committed ? 'committed in its answer' : `promised retryAfterSeconds ${busy.retryAfterSeconds}`}, committed after ${round(busyActualSeconds, 1)} s`,
        );

        const all = (await simRequests(sim.origin)).requests;
        const coldReads = all.filter(
          (request) =>
            request.route === 'GET /factory/options/{id}/{slot}' &&
            request.keyLabel === 'generated' &&
            request.at >= readStartedAt &&
            request.at <= readEndedAt,
        ).length;
        const upstream429 = all.filter((request) => request.status === 429).length;

        const firstMinimum = chunks + 1;
        const changeMinimum = changedChunks + 1;
        const readMinimum = readDoc?.slots.length ?? 0;
        const result = {
          ok: read.json.errors === undefined && readEqual && upstream429 === 0 && change.document.version === 2,
          description: `a ${first.document.bytes}-byte catalogue (200 items) as a site document on the farm's ten free slots, simulator at ${LIMIT.requests}/${LIMIT.windowSeconds} s per key with ${LATENCY_MS} ms latency, gateway defaults (UPSTREAM_RATE_LIMIT=${LIMIT.requests}/${LIMIT.windowSeconds}, patience 1500 ms)`,
          capacity: {
            slotsForChunks: SLOTS - 1,
            perEncoding: encodings,
            defaultEncodingBytes: encodings['deflate-base64url']?.bytes ?? null,
          },
          firstWrite: {
            bytes: first.document.bytes,
            chunks,
            upstreamWrites: firstWrites,
            minimum: firstMinimum,
            writesVsMinimum: round(firstWrites / firstMinimum, 2),
            upstreamReads: firstReads,
            answeredAfterMs: firstAnswerMs,
            committedInAnswer: first.committed,
            retryAfterSeconds: first.retryAfterSeconds,
            committedAfterSeconds: round(firstSeconds, 1),
            floorSeconds: firstFloor,
            commitVsFloor: firstFloor === 0 ? null : round(firstSeconds / firstFloor, 2),
          },
          oneItemChange: {
            changedChunks,
            freedByCommit,
            upstreamWrites: changeWrites,
            minimum: changeMinimum,
            writesVsMinimum: round(changeWrites / changeMinimum, 2),
            upstreamReads: changeReads,
            committedInAnswer: change.committed,
            committedAfterSeconds: round((changeCommittedAt - changeSent) / 1000, 1),
          },
          busyKey: {
            description:
              'a one-item change right after a page view of the same key (its fill and background work queued): the commit its answer promised (retryAfterSeconds, or 0 when committed in the answer) and when it came',
            committedInAnswer: busy.committed,
            promisedSeconds: busyPromisedSeconds === null ? null : round(busyPromisedSeconds, 1),
            actualSeconds: round(busyActualSeconds, 1),
            lateBySeconds: busyPromisedSeconds === null ? null : round(busyActualSeconds - busyPromisedSeconds, 1),
          },
          coldRead: {
            upstreamReads: coldReads,
            minimum: readMinimum,
            readsVsMinimum: readMinimum === 0 ? null : round(coldReads / readMinimum, 2),
            latencyMs: round(readMs, 1),
            valueEqual: readEqual,
          },
          upstream429,
          targets: {
            firstWriteAtMinimum: firstWrites === firstMinimum,
            firstCommitWithin115PercentOfFloor: firstFloor > 0 && firstSeconds / firstFloor <= 1.15,
            oneItemChangeAtMinimum: changeWrites === changeMinimum,
            oneItemChangeRewritesOneChunk: changedChunks === 1,
            coldReadAtMinimum: coldReads === readMinimum,
            zeroUpstream429: upstream429 === 0,
            busyKeyPromiseHolds: busyPromisedSeconds !== null && Math.abs(busyActualSeconds - busyPromisedSeconds) <= 5,
          },
        };
        log(
          `site-documents: ${result.capacity.defaultEncodingBytes} bytes fit ten slots (deflate-base64url); first write ${firstWrites} writes (minimum ${firstMinimum}) + ${firstReads} reads, committed after ${result.firstWrite.committedAfterSeconds} s (floor ${firstFloor} s); one-item change ${changeWrites} writes (${changedChunks} chunk, minimum ${changeMinimum}; ${freedByCommit} slot freed by the commit, not written) and ${changeReads} reads; cold read ${coldReads} reads (minimum ${readMinimum}); ${upstream429} upstream 429s`,
        );
        bench.record('site-documents', result);
      } finally {
        await bench.stopServer(gateway);
      }
    } finally {
      await stopService(sim);
    }
  },
};
