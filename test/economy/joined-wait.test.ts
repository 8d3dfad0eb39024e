/**
 * Joined waits: an operation joining a flight queued for budget gives up after its
 * patience and is released by the flight at once, not when the flight is finally sent
 * (a flight may stay queued for a minute while thousands of operations, e.g. live
 * queries opened and closed, join it and give up).
 */
import { ENDPOINTS } from '../../src/upstream/endpoints';
import { awaitJoined, joinedWaiters } from '../../src/economy/queue/joined-wait';
import { QueueTicket } from '../../src/economy/queue/queue-ticket';

/** A flight that settles when the test says so. */
function pendingFlight(): { flight: Promise<string>; resolve: (value: string) => void } {
  let resolve: (value: string) => void = () => undefined;
  const flight = new Promise<string>((settle) => (resolve = settle));
  return { flight, resolve };
}

function queuedTicket(): QueueTicket {
  const ticket = new QueueTicket('missed');
  ticket.markQueued();
  ticket.expectedAt = Date.now() + 60_000;
  return ticket;
}

describe('awaitJoined', () => {
  it('releases a waiter whose patience ran out while the flight stays queued', async () => {
    const { flight, resolve } = pendingFlight();
    const ticket = queuedTicket();
    const waits = Array.from({ length: 100 }, () =>
      awaitJoined(flight, ticket, ENDPOINTS.factoryCounter, { patienceMs: 0, now: () => Date.now() }),
    );
    const outcomes = await Promise.allSettled(waits);

    expect(
      outcomes.every(
        (outcome) => outcome.status === 'rejected' && (outcome.reason as { code?: string }).code === 'RATE_LIMITED',
      ),
    ).toBe(true);
    // Nothing of the 100 operations is left on the flight that is still queued.
    expect(joinedWaiters(flight)).toBe(0);
    resolve('sent at last');
    await flight;
    expect(joinedWaiters(flight)).toBe(0);
  });

  it('keeps a patient waiter until the flight settles, then tells it the answer and releases it', async () => {
    const { flight, resolve } = pendingFlight();
    const ticket = queuedTicket();
    const impatient = awaitJoined(flight, ticket, ENDPOINTS.factoryCounter, { patienceMs: 0, now: () => Date.now() });
    const patient = awaitJoined(flight, ticket, ENDPOINTS.factoryCounter, {
      patienceMs: 60_000,
      now: () => Date.now(),
    });
    await expect(impatient).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    expect(joinedWaiters(flight)).toBe(1);

    ticket.markSent();
    resolve('answer');
    await expect(patient).resolves.toBe('answer');
    expect(joinedWaiters(flight)).toBe(0);
  });
});
