/** Payments: requests by status, and transfers that matched no request, each assignable to an open request by hand. */
import { useState } from 'react';
import { gql } from './api';
import { Message, useAction, useQuery, when } from './ui';

interface PaymentRequest {
  character: string;
  reference: string;
  factoryId: string;
  amount: number;
  paid: number;
  status: string;
  note: string | null;
  createdAt: string;
  expiresAt: string | null;
}

interface Transfer {
  id: string;
  character: string;
  factoryId: string;
  amount: number;
  senderVban: string | null;
  reference: string | null;
  bookedAt: string;
}

const PAYMENTS = `query Payments { paymentRequests { character reference factoryId amount paid status note createdAt expiresAt } unmatchedTransfers { id character factoryId amount senderVban reference bookedAt } }`;
const ASSIGN = `mutation Assign($input: AssignTransferInput!) { assignTransfer(input: $input) { reference status paid } }`;
const STATUSES = ['ALL', 'PENDING', 'PARTIALLY_PAID', 'PAID', 'OVERPAID', 'EXPIRED', 'CANCELLED'] as const;

/** The payments page. */
export function Payments(): JSX.Element {
  const { data, error, reload } = useQuery<{ paymentRequests: PaymentRequest[]; unmatchedTransfers: Transfer[] }>(
    PAYMENTS,
  );
  const [status, setStatus] = useState<string>('ALL');
  const assign = useAction();
  const [chosen, setChosen] = useState<Record<string, string>>({});
  const openOf = (transfer: Transfer): PaymentRequest[] =>
    (data?.paymentRequests ?? []).filter(
      (request) =>
        request.character === transfer.character &&
        request.factoryId === transfer.factoryId &&
        (request.status === 'PENDING' || request.status === 'PARTIALLY_PAID'),
    );
  const onAssign = (transfer: Transfer, reference: string): void => {
    // As on the other pages: the lists are read again first, so the message and the lists agree.
    void assign.run(async () => {
      const answer = await gql<{ assignTransfer: { reference: string; status: string; paid: number } }>(ASSIGN, {
        input: { character: transfer.character, factoryId: transfer.factoryId, transferId: transfer.id, reference },
      });
      await reload();
      return `Assigned to ${answer.assignTransfer.reference}: now ${answer.assignTransfer.status} (paid ${answer.assignTransfer.paid}).`;
    });
  };
  const requests = (data?.paymentRequests ?? []).filter((request) => status === 'ALL' || request.status === status);
  const count = (each: string): number =>
    (data?.paymentRequests ?? []).filter((request) => each === 'ALL' || request.status === each).length;
  return (
    <section aria-labelledby="payments-title">
      <h2 id="payments-title">Payments</h2>
      <Message text={error} error />
      <p className="hint">
        Requests of the companies each key's check found (keys added on the Keys page). Read from the gateway's payment
        store: no request to the StateV API.
      </p>
      <label htmlFor="payments-status">Status</label>
      <select id="payments-status" value={status} onChange={(event) => setStatus(event.target.value)}>
        {STATUSES.map((each) => (
          <option key={each} value={each}>
            {each === 'ALL' ? 'all' : each} ({count(each)})
          </option>
        ))}
      </select>
      <div className="scroll" tabIndex={0} role="region" aria-label="Payment requests (scrolls sideways)">
        <table className="list" id="payment-requests">
          <caption>Payment requests, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Reference</th>
              <th scope="col">Character</th>
              <th scope="col">Company</th>
              <th scope="col">Amount</th>
              <th scope="col">Paid</th>
              <th scope="col">Status</th>
              <th scope="col">Created</th>
              <th scope="col">Expires</th>
            </tr>
          </thead>
          <tbody>
            {data && requests.length === 0 && (
              <tr>
                <td colSpan={8}>No payment request.</td>
              </tr>
            )}
            {requests.map((request) => (
              <tr key={`${request.character}:${request.reference}`}>
                <td>
                  <code>{request.reference}</code>
                  {request.note && <div className="hint">{request.note}</div>}
                </td>
                <td>{request.character}</td>
                <td>{request.factoryId}</td>
                <td>{request.amount}</td>
                <td>{request.paid}</td>
                <td>{request.status}</td>
                <td>{when(request.createdAt)}</td>
                <td>{when(request.expiresAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Message text={assign.message} error={assign.failed} />
      <div className="scroll" tabIndex={0} role="region" aria-label="Unmatched transfers (scrolls sideways)">
        <table className="list" id="unmatched-transfers">
          <caption>Transfers that matched no request, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Booked</th>
              <th scope="col">Character</th>
              <th scope="col">Company</th>
              <th scope="col">Amount</th>
              <th scope="col">From</th>
              <th scope="col">Reference text</th>
              <th scope="col">Assign to</th>
            </tr>
          </thead>
          <tbody>
            {data && data.unmatchedTransfers.length === 0 && (
              <tr>
                <td colSpan={7}>No unmatched transfer.</td>
              </tr>
            )}
            {data?.unmatchedTransfers.map((transfer, index) => {
              const key = `${transfer.character}:${transfer.id}:${index}`;
              const open = openOf(transfer);
              const reference = chosen[key] ?? open[0]?.reference ?? '';
              return (
                <tr key={key}>
                  <td>{when(transfer.bookedAt)}</td>
                  <td>{transfer.character}</td>
                  <td>{transfer.factoryId}</td>
                  <td>{transfer.amount}</td>
                  <td>{transfer.senderVban ?? '—'}</td>
                  <td>{transfer.reference ?? '—'}</td>
                  <td>
                    {open.length === 0 ? (
                      <span className="hint">no open request</span>
                    ) : (
                      <>
                        <select
                          aria-label={`Request to assign the transfer of ${transfer.amount} to`}
                          value={reference}
                          onChange={(event) => setChosen((current) => ({ ...current, [key]: event.target.value }))}
                        >
                          {open.map((request) => (
                            <option key={request.reference} value={request.reference}>
                              {request.reference} ({request.paid}/{request.amount})
                            </option>
                          ))}
                        </select>{' '}
                        <button type="button" disabled={assign.busy} onClick={() => onAssign(transfer, reference)}>
                          Assign
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}
