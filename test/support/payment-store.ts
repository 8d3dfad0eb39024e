/**
 * Store options for payment tests: a MAC key of the test process (the same for every store
 * it opens, so a file store reopened in the test verifies its own records), the default
 * bound, and the refused records collected for assertions.
 */
import { randomBytes } from 'node:crypto';
import type { PaymentStoreOptions } from '../../src/domains/payments/payment-request.store';
import { RecordMac } from '../../src/vault';

/** The master key of the test process (base64, as `VAULT_MASTER_KEY`). */
export const TEST_MASTER_KEY = randomBytes(32).toString('base64');

/** Options of a test store; `refused` collects what the store refused. */
export function testStoreOptions(
  overrides: Partial<PaymentStoreOptions> = {},
): PaymentStoreOptions & { refused: string[] } {
  const refused: string[] = [];
  return {
    mac: RecordMac.fromSetting(TEST_MASTER_KEY),
    keptPerCompany: 1000,
    onRefused: (what) => refused.push(what),
    ...overrides,
    refused,
  };
}
