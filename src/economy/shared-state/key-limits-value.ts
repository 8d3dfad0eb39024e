import type { LearnedAllowance, SharedKeyLimits } from './shared-state';

/**
 * A key's shared limits as one Redis value: `until` alone (older replicas, or set by
 * hand), or `until:allowance:learnedAt` (epoch ms, requests per window, epoch ms). A
 * cooldown stored by another replica (or by hand) is believed only up to `latestUntil`;
 * a value that does not parse means no cooldown and no learned allowance.
 */
export function parseKeyLimits(text: string | null, latestUntil: number): SharedKeyLimits {
  const [untilText, allowanceText, learnedText] = (text ?? '0').split(':');
  const until = Number(untilText);
  const allowance = allowanceText === undefined ? null : Number(allowanceText);
  const learnedAt = Number(learnedText ?? 0);
  const validAllowance =
    allowance !== null && Number.isInteger(allowance) && allowance >= 1 && Number.isFinite(learnedAt);
  return {
    cooldownUntil: Number.isFinite(until) ? Math.min(until, latestUntil) : 0,
    allowance: validAllowance ? allowance : null,
    learnedAt: Number.isFinite(learnedAt) ? learnedAt : 0,
  };
}

/**
 * The value {@link parseKeyLimits} reads, and how long Redis keeps it (ms): until the
 * cooldown ends (capped at `maxCooldownMs` from `now`) or as long as the learned allowance
 * is kept, whichever is longer.
 */
export function keyLimitsValue(
  untilMs: number,
  now: number,
  maxCooldownMs: number,
  learned?: LearnedAllowance,
): { value: string; ttl: number } {
  const until = Math.min(untilMs, now + maxCooldownMs);
  const ttl = Math.max(1, Math.round(until - now), Math.round(learned?.keepMs ?? 0));
  return { value: learned ? `${until}:${learned.allowance}:${learned.learnedAt}` : String(until), ttl };
}
