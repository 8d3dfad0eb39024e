/** Small pieces every page uses: a message line, a hook that loads a query, dates. */
import { useCallback, useEffect, useState } from 'react';
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

/** Runs a mutation from a form: busy flag, and the message to show after it. */
export function useAction(): {
  busy: boolean;
  message: string | null;
  failed: boolean;
  run: (action: () => Promise<string>) => Promise<boolean>;
} {
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  const run = useCallback(async (action: () => Promise<string>) => {
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
  return { busy, message, failed, run };
}

/** A date as the page shows it, or a dash. */
export function when(value: string | null | undefined): string {
  return value ? new Date(value).toLocaleString() : '—';
}
