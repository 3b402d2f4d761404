import { createServiceId } from '../../di/serviceId';
import type { JsonSchema } from '../../tool/contract';

export type ArgsValidation = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly message: string };

/**
 * Validates tool arguments against a tool's JSON Schema (App scope): one shared Ajv instance, one
 * compiled validator per schema object, cached. Lossless string coercion runs first.
 */
export interface IToolArgsValidatorService {
  validate(schema: JsonSchema, args: unknown): ArgsValidation;
  /** Compiles (and caches) a schema; returns an error message when ajv cannot compile it. */
  check(schema: JsonSchema): string | undefined;
}
export const IToolArgsValidatorService = createServiceId<IToolArgsValidatorService>('ToolArgsValidatorService');
