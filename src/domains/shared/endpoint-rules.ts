import type { EndpointRules } from '../../economy';

const registered: EndpointRules[] = [];

/**
 * Registers what the economy must know of one of a domain's endpoints (see
 * `EndpointRules`: which reads writes change, what a write invalidates). Called at the top
 * level of the domain's `*.endpoint-rules.ts`, which the domain registry loads by name; the
 * runtime hands every registered rule to the economy.
 *
 * @throws Error when the endpoint's rules are registered twice.
 */
export function registerEndpointRules(rules: EndpointRules): void {
  if (registered.some((other) => other.endpoint === rules.endpoint))
    throw new Error(`Endpoint rules for ${rules.endpoint.route} registered twice.`);
  registered.push(rules);
}

/** Every rule registered so far, in registration order. */
export function registeredEndpointRules(): readonly EndpointRules[] {
  return [...registered];
}
