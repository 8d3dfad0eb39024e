/** Small pieces every page uses: a message line, a hook that loads a query, a form's submit, dates. */
import { useCallback, useEffect, useState } from 'react';
import type { FormEvent, ReactNode } from 'react';
import { describeError, gql } from './api';

/** A message under a form: polite status, or an alert for a failure. */
export function Message({ text, error }: { text: string | null; error?: boolean }): JSX.Element | null {
  if (text === null) return null;
  return error ? (
    <p className="message error" role="alert">
      {text}
    </p>
  ) : (
    <p className="message" role="status">
      {text}
    </p>
  );
}

/** A query's state: its data, the failure's sentence, and a reload. */
export function useQuery<T>(
  query: string,
  variables: Record<string, unknown> = {},
): { data: T | null; error: string | null; reload: () => Promise<void> } {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const key = JSON.stringify(variables);
  const reload = useCallback(async () => {
    try {
      setData(await gql<T>(query, JSON.parse(key) as Record<string, unknown>));
      setError(null);
    } catch (failure) {
      setError(describeError(failure));
    }
  }, [query, key]);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { data, error, reload };
}

/**
 * Runs a mutation from a form: busy flag, and the message to show after it (none when the
 * action answers null). `say` shows a message without running anything (a check before
 * the action, a step under way).
 */
export function useAction(): {
  busy: boolean;
  message: string | null;
  failed: boolean;
  run: (action: () => Promise<string | null>) => Promise<boolean>;
  say: (text: string | null, failed?: boolean) => void;
} {
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  const run = useCallback(async (action: () => Promise<string | null>) => {
    setBusy(true);
    try {
      setMessage(await action());
      setFailed(false);
      return true;
    } catch (failure) {
      setMessage(describeError(failure));
      setFailed(true);
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  const say = useCallback((text: string | null, failure = false) => {
    setMessage(text);
    setFailed(failure);
  }, []);
  return { busy, message, failed, run, say };
}

/** A form's submit: `useAction`'s state, and `onSubmit`, which keeps the page from reloading and runs the action. */
export type Submit = ReturnType<typeof useAction> & { onSubmit: (event: FormEvent) => void };

/**
 * The submit of a form: `action` runs through `useAction` (its message is shown by `SubmitRow`).
 * An action that changes what the page lists reads it again before it answers its message, so
 * the message and the lists agree.
 */
export function useSubmit(action: () => Promise<string | null>): Submit {
  const state = useAction();
  const onSubmit = (event: FormEvent): void => {
    event.preventDefault();
    void state.run(action);
  };
  return { ...state, onSubmit };
}

/** A form's submit button (disabled while it runs) and the message of its last run. */
export function SubmitRow({ submit, children }: { submit: Submit; children: ReactNode }): JSX.Element {
  return (
    <>
      <button type="submit" disabled={submit.busy}>
        {children}
      </button>
      <Message text={submit.message} error={submit.failed} />
    </>
  );
}

/** A date as the page shows it, or a dash. */
export function when(value: string | null | undefined): string {
  return value ? new Date(value).toLocaleString() : '—';
}
