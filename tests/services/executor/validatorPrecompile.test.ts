import { injectable } from 'inversify';
import { z } from 'zod';
import { IToolArgsValidatorService } from '../../../src/services/argsValidation/toolArgsValidator';
import { ToolArgsValidatorService } from '../../../src/services/argsValidation/toolArgsValidatorService';
import type { JsonSchema } from '../../../src/tool/contract';
import { ToolAccesses } from '../../../src/tool/accesses';
import { PRECOMPILE_IDLE_MS } from '../../../src/services/executor/validatorPrecompiler';
import { waitFor } from '../../helpers/async';
import { useAgent } from '../../helpers/agentHarness';
import { testTool } from '../../helpers/testTools';

/** The App's real validator, recording the schemas it was asked to compile ahead of a call. */
@injectable()
class RecordingValidator extends ToolArgsValidatorService {
  readonly checked: JsonSchema[] = [];
  override check(schema: JsonSchema): string | undefined {
    this.checked.push(schema);
    return super.check(schema);
  }
}

const fx = useAgent({
  appOverrides: (c) => c.rebind(IToolArgsValidatorService).to(RecordingValidator).inSingletonScope(),
  tools: [testTool<{ n: number }>('Sized', { schema: z.object({ n: z.number().int() }), accesses: () => [ToolAccesses.readState('sized')], execute: (i) => ({ output: `n=${i.n}` }) })],
});

describe('validators are compiled when a tool becomes active, off the call path', () => {
  test('not inside createAgent, but once the executor has had no batch for a while, before any call', async () => {
    const h = fx.open();
    const validator = h.app.get(IToolArgsValidatorService) as RecordingValidator;
    const schema = h.agent.registry.get('Sized')!.tool.parameters;
    // Activation returned without compiling: it is not slowed by it.
    expect(validator.checked).not.toContain(schema);
    await waitFor(() => validator.checked.includes(schema), { what: 'the validator of Sized to be compiled' });
    // The call then validates with the compiled validator, as it would have otherwise.
    expect(await h.call('Sized', { n: '3' })).toMatchObject({ outcome: 'executed', output: 'n=3' });
    expect(await h.call('Sized', { n: 'x' })).toMatchObject({ outcome: 'rejected' });
  });

  test('an agent disposed before that turn compiles nothing', async () => {
    const h = fx.open();
    const validator = h.app.get(IToolArgsValidatorService) as RecordingValidator;
    const schema = h.agent.registry.get('Sized')!.tool.parameters;
    await h.agent.dispose();
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(validator.checked).not.toContain(schema);
  });

  test('calls that follow each other closely (a script, an MCP client) compile only their own validators until a pause', async () => {
    const h = fx.open({
      tools: [
        testTool<{ n: number }>('Sized', { schema: z.object({ n: z.number().int() }), accesses: () => [ToolAccesses.readState('sized')], execute: (i) => ({ output: `n=${i.n}` }) }),
        testTool<{ n: number }>('Echo', { schema: z.object({ n: z.number() }), accesses: () => [ToolAccesses.readState('echo')], execute: (i) => ({ output: `echo ${i.n}` }) }),
      ],
    });
    const validator = h.app.get(IToolArgsValidatorService) as RecordingValidator;
    const sized = h.agent.registry.get('Sized')!.tool.parameters;
    let longestGap = 0;
    let last = performance.now();
    for (let i = 0; i < 30; i++) {
      expect(await h.call('Echo', { n: i })).toMatchObject({ outcome: 'executed', output: `echo ${i}` });
      // A few turns of the event loop between calls, as a client's round trip gives.
      for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
    }
    // A machine that stalled for the idle time between two calls may rightly have compiled it.
    if (longestGap < PRECOMPILE_IDLE_MS) expect(validator.checked).not.toContain(sized);
    await waitFor(() => validator.checked.includes(sized), { what: 'the validator of Sized to be compiled after the calls stopped' });
  });

  test('while a batch runs nothing else is compiled; once it has ended the rest is', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let running = false;
    const h = fx.open({
      tools: [
        testTool<{ n: number }>('Sized', { schema: z.object({ n: z.number().int() }), accesses: () => [ToolAccesses.readState('sized')], execute: (i) => ({ output: `n=${i.n}` }) }),
        testTool<Record<string, never>>('Slow', { schema: z.object({}), accesses: () => [ToolAccesses.readState('slow')], execute: async () => ((running = true), await held, { output: 'done' }) }),
      ],
    });
    const validator = h.app.get(IToolArgsValidatorService) as RecordingValidator;
    const sized = h.agent.registry.get('Sized')!.tool.parameters;
    // The batch comes before the first turn of compiling.
    const batch = h.call('Slow', {});
    await waitFor(() => running, { what: 'the Slow call to run' });
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(validator.checked).not.toContain(sized);
    release();
    expect(await batch).toMatchObject({ outcome: 'executed', output: 'done' });
    await waitFor(() => validator.checked.includes(sized), { what: 'the validator of Sized to be compiled after the batch' });
  });
});

