/**
 * The stores' records as the administration graph's types: a token as listed, an alert rule,
 * an unmatched transfer, a payment webhook's pending delivery. None holds a key, secret or
 * token (a delivery's URL is elided).
 */
import type { OutboxEntry, StoredTransfer } from '../domains/payments/payment-request.store';
import { elideUrl } from '../upstream/outbound-url';
import type { TokenSummary } from '../vault/vault';
import type { AlertRuleView } from '../alerts/alert-admin';
import { AccessTokenSummary, Delivery, DeliveryStatus } from './admin-types';
import { Alert, AlertKind, AlertTargetKind } from './alert-types';
import { transferId } from './payment-assign';
import { AdminUnmatchedTransfer } from './payment-types';

/** A vault token as the graph's summary of it. */
export function summary(token: TokenSummary): AccessTokenSummary {
  return Object.assign(new AccessTokenSummary(), {
    id: token.id,
    characters: [...token.characters],
    grants: [...token.grants],
    createdAt: token.createdAt,
    expiresAt: token.expiresAt,
    revokedAt: token.revokedAt,
    lastUsedAt: token.lastUsedAt,
    origin: token.origin,
    budgetShare: token.budgetShare,
    label: token.label,
  });
}

/** An alert rule as the graph's type. */
export function alertOf(view: AlertRuleView): Alert {
  return Object.assign(new Alert(), { ...view, kind: AlertKind[view.kind], target: AlertTargetKind[view.target] });
}

/** An unmatched transfer of `character`'s company `factoryId`, with its stable id (payment-assign.ts). */
export function unmatchedOf(character: string, factoryId: string, transfer: StoredTransfer): AdminUnmatchedTransfer {
  return Object.assign(new AdminUnmatchedTransfer(), {
    id: transferId(transfer),
    character,
    factoryId,
    amount: transfer.amount,
    senderVban: transfer.senderVban,
    reference: transfer.reference,
    bookedAt: new Date(transfer.timestamp),
  });
}

/** A payment webhook's outbox entry as a pending delivery (its URL elided). */
export function outboxDelivery(entry: OutboxEntry): Delivery {
  return Object.assign(new Delivery(), {
    id: entry.id,
    source: `webhook:${entry.webhookId}`,
    url: elideUrl(entry.url),
    status: DeliveryStatus.PENDING,
    attempts: entry.attempts,
    lastStatusCode: null,
    nextAttemptAt: new Date(entry.nextAt),
    createdAt: new Date(entry.firstAt),
  });
}
