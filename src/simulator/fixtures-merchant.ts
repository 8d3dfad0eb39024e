/**
 * Character 3 of the simulator's fixtures, Karl Kaufmann: a merchant with three companies
 * and twelve company bank accounts, read by the `demo-merchant-key`. It exists for
 * measurements that need many accounts of one character (the bench's `payments` scenario
 * watches ten of them); the other characters and keys are unchanged by it.
 *
 * Deterministic, like the rest of the fixtures: no randomness, no clock.
 */
import type { WireBankTransaction } from './upstream.types';

// Typed by shape, not by fixtures.ts' interfaces: fixtures.ts imports this file (and checks
// the shapes where it puts the character into the state), so importing back would be a cycle.

/** The merchant's key: premium, every scope, character 3 (label `merchant` in the request log). */
export const MERCHANT_KEY: { readonly key: string; readonly secret: string } = Object.freeze({
  key: 'demo-merchant-key',
  secret: 'demo-merchant-secret',
});

/** Character 3. The id is internal to the simulator (the API never shows it). */
export const MERCHANT_CHARACTER = Object.freeze({ id: 'character-3', name: 'Karl Kaufmann' });

/** Company ids start like the other fixtures' (24 hex digits), numbered from 0x201. */
const COMPANY = '64f1c2a9e4b0a1d2c3f4';
/** Company account ids likewise, numbered from 0x201. */
const COMPANY_ACCOUNT = '6501d3b7a2c4e5f6a7b8';

function oid(prefix: string, n: number): string {
  return prefix + n.toString(16).padStart(4, '0');
}

/** How many company bank accounts each of the merchant's companies has, in list order. */
const ACCOUNTS_PER_COMPANY = [6, 3, 3] as const;

/** The ids of the merchant's companies and of their twelve bank accounts (in list order). */
export const MERCHANT_IDS = Object.freeze({
  /** 'Kaufmann Handelskontor' (wholesale): accounts 1 to 6. */
  tradingHouse: oid(COMPANY, 0x201),
  /** 'Kaufmann Logistik': accounts 7 to 9. */
  logistics: oid(COMPANY, 0x202),
  /** 'Kaufmanns Marktstand': accounts 10 to 12. */
  marketStall: oid(COMPANY, 0x203),
  /** The twelve company accounts, vban '4713001' to '4713012', 3 transactions each. */
  accounts: Object.freeze(Array.from({ length: 12 }, (_, i) => oid(COMPANY_ACCOUNT, 0x201 + i))),
});

/** Reference instant of the fixtures (see `FIXTURE_NOW`): 2024-05-15T12:00:00.000Z. */
const NOW = Date.parse('2024-05-15T12:00:00.000Z');

/** Three bookings of account `n` (1-based), newest first: two payments in, one out. */
function transactions(own: string, n: number): WireBankTransaction[] {
  const at = (hours: number): string => new Date(NOW - hours * 3_600_000).toISOString();
  return [
    {
      senderVban: `47341${String(n).padStart(2, '0')}`,
      receiverVban: own,
      reference: `Rechnung ${1000 + n}`,
      amount: 150 + n * 10,
      timestamp: at(2 + n),
    },
    { senderVban: own, receiverVban: '4790010', reference: 'Wareneinkauf', amount: 90 + n, timestamp: at(30 + n) },
    { senderVban: null, receiverVban: own, reference: 'Bareinzahlung', amount: 500, timestamp: at(60 + n) },
  ];
}

function account(n: number) {
  const vban = `4713${String(n).padStart(3, '0')}`;
  const txs = transactions(vban, n);
  return {
    id: MERCHANT_IDS.accounts[n - 1] ?? oid(COMPANY_ACCOUNT, 0x200 + n),
    vban,
    balance: 5000 + n * 250,
    note: `Konto ${n}`,
    transactions: txs,
  };
}

function company(
  id: string,
  name: string,
  hash: string,
  type: string,
  address: string,
  firstAccount: number,
  accounts: number,
) {
  return {
    id,
    name,
    hash,
    adLine: null,
    isOpen: true,
    type,
    address,
    inventory: [{ item: 'Kiste', amount: 40, singleWeight: 2 }],
    machineStore: [],
    counter: [],
    productions: [],
    bankAccounts: Array.from({ length: accounts }, (_, i) => account(firstAccount + i)),
    vehicles: [],
    sellOffers: [],
    buyOffers: [],
    buyLog: [],
    options: {},
  };
}

/** A fresh copy of character 3 and everything it owns (no buildings, no auctions). */
export function merchantCharacter() {
  const [first, second, third] = ACCOUNTS_PER_COMPANY;
  return {
    id: MERCHANT_CHARACTER.id,
    name: MERCHANT_CHARACTER.name,
    companies: [
      company(
        MERCHANT_IDS.tradingHouse,
        'Kaufmann Handelskontor',
        'k4f1a201',
        'Großhandel',
        'Port of Los Santos 1',
        1,
        first,
      ),
      company(
        MERCHANT_IDS.logistics,
        'Kaufmann Logistik',
        'k4f1a202',
        'Spedition',
        'Elysian Island 9',
        1 + first,
        second,
      ),
      company(
        MERCHANT_IDS.marketStall,
        'Kaufmanns Marktstand',
        'k4f1a203',
        'Marktstand',
        'Legion Square 3',
        1 + first + second,
        third,
      ),
    ],
    buildings: [],
    auctions: { myImport: [], myExport: [], available: { import: [], export: [] } },
  };
}
