/**
 * The vault's records as the administration graph's types: a token as listed, an alert rule.
 * Neither holds a key, secret or token.
 */
import type { TokenSummary } from '../vault/vault';
import type { AlertRuleView } from '../alerts/alert-admin';
import { AccessTokenSummary } from './admin-types';
import { Alert, AlertKind, AlertTargetKind } from './alert-types';

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
