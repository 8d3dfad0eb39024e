import { JsonObject } from './narrow';
import type { BankTransaction, TransactionPage } from './bank-account.type';

/** The fields every bank account shares; `vban` is made a string (the upstream sometimes sends a number). */
export interface BankAccountFields {
  id: string;
  vban: string;
  balance: number;
  note: string | null;
}

/** Reads the shared bank account fields of one account object. */
export function mapBankAccountFields(account: JsonObject): BankAccountFields {
  return {
    id: account.stringish('id'),
    vban: account.stringish('vban'),
    balance: account.number('balance'),
    note: account.optionalString('note'),
  };
}

/** `TransactionsResponse` → {@link TransactionPage} (company and building variants are alike). */
export function mapTransactionPage(body: unknown): TransactionPage {
  const page = JsonObject.of(body);
  return {
    totalTransactions: page.integer('totalTransactions'),
    transactions: page.array('transactions', (element, path): BankTransaction => {
      const t = JsonObject.of(element, path);
      return {
        senderVban: t.has('senderVban') ? t.stringish('senderVban') : null,
        receiverVban: t.has('receiverVban') ? t.stringish('receiverVban') : null,
        reference: t.optionalString('reference'),
        amount: t.number('amount'),
        timestamp: t.date('timestamp'),
      };
    }),
  };
}
