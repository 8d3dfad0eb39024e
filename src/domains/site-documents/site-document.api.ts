/**
 * The option-slot endpoints as site documents use them: reads through the operation's
 * option loader (per-operation dedup, then the economy's per-key cache, coalescing and
 * budget), and writes through a session with write-through caching, so that reading a
 * slot after writing it costs no upstream request.
 */
import type { UpstreamSession } from '../../economy';
import { fetchOption, updateOption } from '../factories/factories.api';
import type { FactoryLoaders } from '../factories/factories.loaders';
import type { SlotReader } from './site-document.layout';
import type { SlotWriter } from './site-document.store';

/** Reads the company's slots through the operation's option loader (`GET /factory/options/{id}/{slot}`). */
export function loaderSlotReader(loaders: FactoryLoaders, factoryId: string): SlotReader {
  return { read: (slot) => loaders.option.load({ id: factoryId, slot }) };
}

/**
 * Reads and writes the company's slots through `session` (a detached one for a write that
 * may outlive the operation). Each successful write becomes the cached answer of its slot;
 * `onWritten` is told of it (to drop the operation loader's copy).
 */
export function sessionSlotWriter(
  session: UpstreamSession,
  factoryId: string,
  apiSecret: string,
  onWritten: (slot: number) => void,
): SlotWriter {
  return {
    read: (slot) => fetchOption(session, { id: factoryId, slot }),
    readFresh: (slot) => fetchOption(session, { id: factoryId, slot }, true),
    async write(slot, title, data) {
      await updateOption(session, { apiSecret, factoryId, slot, title, data }, true);
      onWritten(slot);
    },
  };
}
