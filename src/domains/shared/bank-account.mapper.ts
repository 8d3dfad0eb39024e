import { JsonObject, noteDrift } from './narrow';
import type { BankTransaction, TransactionPage } from './bank-account.type';

/** The fields every bank account shares; `vban` is made a string (the upstream sometimes sends a number: drift). */
export interface BankAccountFields {
  /** The bank account's id (`BankAccount.id`, the `{bankId}` of the transaction endpoints). */
  id: string;
  /** The account's vban (its number in the game). */
  vban: string;
  /** Balance, in the game's currency (as the upstream gives it). */
  balance: number;
  /** The owner's note on the account, or null when it has none. */
  note: string | null;
}

/** A transaction's reference; `""` (how the upstream says "no reference") is null, counted as drift. */
function referenceOf(t: JsonObject): string | null {
  const reference = t.optionalString('reference');
  if (reference !== '') return reference;
  noteDrift(`${t.path}.reference`);
  return null;
}

/** Reads the shared bank account fields of one account object. */
export function mapBankAccountFields(account: JsonObject): BankAccountFields {
  return {
    id: account.stringish('id'),
    vban: account.text('vban'),
    balance: account.numberOr('balance'),
    note: account.optionalString('note'),
  };
}

/** `TransactionsResponse` → {@link TransactionPage} (company and building variants are alike). */
export function mapTransactionPage(body: unknown): TransactionPage {
  const page = JsonObject.of(body);
  return {
    totalTransactions: page.integerOr('totalTransactions'),
    transactions: page.arrayOr('transactions', (element, path): BankTransaction => {
      const t = JsonObject.of(element, path);
      return {
        senderVban: t.optionalString('senderVban'),
        receiverVban: t.optionalString('receiverVban'),
        reference: referenceOf(t),
        amount: t.numberOr('amount'),
        timestamp: t.dateOr('timestamp'),
      };
    }),
  };
}
