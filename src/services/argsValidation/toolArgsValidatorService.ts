import { Ajv, type ValidateFunction } from 'ajv';
import { injectable, preDestroy } from 'inversify';
import { errorMessage } from '../../base/errors';
import type { JsonSchema } from '../../tool/contract';
import { isGeneratedInputSchema } from '../../tool/inputSchema';
import { BoundedRegExps, PatternTimeLimitError } from './boundedRegExp';
import { coerceArgs } from './coerceArgs';
import { formatValidationErrors } from './formatValidationErrors';
import type { ArgsValidation, IToolArgsValidatorService } from './toolArgsValidator';

type Compiled = { readonly validate: ValidateFunction } | { readonly error: string };

@injectable()
export class ToolArgsValidatorService implements IToolArgsValidatorService {
  // Schema patterns run under a time limit: a backtracking one (`(a+)+$`) must not freeze the host.
  private readonly patterns = new BoundedRegExps();
  // Made on the first compile, not with the service: an agent that validates nothing (`toolhost
  // tools`) does not pay for it (about 3 ms in a fresh process).
  private ajvInstance: Ajv | undefined;
  private get ajv(): Ajv {
    // strict: false — schemas from MCP servers use keywords and formats of every draft.
    // validateSchema: false — compile checks a schema against the meta-schema itself, except one
    // zod generated (isGeneratedInputSchema): compiling the meta-schema's validator is most of a
    // process's first compile, which a built-in tool's first call would pay.
    this.ajvInstance ??= new Ajv({
      allErrors: true,
      allowUnionTypes: true,
      validateFormats: false,
      strict: false,
      validateSchema: false,
      code: { regExp: this.patterns.engine },
    });
    return this.ajvInstance;
  }
  private readonly cache = new WeakMap<object, Compiled>();

  check(schema: JsonSchema): string | undefined {
    const compiled = this.compile(schema);
    return 'error' in compiled ? compiled.error : undefined;
  }

  validate(schema: JsonSchema, args: unknown): ArgsValidation {
    const compiled = this.compile(schema);
    if ('error' in compiled) return { ok: false, message: compiled.error };
    const value = coerceArgs(args, schema);
    let valid: boolean;
    try {
      valid = this.patterns.within(() => compiled.validate(value) as boolean);
    } catch (error) {
      if (error instanceof PatternTimeLimitError) return { ok: false, message: `${error.message}. Send a shorter or simpler value.` };
      throw error;
    }
    if (valid) return { ok: true, value };
    return { ok: false, message: formatValidationErrors(compiled.validate.errors) };
  }

  @preDestroy()
  async dispose(): Promise<void> {
    await this.patterns.close();
  }

  private compile(schema: JsonSchema): Compiled {
    let compiled = this.cache.get(schema);
    if (!compiled) {
      try {
        // ajv refuses a $schema it does not know (draft 2020-12 and 2019-09 need other classes); the keywords still apply.
        const { $schema: _ignored, ...rest } = schema;
        // Throws "schema is invalid: …", as compile does with the meta-schema check on.
        if (!isGeneratedInputSchema(schema)) this.ajv.validateSchema(rest, true);
        compiled = { validate: this.ajv.compile(rest) };
      } catch (error) {
        compiled = { error: `its input schema is invalid (${errorMessage(error)})` };
      }
      this.cache.set(schema, compiled);
    }
    return compiled;
  }
}
