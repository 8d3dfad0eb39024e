/**
 * When a rule fires, as pure functions of the rule's last state and one poll: each returns
 * the facts of the events (with a stable occurrence key, the end of the event id) and the
 * state to keep. The state is what makes a restart neither repeat nor miss an event; the
 * occurrence key is what makes a replay a duplicate.
 *
 * - STOCK_BELOW: once per crossing from at or above the threshold to below it (an item that
 *   is gone counts as 0); not again while below; again after being back at or above it.
 * - TRANSACTION_ADDED: once per new transaction, counted as payments count transfers (per
 *   identity, the most occurrences any one poll saw: two identical transfers on one page
 *   count twice, one seen again counts once); transactions booked before the rule was
 *   created are not new.
 * - OUTBID: once each time `isLastBidderMe` turns false for an auction of the character
 *   (an auction first seen already lost counts).
 * - RENT_OVERDUE: once per tenant and overdue period: the period is the tenant's
 *   `lastPayDate`; a new payment starts a new one.
 *
 * A rule created while its condition holds fires at its first poll (its state starts empty).
 */
import { createHash } from 'node:crypto';
import { transferFingerprint } from '../domains/payments/payment-request.store';
import type { AlertParams } from '../vault';
import type { AlertFacts } from './alert-event';

/** What a rule remembers between polls (per rule and polled resource), JSON. */
export interface RuleState {
  /** STOCK_BELOW: below the threshold at the last poll. */
  below?: boolean;
  /** STOCK_BELOW: crossings below so far (the occurrence key). */
  crossings?: number;
  /** TRANSACTION_ADDED: per transfer identity, the most occurrences one poll saw, and its booking time (ms). */
  seen?: Record<string, { readonly n: number; readonly t: number }>;
  /** TRANSACTION_ADDED: the account's `totalTransactions` at the last poll (how many arrived since: see alert-feeds.ts). */
  total?: number;
  /** OUTBID: per auction, whether the character led at the last poll, and how often it was outbid. */
  auctions?: Record<string, { readonly leading: boolean; readonly outbids: number }>;
  /** RENT_OVERDUE: per tenant, the `lastPayDate` of the period already reported. */
  reported?: Record<string, string>;
  /** When the rule last fired on this resource (ISO 8601). */
  firedAt?: string;
}

/** One event a poll gives: its facts and its occurrence key (stable for the same occurrence). */
export interface Firing {
  /** Unique per rule and occurrence, e.g. `stock:3`. */
  readonly occurrence: string;
  /** What happened. */
  readonly facts: AlertFacts;
}

/** A poll's outcome for a rule. */
export interface Evaluation {
  /** The events, in order. */
  readonly firings: Firing[];
  /** The state to keep. */
  readonly state: RuleState;
  /** Why the rule cannot work as it stands (e.g. a scope its key lacks), for the log. */
  readonly problem?: string;
}

/** Transfer identities a rule keeps (the newest by booking time): more than one poll's window ever shows. */
const SEEN_KEPT = 500;

/** A short, stable digest of a text for an occurrence key (never holds a name or reference in clear). */
function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 16);
}

/** Rounds away float noise of summed amounts. */
function clean(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/**
 * STOCK_BELOW over one poll of a store: the summed amount of the rule's item (0 when absent).
 *
 * @param items - the store's stacks or the counter's items
 * @param factoryName - the company's name, or null when the gateway does not have it at hand; asked only when the rule fires
 */
export function evaluateStock(
  params: AlertParams,
  state: RuleState,
  items: ReadonlyArray<{ readonly item: string; readonly amount: number }>,
  factoryName: () => string | null = () => null,
): Evaluation {
  const threshold = params.threshold ?? 0;
  const amount = clean(items.filter((each) => each.item === params.item).reduce((sum, each) => sum + each.amount, 0));
  const below = amount < threshold;
  if (!below) return { firings: [], state: { below: false, crossings: state.crossings ?? 0 } };
  if (state.below === true) return { firings: [], state };
  const crossings = (state.crossings ?? 0) + 1;
  return {
    firings: [
      {
        occurrence: `stock:${crossings}`,
        facts: {
          kind: 'STOCK_BELOW',
          factoryId: params.factoryId ?? '',
          factoryName: factoryName(),
          store: params.store ?? 'STORE',
          item: params.item ?? '',
          amount,
          threshold,
        },
      },
    ],
    state: { below: true, crossings },
  };
}

/** A transaction as the rule reads it. */
export interface SeenTransfer {
  /** The amount, signed as the upstream sends it. */
  readonly amount: number;
  /** The sender's VBAN, or null. */
  readonly senderVban: string | null;
  /** The receiver's VBAN, or null. */
  readonly receiverVban: string | null;
  /** The reference, or null. */
  readonly reference: string | null;
  /** When it was booked. */
  readonly timestamp: Date;
}

/**
 * TRANSACTION_ADDED over one poll of an account: its newest page, and the further pages when
 * more arrived since the last poll than a page holds (alert-feeds.ts reads them).
 *
 * @param createdAt - when the rule was created, ms: older transactions are not new
 */
export function evaluateTransactions(
  params: AlertParams,
  state: RuleState,
  transactions: readonly SeenTransfer[],
  createdAt: number,
): Evaluation {
  const seen: Record<string, { n: number; t: number }> = { ...state.seen };
  const counts = new Map<string, number>();
  const firings: Firing[] = [];
  for (const t of [...transactions].sort((a, b) => a.timestamp.getTime() - b.timestamp.getTime())) {
    const at = t.timestamp.getTime();
    const fingerprint = transferFingerprint({
      amount: t.amount,
      senderVban: t.senderVban,
      reference: t.reference,
      timestamp: at,
    });
    const occurrence = (counts.get(fingerprint) ?? 0) + 1;
    counts.set(fingerprint, occurrence);
    if ((seen[fingerprint]?.n ?? 0) >= occurrence) continue;
    seen[fingerprint] = { n: occurrence, t: at };
    if (at < createdAt || Math.abs(t.amount) < (params.minAmount ?? 0)) continue;
    firings.push({
      occurrence: `tx:${digest(fingerprint)}:${occurrence}`,
      facts: {
        kind: 'TRANSACTION_ADDED',
        bankAccountId: params.bankAccountId ?? '',
        factoryName: null,
        amount: t.amount,
        sender: t.senderVban,
        receiver: t.receiverVban,
        reference: t.reference,
        at: t.timestamp.toISOString(),
      },
    });
  }
  const kept = Object.entries(seen)
    .sort((a, b) => b[1].t - a[1].t)
    .slice(0, SEEN_KEPT);
  return { firings, state: { seen: Object.fromEntries(kept) } };
}

/** An auction of the character as the rule reads it. */
export interface SeenAuction {
  /** The auction's id. */
  readonly id: string;
  /** The item. */
  readonly item: string;
  /** The current bid. */
  readonly bidAmount: number;
  /** When it ends. */
  readonly auctionEnd: Date;
  /** Whether the character placed the last bid. */
  readonly isLastBidderMe: boolean;
}

/** OUTBID over one poll of the character's import or export auctions. */
export function evaluateOutbid(
  state: RuleState,
  auctions: readonly SeenAuction[],
  type: 'IMPORT' | 'EXPORT',
): Evaluation {
  const before = state.auctions ?? {};
  const after: Record<string, { leading: boolean; outbids: number }> = {};
  const firings: Firing[] = [];
  for (const auction of auctions) {
    const previous = before[auction.id];
    let outbids = previous?.outbids ?? 0;
    if (!auction.isLastBidderMe && previous?.leading !== false) {
      outbids += 1;
      firings.push({
        occurrence: `outbid:${type}:${digest(auction.id)}:${outbids}`,
        facts: {
          kind: 'OUTBID',
          auctionId: auction.id,
          auctionType: type,
          item: auction.item,
          currentBid: auction.bidAmount,
          endsAt: auction.auctionEnd.toISOString(),
        },
      });
    }
    after[auction.id] = { leading: auction.isLastBidderMe, outbids };
  }
  return { firings, state: { auctions: after } };
}

/** A tenant as the rule reads it. */
export interface SeenTenant {
  /** The room. */
  readonly roomId: string;
  /** The tenant's name. */
  readonly tenantName: string;
  /** The last payment, or null (without the scope `building.tenants.activity`). */
  readonly lastPayDate: Date | null;
}

/** A day, ms. */
const DAY_MS = 86_400_000;

/** RENT_OVERDUE over one poll of a building's tenants, at `now` (ms). */
export function evaluateRent(
  params: AlertParams,
  state: RuleState,
  tenants: readonly SeenTenant[],
  now: number,
  buildingName: string | null = null,
): Evaluation {
  const days = params.days ?? 1;
  const reported: Record<string, string> = {};
  const firings: Firing[] = [];
  for (const tenant of tenants) {
    if (tenant.lastPayDate === null) continue;
    const key = `${tenant.roomId}|${tenant.tenantName}`;
    const period = tenant.lastPayDate.toISOString();
    const previous = state.reported?.[key];
    if (previous !== undefined && previous === period) {
      reported[key] = period;
      continue;
    }
    if (now - tenant.lastPayDate.getTime() <= days * DAY_MS) continue;
    reported[key] = period;
    firings.push({
      occurrence: `rent:${digest(key)}:${period}`,
      facts: {
        kind: 'RENT_OVERDUE',
        buildingId: params.buildingId ?? '',
        buildingName,
        tenant: tenant.tenantName,
        lastPayDate: period,
        days: Math.floor((now - tenant.lastPayDate.getTime()) / DAY_MS),
      },
    });
  }
  const blind = tenants.length > 0 && tenants.every((tenant) => tenant.lastPayDate === null);
  return {
    firings,
    state: { reported },
    ...(blind
      ? {
          problem:
            'its key lacks the scope building.tenants.activity (the tenants come without lastPayDate): it cannot fire',
        }
      : {}),
  };
}
