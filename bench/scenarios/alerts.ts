/**
 * alerts: alert rules ride the subscriptions' pollers. A gateway with a vault holding one
 * generated simulator key (character 1: four companies, every one a subscription
 * `inventoryChanged`), then 100 STOCK_BELOW rules over those companies' stores, to a
 * signed webhook on a receiver at 127.0.0.1. Reports the upstream requests over the same
 * number of poll intervals without and with the rules, and the requests beyond one poll per
 * resource per interval (`extraUpstreamRequests`, target 0),
 * and the time from a stock change in the simulator to the receiver's first POST
 * (`detectionMs`, target ≤ the poll interval + 5 s). The stock interval
 * (`CACHE_TTL_STOCK_SECONDS`) is 10 s, `--quick` 3 s.
 */
import { MasterKeys, Vault } from '../../src/vault';
import { FileVaultStorage } from '../../src/vault/storage';
import type { Scenario } from '../lib/bench';
import { log, round } from '../lib/bench';
import { graphqlHeaders, postGraphQL, simRequests, sleep } from '../lib/http';
import type { SimRequest } from '../lib/http';
import { startVaultGateway } from './shared';
import type { VaultSettings } from './shared';

const RULES = 100;
/** A generated key no other scenario uses (character 1, premium, every scope). */
const KEY = 'sim-key-970001';
const DETECTION_SLACK_MS = 5000;
const SUBSCRIBE =
  'subscription($f: ID!) { inventoryChanged(factoryId: $f) { factoryId changes { item before after } } }';

interface Company {
  readonly id: string;
  readonly items: ReadonlyArray<{ readonly item: string; readonly amount: number }>;
}

export const alerts: Scenario = {
  name: 'alerts',
  async run(bench) {
    const intervalSeconds = bench.args.quick ? 3 : 10;
    const intervalMs = intervalSeconds * 1000;
    /** Poll intervals each phase counts requests over. */
    const intervals = bench.args.quick ? 3 : 4;
    const vaultOf = (env: VaultSettings): Vault =>
      new Vault(new FileVaultStorage(env.VAULT_FILE), MasterKeys.parse(env.VAULT_MASTER_KEY));
    const started = await startVaultGateway(bench, {
      name: 'gateway-alerts',
      key: KEY,
      settings: { CACHE_TTL_STOCK_SECONDS: String(intervalSeconds) },
      addKey: (env) => vaultOf(env).addKey('bench', KEY, `${KEY}-secret`),
    });
    const { url, posts, client } = started;
    const vault = vaultOf(started.vaultEnv);
    try {
      const reply = await postGraphQL(
        url,
        JSON.stringify({ query: '{ factories { id inventory { items { item amount } } } }' }),
        graphqlHeaders(KEY, false),
        60_000,
      );
      const body = JSON.parse(reply.text) as {
        data?: { factories?: Array<{ id: string; inventory: { items: Company['items'] } | null }> };
      };
      const companies: Company[] = (body.data?.factories ?? []).map((factory) => ({
        id: factory.id,
        items: factory.inventory?.items ?? [],
      }));
      const stocked = companies.filter((company) => company.items.length > 0);
      if (stocked.length === 0)
        throw new Error(`alerts: the key's companies have no stock: ${reply.text.slice(0, 300)}`);

      // One subscription per company: these pollers are the baseline.
      const subscriptionEvents: number[] = [];
      for (const company of companies) {
        client.subscribe(
          { query: SUBSCRIBE, variables: { f: company.id } },
          { next: () => subscriptionEvents.push(Date.now()), error: () => undefined, complete: () => undefined },
        );
      }
      const inventoryPolls = async (): Promise<SimRequest[]> =>
        (await simRequests(bench.sim.origin)).requests.filter(
          (request) => request.route === 'GET /factory/inventory/{id}',
        );
      // Wait for the first polls of every company, then align the windows half an interval after a poll.
      let firstPollAt = 0;
      for (let waited = 0; waited < 30_000 && firstPollAt === 0; waited += 200) {
        await sleep(200);
        const polls = await inventoryPolls();
        if (new Set(polls.map((poll) => poll.path)).size >= companies.length)
          firstPollAt = Math.max(...polls.map((poll) => poll.at));
      }
      if (firstPollAt === 0) throw new Error('alerts: the subscriptions did not poll every company within 30 s');
      const windowA = firstPollAt + intervalMs * 1.5;
      const windowB = windowA + intervals * intervalMs;
      const windowEnd = windowB + intervals * intervalMs;
      await sleep(Math.max(0, windowB - Date.now()));

      // The rules, added at the start of the second window (the gateway reads the vault again within 1 s):
      // spread over the stocked companies' items, each at a threshold the item's amount meets (none fires);
      // the first rule's threshold is its item's amount, so taking one unit fires it and only it.
      const webhook = started.receiverUrl('/alerts');
      const firing = stocked[0]?.items[0];
      const firingCompany = stocked[0];
      if (!firing || !firingCompany) throw new Error('alerts: no stocked item');
      for (let index = 0; index < RULES; index += 1) {
        const company = stocked[index % stocked.length] as Company;
        const item = company.items[
          Math.floor(index / stocked.length) % company.items.length
        ] as Company['items'][number];
        const threshold = index === 0 ? item.amount : Math.min(1, item.amount);
        await vault.addAlert({
          character: 'bench',
          kind: 'STOCK_BELOW',
          params: { factoryId: company.id, item: item.item, store: 'STORE', threshold },
          target: 'WEBHOOK',
          url: webhook,
        });
      }
      const rulesAddedMs = Date.now() - windowB;
      await sleep(Math.max(0, windowEnd - Date.now()));
      const all = await simRequests(bench.sim.origin);
      const inWindow = (from: number, to: number): SimRequest[] =>
        all.requests.filter((request) => request.at >= from && request.at < to);
      /**
       * Requests beyond one poll per resource per interval: a resource the subscriptions do not
       * poll, or one read again sooner than half an interval after its previous request. Phase-free,
       * unlike the difference of the totals (a poll at a window's edge falls on either side).
       */
      const baseline = new Set(inWindow(windowA, windowB).map((request) => request.path));
      const extra = (from: number, to: number): number =>
        inWindow(from, to).filter((request) => {
          if (!baseline.has(request.path)) return true;
          const previous = all.requests.filter((other) => other.path === request.path && other.at < request.at).at(-1);
          return previous !== undefined && request.at - previous.at < intervalMs / 2;
        }).length;
      const withoutRules = inWindow(windowA, windowB).length;
      const withRules = inWindow(windowB, windowEnd).length;
      const extraWithoutRules = extra(windowA, windowB);
      const extraUpstreamRequests = extra(windowB, windowEnd);
      const postsBeforeChange = posts.length;

      // Take one unit of the first rule's item, halfway between two polls, and wait for the first POST.
      const changedAt = Date.now();
      const change = await fetch(`${bench.sim.origin}/__sim/change`, {
        method: 'POST',
        body: JSON.stringify({ kind: 'stock', factoryId: firingCompany.id, item: firing.item, delta: -1 }),
      });
      if (!change.ok) throw new Error(`alerts: POST /__sim/change answered ${change.status}`);
      await change.arrayBuffer();
      for (let waited = 0; waited < intervalMs + 15_000 && posts.length === postsBeforeChange; waited += 50)
        await sleep(50);
      const first = posts[postsBeforeChange];
      const detectionMs = first ? first.at - changedAt : null;
      await sleep(500); // a second POST of the same change would show here
      const result = {
        ok:
          extraUpstreamRequests === 0 &&
          extraWithoutRules === 0 &&
          postsBeforeChange === 0 &&
          detectionMs !== null &&
          detectionMs <= intervalMs + DETECTION_SLACK_MS,
        description: `${RULES} STOCK_BELOW rules over the ${companies.length} companies one generated simulator key has (character 1; ${stocked.length} with stock), each company also with one inventoryChanged subscription: upstream requests over ${intervals} poll intervals without and with the rules, and the time from a stock change to the webhook's first POST`,
        companies: companies.length,
        rules: RULES,
        pollIntervalSeconds: intervalSeconds,
        countedIntervals: intervals,
        upstreamRequests: { withoutRules, withRules },
        extraWithoutRules,
        extraUpstreamRequests,
        rulesAddedMs,
        postsBeforeChange,
        detectionMs: detectionMs === null ? null : round(detectionMs),
        detectionTargetMs: intervalMs + DETECTION_SLACK_MS,
        postsAfterChange: posts.length - postsBeforeChange,
        firstPostMentionsItem: first ? first.text.includes(firing.item) : false,
        subscriptionEvents: subscriptionEvents.length,
      };
      log(
        `alerts: ${RULES} rules over ${companies.length} companies: upstream requests over ${intervals} intervals of ${intervalSeconds} s ${withoutRules} without, ${withRules} with rules (extra ${extraUpstreamRequests}); change → first POST ${result.detectionMs ?? 'none'} ms (target ≤ ${result.detectionTargetMs})`,
      );
      bench.record('alerts', result);
    } finally {
      await started.close();
    }
  },
};
