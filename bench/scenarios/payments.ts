import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { MERCHANT_KEY } from '../../src/simulator';
import type { Scenario } from '../lib/bench';
import { log, ROOT, round } from '../lib/bench';
import { graphqlHeaders, postGraphQL, simRequests, simReset, sleep } from '../lib/http';
import { startVaultGateway } from './shared';
import type { VaultSettings } from './shared';

/** The simulator's merchant key, which no other scenario uses: character 3, twelve company accounts. */
const KEY = MERCHANT_KEY.key;
/** Accounts with open requests in the second budget phase. */
const MANY_ACCOUNTS = 10;
const TRANSACTIONS_ROUTE = 'GET /factory/transactions/{bankId}/{limit}/{skip}';
const CREATE = `mutation($i: CreatePaymentRequestInput!) { createPaymentRequest(input: $i) { reference } }`;
const EVENTS = `subscription($f: ID!) { paymentReceived(factoryId: $f) { kind request { reference } } }`;

interface Account {
  factoryId: string;
  bankAccountId: string;
}

function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? null;
}

/**
 * payments: payment requests on a key with the upstream's budget (10 requests per 60 s,
 * polls may use half) and the default transactions interval (60 s). `--quick` runs the
 * same ratios ten times faster (10 per 6 s, interval 6 s). The key is the simulator's
 * merchant (twelve company accounts). Reports the time from a transfer appearing upstream
 * to its PAID event (target ≤ interval + 5 s, scaled), and the upstream requests per hour
 * (counted over 6 intervals, `--quick` 2) with open requests on 1 account and on 10
 * (10 polls per interval would need twice the key's polling share, 5 per window: the
 * intervals stretch to 120 s, docs/payments.md). Webhook delivery latency: the key is in a
 * vault of the scenario's own, with a webhook (`webhooks add`) to a receiver on 127.0.0.1;
 * for each transfer, the time from the transfer to the signed POST naming its reference.
 */
export const payments: Scenario = {
  name: 'payments',
  async run(bench) {
    const scale = bench.args.quick ? 0.1 : 1;
    const windowSeconds = 60 * scale;
    const intervalSeconds = 60 * scale;
    const transfers = bench.args.quick ? 2 : 3;
    /** Intervals the upstream requests are counted over, per phase. */
    const countedIntervals = bench.args.quick ? 2 : 6;
    // A vault of its own holding the key, for the webhook (the CLI of the built gateway).
    const cli = (vaultEnv: VaultSettings, args: string[], input = ''): string =>
      execFileSync(process.execPath, [join(ROOT, 'dist', 'src', 'main.js'), ...args], {
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...vaultEnv },
        input,
        encoding: 'utf8',
      });
    const started = await startVaultGateway(bench, {
      name: 'gateway-payments',
      key: KEY,
      settings: {
        UPSTREAM_RATE_LIMIT: `10/${windowSeconds}`,
        CACHE_TTL_ACTIVITY_SECONDS: String(intervalSeconds),
        CACHE_TTL_BANK_ACCOUNTS_SECONDS: String(Math.max(1, 120 * scale)),
      },
      addKey: (env) => cli(env, ['keys', 'add', 'bench'], `${KEY}\n${KEY}-secret\n`),
    });
    // The receiver's POSTs: when each arrived, and its body.
    const { url, posts, client } = started;
    const headers = graphqlHeaders(KEY, false);
    const call = async (query: string, variables: Record<string, unknown>): Promise<Record<string, unknown>> => {
      const reply = await postGraphQL(url, JSON.stringify({ query, variables }), headers, 60_000);
      const body = JSON.parse(reply.text) as { data?: Record<string, unknown>; errors?: unknown[] };
      if (!body.data || body.errors) throw new Error(`payments: ${reply.text.slice(0, 300)}`);
      return body.data;
    };
    const create = async (account: Account, amount: number): Promise<string> =>
      (
        (await call(CREATE, { i: { factoryId: account.factoryId, bankAccountId: account.bankAccountId, amount } }))
          .createPaymentRequest as { reference: string }
      ).reference;
    const pay = async (account: Account, amount: number, reference: string): Promise<void> => {
      const response = await fetch(`${bench.sim.origin}/__sim/change`, {
        method: 'POST',
        body: JSON.stringify({
          kind: 'transaction',
          bankAccountId: account.bankAccountId,
          amount,
          reference: `Order ${reference.toLowerCase()}`,
          otherVban: '4799001',
        }),
      });
      if (!response.ok) throw new Error(`POST /__sim/change answered ${response.status}`);
    };
    try {
      const factories = (await call('{ factories { id bankAccounts { id } } }', {})).factories as Array<{
        id: string;
        bankAccounts: Array<{ id: string }> | null;
      }>;
      const accounts: Account[] = factories.flatMap((factory) =>
        (factory.bankAccounts ?? []).map((account) => ({ factoryId: factory.id, bankAccountId: account.id })),
      );
      const first = accounts[0];
      if (!first || accounts.length < MANY_ACCOUNTS)
        throw new Error(`payments: the key has ${accounts.length} company accounts, ${MANY_ACCOUNTS} needed`);
      cli(started.vaultEnv, [
        'webhooks',
        'add',
        '--character',
        'bench',
        '--factory',
        first.factoryId,
        '--url',
        started.receiverUrl('/hook'),
      ]);
      await sleep(1500); // the running gateway reads the vault again within 1 s

      // Transfer → PAID, on one account kept watched by an open request that is never paid.
      const paidAt = new Map<string, number>();
      client.subscribe(
        { query: EVENTS, variables: { f: first.factoryId } },
        {
          next: (result) => {
            const event = (
              result.data as { paymentReceived?: { kind: string; request: { reference: string } } } | undefined
            )?.paymentReceived;
            if (event?.kind === 'PAID') paidAt.set(event.request.reference, Date.now());
          },
          error: () => undefined,
          complete: () => undefined,
        },
      );
      await create(first, 1_000_000);
      const latencies: number[] = [];
      const webhookLatencies: number[] = [];
      for (let i = 0; i < transfers; i += 1) {
        const reference = await create(first, 10 + i);
        // A transfer at a different point of the poll cycle each time.
        await sleep(((i + 0.5) / transfers) * intervalSeconds * 1000);
        const sentAt = Date.now();
        await pay(first, 10 + i, reference);
        for (let waited = 0; !paidAt.has(reference) && waited < (intervalSeconds * 3 + 10) * 1000; waited += 50)
          await sleep(50);
        const at = paidAt.get(reference);
        if (at !== undefined) latencies.push(at - sentAt);
        const posted = (): number | undefined =>
          posts.find((post) => post.text.includes(reference) && post.text.includes('PAID'))?.at;
        for (let waited = 0; posted() === undefined && waited < 15_000; waited += 50) await sleep(50);
        const postedAt = posted();
        if (postedAt !== undefined) webhookLatencies.push(postedAt - sentAt);
      }
      latencies.sort((a, b) => a - b);
      webhookLatencies.sort((a, b) => a - b);

      // Upstream requests with open requests on 1 account, then on 10.
      const perHour = async (count: number): Promise<number> => {
        for (const account of accounts.slice(0, count)) await create(account, 1_000_000);
        // The new pollers' first polls settle (10 of them take two windows of the key's polling share).
        await sleep(intervalSeconds * (count > 5 ? 2000 : 500));
        await simReset(bench.sim.origin);
        const start = Date.now();
        await sleep(intervalSeconds * 1000 * countedIntervals);
        const polls = (await simRequests(bench.sim.origin)).requests.filter(
          (r) => r.route === TRANSACTIONS_ROUTE && r.at >= start,
        ).length;
        return round((polls * 3_600_000) / (Date.now() - start) / (bench.args.quick ? 10 : 1), 0);
      };
      const oneAccount = await perHour(1);
      const manyAccounts = await perHour(MANY_ACCOUNTS);
      const max = latencies.at(-1) ?? null;
      const targetMs = (intervalSeconds + 5 * scale) * 1000;
      const result = {
        ok: latencies.length === transfers && max !== null && max <= targetMs,
        description: `payment requests on one key, budget 10 per ${windowSeconds} s (polls may use half), transactions interval ${intervalSeconds} s${bench.args.quick ? ' (--quick: the real 60 s scaled by 0.1)' : ''}`,
        transferToPaidMs: {
          p50: percentile(latencies, 50),
          max,
          intervalMs: intervalSeconds * 1000,
          targetMs,
          measured: latencies.length,
          of: transfers,
        },
        upstreamRequestsPerHour: {
          oneAccount,
          tenAccounts: manyAccounts,
          oneAccountExpected: 60,
          tenAccountsExpected: Math.round((3600 / 60) * 5),
          countedOverIntervals: countedIntervals,
          note: "per hour at the real 60 s scale; 10 accounts need 10 polls per window, the key's polling share allows 5: intervals stretch to 120 s",
        },
        webhookDeliveryLatencyMs: {
          p50: percentile(webhookLatencies, 50),
          max: webhookLatencies.at(-1) ?? null,
          measured: webhookLatencies.length,
          of: transfers,
          note: 'from the transfer appearing upstream to the signed POST naming it, at a receiver on 127.0.0.1',
        },
      };
      log(
        `payments: transfer → PAID p50 ${result.transferToPaidMs.p50} ms, max ${max} ms (interval ${intervalSeconds * 1000} ms, target ≤ ${targetMs}); webhook p50 ${result.webhookDeliveryLatencyMs.p50} ms, max ${result.webhookDeliveryLatencyMs.max} ms (${webhookLatencies.length}/${transfers}); upstream/h 1 account ${oneAccount}, ${MANY_ACCOUNTS} accounts ${manyAccounts}`,
      );
      bench.record('payments', result);
    } finally {
      await started.close();
    }
  },
};
