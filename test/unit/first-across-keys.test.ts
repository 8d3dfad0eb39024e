/**
 * A lookup over every key of a token over several characters (`perCharacter: 'find'`):
 * the first answer wins; when none answers, a key's `NOT_FOUND` (the object is not that
 * key's) gives way to another key's error, so cancelling a payment request no longer open
 * answers its owner's `CONFLICT`.
 */
import { GatewayError } from '../../src/errors/gateway-error';
import { firstAcrossKeys, Owners } from '../../src/domains/shared/owners';
import type { KeyPart } from '../../src/domains/shared/owners';

const part = (id: string): KeyPart => ({
  character: { id, name: id },
  context: { id } as unknown as KeyPart['context'],
});
const owners = new Owners([part('first'), part('second'), part('third')]);
const idOf = (context: unknown): string => (context as { id: string }).id;

it('answers with the first key that answers, whatever the others throw', async () => {
  await expect(
    firstAcrossKeys(owners, (context) =>
      idOf(context) === 'second' ? { id: 'r1' } : Promise.reject(new GatewayError('NOT_FOUND', 'not mine')),
    ),
  ).resolves.toEqual({ id: 'r1' });
});

it("lets another key's error win over a key's NOT_FOUND, and keeps the first of the others", async () => {
  const errors: Record<string, GatewayError> = {
    first: new GatewayError('NOT_FOUND', 'not mine'),
    second: new GatewayError('CONFLICT', 'no longer open'),
    third: new GatewayError('RATE_LIMITED', 'later'),
  };
  await expect(firstAcrossKeys(owners, (context) => Promise.reject(errors[idOf(context)]))).rejects.toBe(errors.second);
  await expect(
    firstAcrossKeys(owners, (context) =>
      idOf(context) === 'third' ? null : Promise.reject(new GatewayError('NOT_FOUND', idOf(context))),
    ),
  ).rejects.toMatchObject({ message: 'first' });
});
