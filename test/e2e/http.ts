/** @deprecated The end-to-end helpers moved to test/support (kept as a re-export while other branches move over). */
export { bearer, duplicates, exchangeOnOneConnection, mainCharacter, operationBody, operationSearch, parseResult, send, upstreamCalls } from '../support/http';
export type { ConnectionReuse, RawRequest, RawResponse } from '../support/http';
export { asObject, asObjects, errorsAt } from '../support/results';
