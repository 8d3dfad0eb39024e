/** Alerts (list, create, delete) and the webhook and alert delivery log with redeliver. */
import { useState } from 'react';
import { gql } from './api';
import { Message, SubmitRow, useAction, useQuery, useSubmit, when } from './ui';

interface Alert {
  id: string;
  character: string;
  kind: string;
  url: string;
  target: string;
  createdAt: string;
  lastFiredAt: string | null;
}

interface Delivery {
  id: string;
  source: string;
  url: string;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  nextAttemptAt: string | null;
  createdAt: string;
}

const ALERTS = `query Alerts { alerts { id character kind url target createdAt lastFiredAt } vaultCharacters { name } }`;
const CREATE = `mutation CreateAlert($input: CreateAlertInput!) { createAlert(input: $input) { id signingSecret } }`;
const DELETE = `mutation DeleteAlert($id: ID!) { deleteAlert(id: $id) }`;
const DELIVERIES = `query Deliveries { deliveries(first: 100) { id source url status attempts lastStatusCode nextAttemptAt createdAt } }`;
const REDELIVER = `mutation Redeliver($id: ID!) { redeliver(deliveryId: $id) { id status nextAttemptAt } }`;

const KINDS = ['STOCK_BELOW', 'TRANSACTION_ADDED', 'OUTBID', 'RENT_OVERDUE'] as const;

/** A text input with its label (empty means "not given"). */
function Field({
  id,
  label,
  value,
  set,
  type = 'text',
}: {
  id: string;
  label: string;
  value: string;
  set: (value: string) => void;
  type?: string;
}): JSX.Element {
  return (
    <>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type={type}
        value={value}
        onChange={(event) => set(event.target.value)}
        autoComplete="off"
        step={type === 'number' ? 'any' : undefined}
      />
    </>
  );
}

/** The alerts page. */
export function Alerts(): JSX.Element {
  const { data, error, reload } = useQuery<{ alerts: Alert[]; vaultCharacters: Array<{ name: string }> }>(ALERTS);
  const remove = useAction();
  const [form, setForm] = useState<Record<string, string>>({ kind: 'STOCK_BELOW', target: 'DISCORD', store: 'STORE' });
  const set = (name: string) => (value: string) => setForm((current) => ({ ...current, [name]: value }));
  const value = (name: string): string => form[name] ?? '';
  const numberOf = (name: string): number | null => (value(name) === '' ? null : Number(value(name)));
  const textOf = (name: string): string | null => (value(name) === '' ? null : value(name));

  const create = useSubmit(async () => {
    const input = {
      character: value('character') || data?.vaultCharacters[0]?.name || '',
      kind: value('kind'),
      target: value('target'),
      url: value('url'),
      ...(value('kind') === 'STOCK_BELOW'
        ? {
            factoryId: textOf('factoryId'),
            item: textOf('item'),
            store: value('store'),
            threshold: numberOf('threshold'),
          }
        : {}),
      ...(value('kind') === 'TRANSACTION_ADDED'
        ? { bankAccountId: textOf('bankAccountId'), minAmount: numberOf('minAmount') }
        : {}),
      ...(value('kind') === 'RENT_OVERDUE' ? { buildingId: textOf('buildingId'), days: numberOf('days') } : {}),
    };
    const answer = await gql<{ createAlert: { id: string; signingSecret: string | null } }>(CREATE, { input });
    await reload();
    return answer.createAlert.signingSecret
      ? `Alert ${answer.createAlert.id} created. Its signing secret, shown this once: ${answer.createAlert.signingSecret}`
      : `Alert ${answer.createAlert.id} created.`;
  });

  const kind = value('kind');
  return (
    <section aria-labelledby="alerts-title">
      <h2 id="alerts-title">Alerts</h2>
      <Message text={error} error />
      <table className="list" id="alerts">
        <caption>Alert rules</caption>
        <thead>
          <tr>
            <th scope="col">Kind</th>
            <th scope="col">Character</th>
            <th scope="col">Target</th>
            <th scope="col">Last fired</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {data?.alerts.length === 0 && (
            <tr>
              <td colSpan={5}>No alert rule yet.</td>
            </tr>
          )}
          {data?.alerts.map((alert) => (
            <tr key={alert.id}>
              <td>{alert.kind}</td>
              <td>{alert.character}</td>
              <td>
                {alert.target} {alert.url}
              </td>
              <td>{when(alert.lastFiredAt)}</td>
              <td>
                <button
                  type="button"
                  className="danger"
                  disabled={remove.busy}
                  onClick={() =>
                    void remove.run(async () => {
                      await gql(DELETE, { id: alert.id });
                      await reload();
                      return `Alert ${alert.id} deleted.`;
                    })
                  }
                >
                  Delete<span className="visually-hidden"> alert {alert.id}</span>
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Message text={remove.message} error={remove.failed} />
      <form onSubmit={create.onSubmit} aria-labelledby="create-alert-title">
        <h3 id="create-alert-title">Create an alert</h3>
        <label htmlFor="alert-character">Character</label>
        <select
          id="alert-character"
          value={value('character')}
          onChange={(event) => set('character')(event.target.value)}
        >
          {data?.vaultCharacters.map((character) => (
            <option key={character.name}>{character.name}</option>
          ))}
        </select>
        <label htmlFor="alert-kind">Watches</label>
        <select id="alert-kind" value={kind} onChange={(event) => set('kind')(event.target.value)}>
          {KINDS.map((each) => (
            <option key={each}>{each}</option>
          ))}
        </select>
        {kind === 'STOCK_BELOW' && (
          <>
            <Field id="alert-factory" label="Company id" value={value('factoryId')} set={set('factoryId')} />
            <Field id="alert-item" label="Item" value={value('item')} set={set('item')} />
            <label htmlFor="alert-store">Store</label>
            <select id="alert-store" value={value('store')} onChange={(event) => set('store')(event.target.value)}>
              <option>STORE</option>
              <option>MACHINE</option>
              <option>COUNTER</option>
            </select>
            <Field id="alert-threshold" label="Below" type="number" value={value('threshold')} set={set('threshold')} />
          </>
        )}
        {kind === 'TRANSACTION_ADDED' && (
          <>
            <Field
              id="alert-account"
              label="Bank account id"
              value={value('bankAccountId')}
              set={set('bankAccountId')}
            />
            <Field
              id="alert-min"
              label="Smallest amount"
              type="number"
              value={value('minAmount')}
              set={set('minAmount')}
            />
          </>
        )}
        {kind === 'RENT_OVERDUE' && (
          <>
            <Field id="alert-building" label="Building id" value={value('buildingId')} set={set('buildingId')} />
            <Field id="alert-days" label="Days" type="number" value={value('days')} set={set('days')} />
          </>
        )}
        <label htmlFor="alert-target">Deliver to</label>
        <select id="alert-target" value={value('target')} onChange={(event) => set('target')(event.target.value)}>
          <option value="DISCORD">a Discord webhook</option>
          <option value="WEBHOOK">a signed webhook (Standard Webhooks)</option>
        </select>
        <Field id="alert-url" label="URL" value={value('url')} set={set('url')} />
        <SubmitRow submit={create}>Create alert</SubmitRow>
      </form>
    </section>
  );
}

/** The delivery log: webhook and alert deliveries waiting in the outbox, with redeliver. */
export function Deliveries(): JSX.Element {
  const { data, error, reload } = useQuery<{ deliveries: Delivery[] }>(DELIVERIES);
  const redeliver = useAction();
  return (
    <section aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Webhook deliveries</h2>
      <Message text={error} error />
      <p>
        Payment webhook deliveries still waiting in the outbox (a delivered one leaves it). Webhooks are added with{' '}
        <code>statev-gateway webhooks add</code>.
      </p>
      <div className="scroll" tabIndex={0} role="region" aria-label="The list (scrolls sideways)">
        <table className="list" id="deliveries">
          <caption>Deliveries, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Source</th>
              <th scope="col">URL</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last status</th>
              <th scope="col">Next attempt</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {data?.deliveries.length === 0 && (
              <tr>
                <td colSpan={7}>No delivery waiting.</td>
              </tr>
            )}
            {data?.deliveries.map((delivery) => (
              <tr key={delivery.id}>
                <td>{delivery.source}</td>
                <td>{delivery.url}</td>
                <td>{delivery.status}</td>
                <td>{delivery.attempts}</td>
                <td>{delivery.lastStatusCode ?? '—'}</td>
                <td>{when(delivery.nextAttemptAt)}</td>
                <td>
                  <button
                    type="button"
                    disabled={redeliver.busy}
                    onClick={() =>
                      void redeliver.run(async () => {
                        await gql(REDELIVER, { id: delivery.id });
                        await reload();
                        return `Delivery ${delivery.id} is due now.`;
                      })
                    }
                  >
                    Redeliver<span className="visually-hidden"> {delivery.id}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Message text={redeliver.message} error={redeliver.failed} />
    </section>
  );
}
