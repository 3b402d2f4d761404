import { runIsolated } from '../../helpers/isolated';

/**
 * Schema patterns run under a time limit in the validator service: a backtracking pattern on a
 * long value fails that validation with a clear message instead of freezing the host (in a child
 * process killed if it hangs), and ordinary patterns behave as ajv's own.
 */
const BACKTRACKS = `${'a'.repeat(50_000)}!`;
const TIME_LIMIT = 'matching a value against the pattern "(a+)+$" of the schema took longer than 500 ms, so the value was not accepted. Send a shorter or simpler value.';

test('pattern and patternProperties: ordinary values as before, a backtracking one refused in bounded time', async () => {
  const results = await runIsolated<unknown[]>(
    `
    const { ToolArgsValidatorService } = load('services/argsValidation/toolArgsValidatorService.js');
    const validator = new ToolArgsValidatorService();
    const schemas = {
      slug: { type: 'object', properties: { name: { type: 'string', pattern: '^[a-z]+$' } } },
      find: { type: 'object', properties: { q: { type: 'string', pattern: '(a+)+$' } } },
      many: { type: 'object', properties: { qs: { type: 'array', items: { type: 'string', pattern: '(a+)+$' } } } },
      keys: { type: 'object', patternProperties: { '(a+)+$': { type: 'number' } } },
    };
    const out = [];
    for (const [schema, args] of input) out.push(validator.validate(schemas[schema], args));
    await validator.dispose();
    out.push(validator.validate(schemas.find, { q: 'aa' }));
    await validator.dispose();
    return out;
    `,
    [
      ['slug', { name: 'abc' }],
      ['slug', { name: 'aBc' }],
      ['find', { q: 'aaa' }],
      ['find', { q: BACKTRACKS }],
      ['find', { q: 'aaaa' }],
      ['many', { qs: Array.from({ length: 20 }, () => BACKTRACKS) }],
      ['keys', { [BACKTRACKS]: 'not a number' }],
    ],
  );
  expect(results).toEqual([
    { ok: true, value: { name: 'abc' } },
    { ok: false, message: '"name" must match pattern "^[a-z]+$"' },
    { ok: true, value: { q: 'aaa' } },
    { ok: false, message: TIME_LIMIT },
    { ok: true, value: { q: 'aaaa' } },
    // One time limit for the whole validation, however many values.
    { ok: false, message: TIME_LIMIT },
    { ok: false, message: TIME_LIMIT },
    // After dispose, a validation starts a new helper thread.
    { ok: true, value: { q: 'aa' } },
  ]);
});
