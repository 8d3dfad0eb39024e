/**
 * Live data for the simulator: single changes (tests apply them one at a time through
 * `Simulator.change` or `POST /__sim/change`) and the `--live` schedule that applies a
 * pseudo-random one every few seconds, so subscriptions have something to report.
 *
 * Every change keeps the data's own rules: amounts never go below 0 (an item at 0
 * leaves the store), prices stay positive with two decimals, a transaction moves the
 * account's balance and comes first (newest first), bids only rise, and a room is
 * occupied exactly when it has a tenant.
 */
import { FIXTURE_NOW, round2 } from './fixtures';
import type { FixtureBuilding, FixtureCharacter, FixtureCompany, FixtureItem, FixtureState } from './fixtures';

/** One change of the simulated data. */
export type SimulatorChange =
  /** Adds `delta` units of `item` to a company store (`store`, default) or machine store; a new item weighs 1 per unit. */
  | { kind: 'stock'; factoryId: string; store?: 'store' | 'machine'; item: string; delta: number }
  /** Sets the amount and/or price of a counter item (amount 0 removes it; a new item needs a price). */
  | { kind: 'counter'; factoryId: string; item: string; amount?: number; price?: number }
  /** Books a transaction on a company or building account (positive: money in), now. */
  | { kind: 'transaction'; bankAccountId: string; amount: number; reference?: string | null; otherVban?: string | null }
  /** Sets the bid of one of a character's own auctions (import or export). */
  | { kind: 'bid'; auctionId: string; bidAmount: number; isLastBidderMe: boolean }
  /** Ends one of a character's own auctions (it leaves the list). */
  | { kind: 'endAuction'; auctionId: string }
  /** Rents a room to `tenant`, frees it (`tenant: null`), and/or sets its rent. */
  | { kind: 'room'; roomId: string; tenant?: string | null; rent?: number }
  /** Writes an option slot as the game's portal does (no secret, no budget), e.g. to seed a site document; bounds as `POST /factory/options`. */
  | { kind: 'option'; factoryId: string; slot: number; title: string; data: string };

/** Thrown for a change that names nothing or breaks the data's rules; the control endpoint answers 400. */
export class ChangeError extends Error {}

function companies(state: FixtureState): FixtureCompany[] {
  return state.characters.flatMap((character) => character.companies);
}

function buildings(state: FixtureState): FixtureBuilding[] {
  return state.characters.flatMap((character) => character.buildings);
}

function companyOf(state: FixtureState, id: string): FixtureCompany {
  const found = companies(state).find((company) => company.id === id);
  if (!found) throw new ChangeError(`no company ${id}`);
  return found;
}

function addStock(items: FixtureItem[], item: string, delta: number): void {
  const stack = items.find((entry) => entry.item === item);
  if (!stack) {
    if (delta <= 0) throw new ChangeError(`no ${item} to take from`);
    items.push({ item, amount: delta, singleWeight: 1 });
    return;
  }
  const amount = stack.amount + delta;
  if (amount < 0) throw new ChangeError(`only ${stack.amount} ${item} in store`);
  if (amount === 0) items.splice(items.indexOf(stack), 1);
  else stack.amount = amount;
}

/**
 * Applies one change to the state in place, at time `now` (epoch ms, for transactions).
 *
 * @throws ChangeError when the change names nothing known or breaks a rule.
 */
export function applyChange(state: FixtureState, change: SimulatorChange, now: number): void {
  switch (change.kind) {
    case 'stock': {
      if (!Number.isFinite(change.delta) || change.delta === 0)
        throw new ChangeError('delta must be a non-zero number');
      const company = companyOf(state, change.factoryId);
      addStock(change.store === 'machine' ? company.machineStore : company.inventory, change.item, change.delta);
      return;
    }
    case 'counter': {
      const company = companyOf(state, change.factoryId);
      const entry = company.counter.find((item) => item.item === change.item);
      if (change.amount !== undefined && (!Number.isFinite(change.amount) || change.amount < 0))
        throw new ChangeError('amount must be ≥ 0');
      if (change.price !== undefined && (!Number.isFinite(change.price) || change.price <= 0))
        throw new ChangeError('price must be > 0');
      if (!entry) {
        if (change.price === undefined || !change.amount)
          throw new ChangeError(`${change.item} is not on the counter: give amount and price`);
        company.counter.push({
          item: change.item,
          amount: change.amount,
          price: round2(change.price),
          singleWeight: 1,
        });
        return;
      }
      if (change.price !== undefined) entry.price = round2(change.price);
      if (change.amount === 0) company.counter.splice(company.counter.indexOf(entry), 1);
      else if (change.amount !== undefined) entry.amount = change.amount;
      return;
    }
    case 'transaction': {
      if (!Number.isFinite(change.amount) || change.amount === 0)
        throw new ChangeError('amount must be a non-zero number');
      const account = [...companies(state), ...buildings(state)]
        .flatMap((owner) => owner.bankAccounts)
        .find((each) => each.id === change.bankAccountId);
      if (!account) throw new ChangeError(`no bank account ${change.bankAccountId}`);
      const own = String(account.vban);
      const other = change.otherVban ?? null;
      account.transactions.unshift({
        senderVban: change.amount > 0 ? other : own,
        receiverVban: change.amount > 0 ? own : other,
        reference: change.reference ?? null,
        amount: Math.abs(round2(change.amount)),
        timestamp: new Date(now).toISOString(),
      });
      account.balance = round2(account.balance + change.amount);
      return;
    }
    case 'bid': {
      const auction = ownAuctions(state).find((each) => each.id === change.auctionId);
      if (!auction) throw new ChangeError(`no own auction ${change.auctionId}`);
      if (!(change.bidAmount >= auction.bidAmount)) throw new ChangeError(`bids only rise (now ${auction.bidAmount})`);
      auction.bidAmount = round2(change.bidAmount);
      auction.isLastBidderMe = change.isLastBidderMe;
      return;
    }
    case 'endAuction': {
      for (const character of state.characters) {
        for (const list of [character.auctions.myImport, character.auctions.myExport] as Array<Array<{ id: string }>>) {
          const index = list.findIndex((each) => each.id === change.auctionId);
          if (index >= 0) {
            list.splice(index, 1);
            return;
          }
        }
      }
      throw new ChangeError(`no own auction ${change.auctionId}`);
    }
    case 'room': {
      const room = buildings(state)
        .flatMap((each) => each.rooms)
        .find((each) => each.id === change.roomId);
      if (!room) throw new ChangeError(`no room ${change.roomId}`);
      if (change.rent !== undefined) {
        if (!Number.isFinite(change.rent) || change.rent <= 0) throw new ChangeError('rent must be > 0');
        room.rent = round2(change.rent);
      }
      if (change.tenant !== undefined)
        room.tenant = change.tenant === null ? null : { name: change.tenant, lastPayDate: new Date(now).toISOString() };
      return;
    }
    case 'option': {
      const company = companies(state).find((each) => each.id === change.factoryId);
      if (!company) throw new ChangeError(`no company ${change.factoryId}`);
      if (!Number.isInteger(change.slot) || change.slot < 1 || change.slot > 10)
        throw new ChangeError('slot must be 1 to 10');
      if ([...change.title].length > 64 || [...change.data].length > 2400)
        throw new ChangeError('title at most 64, data at most 2400 characters');
      company.options[String(change.slot)] = {
        title: change.title,
        data: change.data,
        lastUpdated: new Date(now).toISOString(),
      };
      return;
    }
  }
}

function ownAuctions(state: FixtureState): Array<{ id: string; bidAmount: number; isLastBidderMe: boolean }> {
  return state.characters.flatMap((character: FixtureCharacter) => [
    ...character.auctions.myImport,
    ...character.auctions.myExport,
  ]);
}

/** A small deterministic PRNG (mulberry32), so a live run (or a fuzz run) can be replayed from its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TENANTS = ['Lena Koch', 'Tim Richter', 'Sara Klein', 'Ben Wolf', 'Emma Schröder'] as const;

/**
 * The next change of a live run, drawn from what the state holds now: stock sold or
 * restocked, a counter amount or price, a booking, a bid, or a room rented or freed.
 * Null when the drawn kind has nothing to change.
 */
export function randomChange(state: FixtureState, random: () => number): SimulatorChange | null {
  const pick = <T>(list: readonly T[]): T | undefined => list[Math.floor(random() * list.length)];
  const character = state.characters[0];
  if (!character) return null;
  switch (Math.floor(random() * 5)) {
    case 0: {
      const company = pick(character.companies.filter((each) => each.inventory.length > 0));
      const item = company && pick(company.inventory);
      if (!company || !item) return null;
      const delta =
        random() < 0.6 ? -Math.min(item.amount, 1 + Math.floor(random() * 5)) : 5 + Math.floor(random() * 20);
      return delta === 0 ? null : { kind: 'stock', factoryId: company.id, item: item.item, delta };
    }
    case 1: {
      const company = pick(character.companies.filter((each) => each.counter.length > 0));
      const item = company && pick(company.counter);
      if (!company || !item) return null;
      return random() < 0.7
        ? {
            kind: 'counter',
            factoryId: company.id,
            item: item.item,
            amount: Math.max(1, item.amount + (random() < 0.5 ? -1 : 3)),
          }
        : {
            kind: 'counter',
            factoryId: company.id,
            item: item.item,
            price: round2(Math.max(0.1, item.price * (0.95 + random() * 0.1))),
          };
    }
    case 2: {
      const account = pick([...character.companies, ...character.buildings].flatMap((owner) => owner.bankAccounts));
      if (!account) return null;
      const amount = round2((random() < 0.7 ? 1 : -1) * (10 + random() * 490));
      return {
        kind: 'transaction',
        bankAccountId: account.id,
        amount,
        reference: random() < 0.5 ? 'Einkauf' : 'Lieferung',
        otherVban: String(4730000 + Math.floor(random() * 1000)),
      };
    }
    case 3: {
      const auction = pick([...character.auctions.myImport, ...character.auctions.myExport]);
      if (!auction) return null;
      return {
        kind: 'bid',
        auctionId: auction.id,
        bidAmount: round2(auction.bidAmount * (1.02 + random() * 0.08)),
        isLastBidderMe: random() < 0.5,
      };
    }
    default: {
      const room = pick(character.buildings.flatMap((each) => each.rooms));
      if (!room) return null;
      return { kind: 'room', roomId: room.id, tenant: room.tenant ? null : (pick(TENANTS) ?? 'Lena Koch') };
    }
  }
}

/** Settings of the live schedule. */
export interface LiveOptions {
  /** Time between two changes, ms (default 15000). */
  intervalMs?: number;
  /** Seed of the pseudo-random changes (default 1). */
  seed?: number;
}

/**
 * Starts the live schedule: every `intervalMs`, one random change of the current
 * state. Returns the function that stops it.
 */
export function startLive(getState: () => FixtureState, options: LiveOptions = {}): () => void {
  const random = prng(options.seed ?? 1);
  const timer = setInterval(() => {
    const state = getState();
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const change = randomChange(state, random);
      if (!change) continue;
      try {
        applyChange(state, change, Math.max(Date.now(), FIXTURE_NOW));
        return;
      } catch {
        // drawn against the rules (e.g. nothing to take): draw again
      }
    }
  }, options.intervalMs ?? 15_000);
  timer.unref();
  return () => clearInterval(timer);
}
