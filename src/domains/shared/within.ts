/**
 * Waits for `job` at most `ms`: `{ done: true, value }` when it finished in time (its
 * error is thrown), `{ done: false }` when time ran out (the job goes on; its later
 * failure is the caller's to handle or ignore).
 *
 * When to use: a write that answers within the request's patience and otherwise goes on
 * in the background (`updateFactoryOption`, `setSiteDocument`).
 */
export async function within<T>(job: Promise<T>, ms: number): Promise<{ done: true; value: T } | { done: false }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<{ done: false }>((resolve) => (timer = setTimeout(() => resolve({ done: false }), ms)));
  try {
    return await Promise.race([job.then((value) => ({ done: true as const, value })), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
