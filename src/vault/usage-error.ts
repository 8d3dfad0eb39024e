/** A request to the vault that cannot be done (an unknown name, a bad grant): the message says what to do. */
export class VaultUsageError extends Error {}
