import type { ServiceIdentifier } from 'inversify';

/**
 * The one way to make a service identifier. A call keeps the `ServiceIdentifier<T>` type (an
 * annotated `const X: ServiceIdentifier<T> = Symbol()` can narrow to `symbol` and lose it), and
 * `Symbol.for` keeps the identity stable across jest module re-evaluation. The name appears in
 * every inversify error message, so keep it unique and readable.
 */
export function createServiceId<T>(name: string): ServiceIdentifier<T> {
  return Symbol.for(`toolhost.${name}`);
}

/** The readable name of an identifier made by createServiceId. */
export function serviceIdName(id: ServiceIdentifier<unknown>): string {
  if (typeof id === 'symbol') return (id.description ?? '').replace(/^toolhost\./, '');
  if (typeof id === 'string') return id;
  return id.name;
}

export type { ServiceIdentifier };
