/** The gateway's errors: one base class, the upstream classification and the masking formatter. */
export * from './gateway-error';
export { formatError } from './format-error';
