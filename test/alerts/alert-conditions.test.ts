/**
 * When a rule fires, as the conditions' pure functions decide it: each kind once per
 * occurrence, not again while the condition holds, again after it ended; a rule whose
 * condition holds at its first poll fires then; the occurrence keys (the end of the event
 * ids) are the same for the same occurrence, so a replay is a duplicate.
 */
import { evaluateOutbid, evaluateRent, evaluateStock, evaluateTransactions } from '../../src/alerts/alert-conditions';
import type { Evaluation, RuleState, SeenAuction, SeenTransfer } from '../../src/alerts/alert-conditions';

const STOCK = { factoryId: 'f1', item: 'Wasser', store: 'STORE' as const, threshold: 10 };

/** Runs polls one after the other from an empty state; returns the occurrence keys of each poll. */
function run<T>(
  polls: readonly T[],
  evaluate: (state: RuleState, poll: T) => Evaluation,
  state: RuleState = {},
): { fired: string[][]; state: RuleState } {
  const fired: string[][] = [];
  for (const poll of polls) {
    const evaluation = evaluate(state, poll);
    fired.push(evaluation.firings.map((firing) => firing.occurrence));
    state = evaluation.state;
  }
  return { fired, state };
}

const stock = (amount: number | null): Array<{ item: string; amount: number }> =>
  amount === null
    ? [{ item: 'Kaffee', amount: 5 }]
    : [
        { item: 'Wasser', amount: amount / 2 },
        { item: 'Wasser', amount: amount / 2 },
      ];

describe('STOCK_BELOW', () => {
  it('fires once on crossing below, not while below, again after being back at or above', () => {
    const { fired } = run([20, 10, 9, 5, 9, 10, 12, 3, 2], (state, amount) =>
      evaluateStock(STOCK, state, stock(amount)),
    );
    expect(fired).toEqual([[], [], ['stock:1'], [], [], [], [], ['stock:2'], []]);
  });

  it('counts an item that disappeared as 0, and gives its amount in the facts', () => {
    const first = evaluateStock(STOCK, {}, stock(15));
    const gone = evaluateStock(STOCK, first.state, stock(null));
    expect(gone.firings).toHaveLength(1);
    expect(gone.firings[0]?.facts).toMatchObject({
      kind: 'STOCK_BELOW',
      item: 'Wasser',
      amount: 0,
      threshold: 10,
      store: 'STORE',
      factoryId: 'f1',
    });
  });

  it('fires at the first poll when the amount is already below', () => {
    expect(run([4, 4, 3], (state, amount) => evaluateStock(STOCK, state, stock(amount))).fired).toEqual([
      ['stock:1'],
      [],
      [],
    ]);
  });

  it('neither repeats nor misses across a restart (the state kept is all it needs)', () => {
    const before = run([20, 5], (state, amount) => evaluateStock(STOCK, state, stock(amount)));
    const kept: RuleState = JSON.parse(JSON.stringify(before.state)) as RuleState;
    expect(run([5, 20, 1], (state, amount) => evaluateStock(STOCK, state, stock(amount)), kept).fired).toEqual([
      [],
      [],
      ['stock:2'],
    ]);
  });
});

describe('TRANSACTION_ADDED', () => {
  const CREATED = Date.parse('2026-01-01T00:00:00Z');
  const tx = (amount: number, minute: number, reference = 'Einkauf'): SeenTransfer => ({
    amount,
    senderVban: '4711',
    receiverVban: '4712',
    reference,
    timestamp: new Date(CREATED + minute * 60_000),
  });

  it('fires once per new transaction, counting identical transfers as a multiset', () => {
    const a = tx(50, 1);
    const b = tx(70, 2);
    const polls = [[a], [a, b], [a, b, b], [a, b, b], [b, b]];
    const { fired } = run(polls, (state, page) =>
      evaluateTransactions({ bankAccountId: 'acc', minAmount: 0 }, state, page, CREATED),
    );
    expect(fired.map((each) => each.length)).toEqual([1, 1, 1, 0, 0]);
    expect(new Set(fired.flat()).size).toBe(3);
  });

  it('leaves out transactions booked before the rule, and those under minAmount (absolute value)', () => {
    const old = tx(500, -5);
    const small = tx(-3, 1);
    const large = tx(-300, 2);
    const evaluation = evaluateTransactions({ bankAccountId: 'acc', minAmount: 100 }, {}, [old, small, large], CREATED);
    expect(evaluation.firings.map((firing) => firing.facts)).toEqual([
      expect.objectContaining({ kind: 'TRANSACTION_ADDED', amount: -300, bankAccountId: 'acc' }),
    ]);
  });

  it('gives the same occurrence key to the same transaction, whatever state it starts from', () => {
    const page = [tx(50, 1)];
    const first = evaluateTransactions({ bankAccountId: 'acc' }, {}, page, CREATED).firings[0]?.occurrence;
    const again = evaluateTransactions({ bankAccountId: 'acc' }, {}, page, CREATED).firings[0]?.occurrence;
    expect(first).toBeDefined();
    expect(again).toBe(first);
  });
});

describe('OUTBID', () => {
  const auction = (leading: boolean, id = 'a1'): SeenAuction => ({
    id,
    item: 'Stahl',
    bidAmount: 100,
    auctionEnd: new Date('2026-02-01T00:00:00Z'),
    isLastBidderMe: leading,
  });

  it('fires once when isLastBidderMe turns false, again after leading again and losing again', () => {
    const polls = [[auction(true)], [auction(false)], [auction(false)], [auction(true)], [auction(false)]];
    const { fired } = run(polls, (state, list) => evaluateOutbid(state, list, 'IMPORT'));
    expect(fired.map((each) => each.length)).toEqual([0, 1, 0, 0, 1]);
    expect(fired[1]).not.toEqual(fired[4]);
  });

  it('fires at the first poll for an auction already lost, not for one led', () => {
    const { fired } = run([[auction(false, 'a1'), auction(true, 'a2')]], (state, list) =>
      evaluateOutbid(state, list, 'EXPORT'),
    );
    expect(fired).toEqual([[expect.stringMatching(/^outbid:EXPORT:/)]]);
  });
});

describe('RENT_OVERDUE', () => {
  const NOW = Date.parse('2026-03-01T00:00:00Z');
  const DAY = 86_400_000;
  const tenant = (name: string, daysAgo: number): { roomId: string; tenantName: string; lastPayDate: Date } => ({
    roomId: `r-${name}`,
    tenantName: name,
    lastPayDate: new Date(NOW - daysAgo * DAY),
  });

  it('fires once per tenant and overdue period; a payment starts a new period', () => {
    const params = { buildingId: 'b1', days: 7 };
    const first = evaluateRent(params, {}, [tenant('Lena', 10), tenant('Tom', 3)], NOW);
    expect(first.firings.map((firing) => firing.facts)).toEqual([
      expect.objectContaining({ kind: 'RENT_OVERDUE', tenant: 'Lena', days: 10 }),
    ]);
    expect(evaluateRent(params, first.state, [tenant('Lena', 10), tenant('Tom', 3)], NOW + DAY).firings).toHaveLength(
      0,
    );
    // Lena pays (a new lastPayDate), then is overdue again 8 days later: a new period.
    const paid = evaluateRent(params, first.state, [{ ...tenant('Lena', 0) }, tenant('Tom', 3)], NOW);
    expect(paid.firings).toHaveLength(0);
    const later = evaluateRent(params, paid.state, [tenant('Lena', 0), tenant('Tom', 3)], NOW + 8 * DAY);
    expect(later.firings.map((firing) => (firing.facts as { tenant: string }).tenant).sort()).toEqual(['Lena', 'Tom']);
  });

  it('names the missing scope when no tenant has a lastPayDate', () => {
    expect(
      evaluateRent({ buildingId: 'b1', days: 7 }, {}, [{ roomId: 'r', tenantName: 'X', lastPayDate: null }], NOW)
        .problem,
    ).toMatch(/building\.tenants\.activity/);
  });
});
