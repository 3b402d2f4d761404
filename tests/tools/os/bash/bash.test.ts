import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { Ajv } from 'ajv';
import { ToolAccesses } from '../../../../src/tool/accesses';
import { type RunnableToolExecution, type ToolResult, type ToolUpdate } from '../../../../src/tool/contract';
import { PathSecurityError } from '../../../../src/tool/pathAccess';
import { createOsToolsFeature } from '../../../../src/tools/os/osFeature';
import { callTool, text, useAgent } from '../../../helpers/agentHarness';
import { IAgentTaskService } from '../../../../src/tools/task/contract';
import { replaceWithSymlink } from '../../../helpers/pathSwap';
import { ESCAPE_ROUTES, isAlive, killQuietly, readPidFile } from '../../../helpers/processes';
import { makeTempDir, removeDir, writeFiles } from '../../../helpers/tempDir';

const fx = useAgent({ builtins: true, tempDataDir: true });

function resolve(input: Record<string, unknown>): RunnableToolExecution {
  const execution = fx.agent.registry.get('Bash')!.tool.resolveExecution(input as never);
  if (!('execute' in execution)) throw new Error(`resolve failed: ${String((execution as ToolResult).output)}`);
  return execution as RunnableToolExecution;
}

/** Runs one Bash call with a real abort signal and a record of its progress updates. */
async function run(input: Record<string, unknown>, options: { signal?: AbortSignal; onUpdate?: (u: ToolUpdate) => void } = {}): Promise<ToolResult> {
  const execution = resolve(input);
  return execution.execute({
    toolCallId: 'call_1',
    signal: options.signal ?? new AbortController().signal,
    onUpdate: options.onUpdate ?? (() => undefined),
    metadata: {},
  });
}

async function bash(command: string, extra: Record<string, unknown> = {}): Promise<string> {
  return text(await run({ command, ...extra }));
}

describe('Bash: output and exit status', () => {
  beforeEach(() => fx.open());

  test('returns the output of a successful command as it is', async () => {
    const result = await run({ command: 'echo hello; echo world' });
    expect(result).toEqual({ output: 'hello\nworld\n' });
  });

  test('a command with no output says it succeeded', async () => {
    expect(await run({ command: 'true' })).toEqual({ output: '<system>Command succeeded with no output.</system>' });
  });

  test('a non-zero exit code is an error and is reported after the output', async () => {
    expect(await run({ command: 'printf partial; exit 3' })).toEqual({
      output: 'partial\n<system>Command failed with exit code 3.</system>',
      isError: true,
    });
    expect(await run({ command: 'exit 2' })).toEqual({ output: '<system>Command failed with exit code 2. It printed nothing.</system>', isError: true });
  });

  test('a command killed by a signal says which', async () => {
    expect(await run({ command: 'kill -SEGV $$' })).toEqual({ output: '<system>Command was killed by signal SIGSEGV. It printed nothing.</system>', isError: true });
  });

  test('stdout and stderr are interleaved in arrival order and streamed as updates', async () => {
    const updates: ToolUpdate[] = [];
    const result = await run({ command: 'echo out1; sleep 0.3; echo err1 >&2; sleep 0.3; echo out2' }, { onUpdate: (u) => updates.push(u) });
    expect(text(result)).toBe('out1\nerr1\nout2\n');
    expect(updates).toEqual([
      { kind: 'stdout', text: 'out1\n' },
      { kind: 'stderr', text: 'err1\n' },
      { kind: 'stdout', text: 'out2\n' },
    ]);
  });

  test('a multi-byte character split across chunks stays whole', async () => {
    // 20,000 two-byte characters arrive in several pipe reads.
    expect(await bash(`printf 'é%.0s' $(seq 1 20000)`)).toBe('é'.repeat(20000));
  });

  test('a throwing progress listener does not stop the command', async () => {
    const result = await run(
      { command: 'echo a; echo b' },
      {
        onUpdate: () => {
          throw new Error('listener failed');
        },
      },
    );
    expect(text(result)).toBe('a\nb\n');
  });
});

describe('Bash: the shell and its environment', () => {
  beforeEach(() => fx.open());

  test('runs bash -c, not a login shell, with no colours, pagers or prompts', async () => {
    expect(await bash('shopt -q login_shell && echo login || echo not-login; echo "$BASH_VERSION" | cut -c1')).toMatch(/^not-login\n\d\n$/);
    expect(await bash('echo "$NO_COLOR|$TERM|$GIT_TERMINAL_PROMPT|$PAGER|$GIT_PAGER|${FORCE_COLOR-unset}"')).toBe('1|dumb|0|cat|cat|unset\n');
  });

  test('stdin is closed: a command that reads it gets end-of-file at once', async () => {
    expect(await bash('read line; echo "read exit $?"; cat; echo done')).toBe('read exit 1\ndone\n');
  });

  test('the command runs in its own process group', async () => {
    const [pid, pgid] = (await bash('echo $$; ps -o pgid= -p $$')).trim().split(/\s+/).map(Number);
    expect(pgid).toBe(pid);
    expect(pgid).not.toBe(Number((await bash(`ps -o pgid= -p ${process.pid}`)).trim()));
  });

  test('runs in the working directory by default, and in cwd inside the workspace', async () => {
    writeFiles(fx.dir, { 'sub/a.txt': 'x' });
    expect(await bash('pwd')).toBe(`${fx.dir}\n`);
    expect(await bash('pwd; ls', { cwd: 'sub' })).toBe(`${fx.dir}/sub\na.txt\n`);
    expect(await bash('pwd', { cwd: nodePath.join(fx.dir, 'sub') })).toBe(`${fx.dir}/sub\n`);
  });

  test('a cwd outside the workspace is refused before anything runs', async () => {
    for (const cwd of ['..', '/tmp']) {
      const result = await callTool(fx.agent, 'Bash', { command: 'touch escaped', cwd });
      expect(result.isError).toBe(true);
      expect(text(result)).toContain('is outside the working directory');
      expect(text(result)).toContain('Paths outside the working directory are not allowed here.');
    }
    expect(() => fx.agent.registry.get('Bash')!.tool.resolveExecution({ command: 'ls', cwd: '/' } as never)).toThrow(PathSecurityError);
  });

  test('a missing cwd is a clear error', async () => {
    expect(await run({ command: 'ls', cwd: 'nope' })).toEqual({
      output: `The working directory "${fx.dir}/nope" does not exist. Create it first, or pass an existing directory as cwd.`,
      isError: true,
    });
  });

  describe('a cwd swapped for a link after resolution', () => {
    let outside = '';
    beforeEach(() => {
      outside = makeTempDir('toolhost-outside-');
      writeFiles(outside, { 'notes.txt': 'outside\n' });
      writeFiles(fx.dir, { 'sub/notes.txt': 'inside\n' });
    });
    afterEach(() => removeDir(outside));

    test('the command is not run in the foreground', async () => {
      const execution = resolve({ command: 'cat notes.txt; touch ran-here', cwd: 'sub' });
      replaceWithSymlink(nodePath.join(fx.dir, 'sub'), outside);
      expect(await execution.execute({ toolCallId: 'call_1', signal: new AbortController().signal, onUpdate: () => undefined, metadata: {} })).toEqual({
        isError: true,
        output: `"sub" changed between the approval and the start of the command (it is now a link to "${outside}"); the command was not run. Check the path and call again.`,
      });
      expect(fs.readdirSync(outside)).toEqual(['notes.txt']);
    });

    test('the command is not started in the background', async () => {
      const execution = resolve({ command: 'touch ran-here', cwd: 'sub', run_in_background: true });
      replaceWithSymlink(nodePath.join(fx.dir, 'sub'), outside);
      expect(text(await execution.execute({ toolCallId: 'call_1', signal: new AbortController().signal, onUpdate: () => undefined, metadata: {} }))).toBe(
        `"sub" changed between the approval and the start of the command (it is now a link to "${outside}"); the command was not run. Check the path and call again.`,
      );
      expect(fx.agent.get(IAgentTaskService).list()).toEqual([]);
      expect(fs.readdirSync(outside)).toEqual(['notes.txt']);
    });
  });

  test('an empty command is refused', async () => {
    expect(await callTool(fx.agent, 'Bash', { command: '   ' })).toMatchObject({ isError: true, output: 'The command is empty. Pass the shell command to run in `command`.' });
  });
});

describe('Bash: timeouts and interruption', () => {
  test('a timeout above the maximum is rejected, by the schema and at resolve time', async () => {
    fx.open();
    const ajv = new Ajv({ allErrors: true });
    const validate = ajv.compile(fx.agent.registry.get('Bash')!.tool.parameters);
    expect(validate({ command: 'ls', timeout: 300 })).toBe(true);
    expect(validate({ command: 'ls', timeout: 301 })).toBe(false);
    expect(validate.errors?.[0]).toMatchObject({ instancePath: '/timeout', message: 'must be <= 300' });
    expect(await callTool(fx.agent, 'Bash', { command: 'ls', timeout: 301 })).toEqual({
      isError: true,
      output:
        'timeout 301 s is above the maximum of 300 s and was rejected. Pass a timeout of at most 300, or use run_in_background: true for longer commands and follow them with WaitFor and TaskOutput.',
    });
  });

  test('the limits come from config, in the schema and the description', async () => {
    fx.open({ config: { bash: { defaultTimeoutS: 5, maxTimeoutS: 20 } } });
    const tool = fx.agent.registry.get('Bash')!.tool;
    expect(tool.parameters).toMatchObject({ properties: { timeout: { maximum: 20 } } });
    expect(tool.description).toContain('Timeout: 5 s unless you pass `timeout` in seconds, at most 20; a larger value is rejected.');
    expect(text(await callTool(fx.agent, 'Bash', { command: 'ls', timeout: 21 }))).toContain('above the maximum of 20 s');
    fx.app.config.update({ bash: { defaultTimeoutS: 7, maxTimeoutS: 30 } });
    expect(tool.parameters).toMatchObject({ properties: { timeout: { maximum: 30 } } });
    expect(tool.description).toContain('Timeout: 7 s');
  });

  test('on timeout the whole process group is stopped, grandchildren included', async () => {
    fx.open();
    const result = await run({ command: 'sleep 1000 & echo $!; sleep 1000', timeout: 1 });
    const grandchild = Number(text(result).split('\n')[0]);
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      `${grandchild}\n<system>Command timed out after 1 s and was stopped (SIGTERM to its process group). ` +
        'If it needs longer, pass a larger timeout (at most 300 s) or run it in the background.</system>',
    );
    expect(isAlive(grandchild)).toBe(false);
  });

  test('a process that ignores SIGTERM gets SIGKILL after the grace period', async () => {
    fx.open({ config: { bash: { killGraceMs: 300 } } });
    const result = await run({ command: "trap '' TERM; sleep 1000 & echo $!; wait", timeout: 1 });
    const grandchild = Number(text(result).split('\n')[0]);
    expect(text(result)).toContain('Command timed out after 1 s and was stopped (SIGTERM, then SIGKILL after 300 ms to its process group).');
    expect(isAlive(grandchild)).toBe(false);
  });

  test('an abort stops the whole process group and says so', async () => {
    fx.open();
    const controller = new AbortController();
    let grandchild = 0;
    const result = await run(
      { command: 'sleep 1000 & echo $!; wait' },
      {
        signal: controller.signal,
        onUpdate: (u) => {
          grandchild = Number(u.text);
          controller.abort();
        },
      },
    );
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(new RegExp(`^${grandchild}\\n<system>Command was interrupted after .+ and stopped \\(SIGTERM to its process group\\)\\.</system>$`));
    expect(isAlive(grandchild)).toBe(false);
  });

  test('disposing the agent stops a foreground command and its process group', async () => {
    fx.open();
    let grandchild = 0;
    let announce!: () => void;
    const printed = new Promise<void>((resolve) => (announce = resolve));
    const pending = run(
      { command: 'sleep 1000 & echo $!; wait' },
      {
        onUpdate: (u) => {
          grandchild = Number(u.text);
          announce();
        },
      },
    );
    await printed;
    await fx.agent.dispose();
    const result = await pending;
    expect(text(result)).toContain('Command was interrupted after');
    expect(isAlive(grandchild)).toBe(false);
  });

  test('an aborted signal before the start runs nothing', async () => {
    fx.open();
    const controller = new AbortController();
    controller.abort();
    expect(await run({ command: 'touch ran' }, { signal: controller.signal })).toEqual({ output: 'Aborted before the command started.', isError: true });
    expect(fs.existsSync(nodePath.join(fx.dir, 'ran'))).toBe(false);
  });
});

describe('Bash: completion is the shell exit plus a short drain', () => {
  test('a background child holding the pipe cannot hang the call; it is stopped', async () => {
    fx.open();
    const result = await run({ command: 'sleep 30 & echo $!; echo started' });
    const child = Number(text(result).split('\n')[0]);
    expect(text(result)).toBe(
      `${child}\nstarted\n<system>The command left processes running in the background; they were stopped when it exited. ` +
        'To keep a process running, start it with run_in_background.</system>',
    );
    expect(result.isError).toBeUndefined();
    expect(isAlive(child)).toBe(false);
  });

  test('with stopLeftoverProcesses off, the leftover keeps running and its pipe is cut', async () => {
    fx.open({ config: { bash: { stopLeftoverProcesses: false } } });
    const result = await run({ command: 'sleep 30 & echo $!' });
    const child = Number(text(result).split('\n')[0]);
    try {
      expect(text(result)).toBe(
        `${child}\n<system>A background process still held the output open after the command exited; its later output was not collected.</system>`,
      );
      expect(isAlive(child)).toBe(true);
    } finally {
      killQuietly(child);
    }
  });

  test('a detached child that redirected its output is stopped too', async () => {
    fx.open();
    const result = await run({ command: 'nohup sleep 30 >/dev/null 2>&1 & echo $!' });
    expect(text(result)).toContain('they were stopped when it exited');
    expect(isAlive(Number(text(result).split('\n')[0]))).toBe(false);
  });
});

describe('Bash: processes that leave the process group are stopped with it', () => {
  let escapee = 0;
  afterEach(() => {
    if (escapee) killQuietly(escapee);
    escapee = 0;
  });
  const pidFile = () => nodePath.join(fx.dir, 'esc.pid');

  describe.each(ESCAPE_ROUTES)('%s', (_route, escape) => {
    const longCommand = `${escape}\nsleep 100`;

    test('on timeout', async () => {
      fx.open({ config: { bash: { killGraceMs: 300 } } });
      const result = await run({ command: longCommand, timeout: 1 });
      escapee = await readPidFile(pidFile());
      expect(text(result)).toContain('Command timed out after 1 s and was stopped');
      expect(isAlive(escapee)).toBe(false);
    });

    test('on abort', async () => {
      fx.open({ config: { bash: { killGraceMs: 300 } } });
      const controller = new AbortController();
      const pending = run({ command: longCommand }, { signal: controller.signal });
      escapee = await readPidFile(pidFile());
      expect(isAlive(escapee)).toBe(true);
      controller.abort();
      expect(text(await pending)).toMatch(/^<system>Command was interrupted after .+ and stopped/);
      expect(isAlive(escapee)).toBe(false);
    });

    test('when the agent is disposed', async () => {
      fx.open({ config: { bash: { killGraceMs: 300 } } });
      const pending = run({ command: longCommand });
      escapee = await readPidFile(pidFile());
      expect(isAlive(escapee)).toBe(true);
      await fx.agent.dispose();
      expect(text(await pending)).toMatch(/^<system>Command was interrupted after /);
      expect(isAlive(escapee)).toBe(false);
    });

    test('when the shell exits, as a leftover', async () => {
      fx.open({ config: { bash: { killGraceMs: 300 } } });
      // The shell waits for the pid file, so the escapee is running when it exits.
      const result = await run({ command: `${escape}\nwhile [ ! -s esc.pid ]; do sleep 0.01; done` });
      escapee = await readPidFile(pidFile());
      expect(text(result)).toContain('The command left processes running in the background; they were stopped when it exited.');
      expect(isAlive(escapee)).toBe(false);
    });
  });
});

describe('Bash: large output', () => {
  test('keeps the head and the tail in memory and the whole output in a file', async () => {
    fx.open({ config: { bash: { outputHeadChars: 1000, outputTailChars: 1000 } } });
    const expected = Array.from({ length: 100_000 }, (_, i) => `${i + 1}\n`).join('');
    const result = await run({ command: 'seq 1 100000' });
    const output = text(result);
    expect(result.truncated).toBe(true);
    expect(result.isError).toBeUndefined();
    const [body, status] = output.split('<system>');
    const headEnd = body!.indexOf('[... ');
    const head = body!.slice(0, headEnd);
    expect(expected.startsWith(head)).toBe(true);
    expect(head.length).toBeGreaterThan(990);
    expect(head.length).toBeLessThanOrEqual(1000);
    const tail = body!.slice(body!.indexOf('...]\n') + 5);
    expect(expected.endsWith(tail)).toBe(true);
    expect(tail.length).toBeGreaterThan(990);
    const omitted = expected.length - head.length - tail.length;
    expect(body).toContain(`[... ${omitted.toLocaleString('en-US')} characters omitted ...]`);
    const file = /saved to (\S+)\./.exec(status!)![1]!;
    expect(file.startsWith(nodePath.join(fx.dataDir, 'bash'))).toBe(true);
    expect(status).toBe(
      `The output was ${expected.length.toLocaleString('en-US')} characters (575 KB); ${omitted.toLocaleString('en-US')} in the middle are left out above. ` +
        `Full output (575 KB) saved to ${file}. Page it with Read (line_offset, n_lines) or search it with Grep.</system>`,
    );
    expect(fs.readFileSync(file, 'utf8')).toBe(expected);
  });

  test('output that fits leaves no file behind', async () => {
    fx.open({ config: { bash: { outputHeadChars: 1000, outputTailChars: 1000 } } });
    // 1,500 bytes of two-byte characters: more bytes than fit, but few enough characters.
    expect(await bash(`printf 'é%.0s' $(seq 1 1500)`)).toBe('é'.repeat(1500));
    const bashDir = nodePath.join(fx.dataDir, 'bash');
    expect(fs.existsSync(bashDir) ? fs.readdirSync(bashDir) : []).toEqual([]);
  });

  test('the output file stops at its size cap', async () => {
    fx.open({ config: { bash: { outputHeadChars: 1000, outputTailChars: 1000, outputFileMaxBytes: 1_048_576 } } });
    const result = await run({ command: "head -c 3000000 /dev/zero | tr '\\0' x; echo; echo end" });
    const output = text(result);
    expect(output).toMatch(/x\nend\n<system>/);
    const file = /saved to (\S+) \(only its first 1\.0 MB: the file stops at that size\)\./.exec(output)![1]!;
    expect(fs.statSync(file).size).toBe(1_048_576);
  });
});

describe('Bash: accesses, approval and display', () => {
  beforeEach(() => fx.open());

  test('read-only commands declare a recursive read of the cwd and the process, and run beside reads', () => {
    writeFiles(fx.dir, { 'sub/a.txt': 'x' });
    const status = resolve({ command: 'git status && git diff' });
    expect(status.accesses).toEqual([ToolAccesses.readTree(fx.dir), ToolAccesses.process()]);
    expect(ToolAccesses.conflict(status.accesses!, [ToolAccesses.readFile(nodePath.join(fx.dir, 'a.txt'))])).toBe(false);
    expect(ToolAccesses.conflict(status.accesses!, [ToolAccesses.writeFile(nodePath.join(fx.dir, 'a.txt'))])).toBe(true);
    expect(resolve({ command: 'ls', cwd: 'sub' }).accesses).toEqual([ToolAccesses.readTree(`${fx.dir}/sub`), ToolAccesses.process()]);
  });

  test('paths a read-only command names outside its cwd are declared too', () => {
    writeFiles(fx.dir, { 'sub/a.txt': 'x', 'b.txt': 'y' });
    expect(resolve({ command: 'cat ../b.txt /etc/hostname', cwd: 'sub' }).accesses).toEqual([
      ToolAccesses.readTree(`${fx.dir}/sub`),
      ToolAccesses.readTree(`${fx.dir}/b.txt`),
      ToolAccesses.readTree(fs.realpathSync('/etc/hostname')),
      ToolAccesses.process(),
    ]);
  });

  test('other commands, and read-only ones that name secrets, declare all', () => {
    for (const command of ['npm test', 'rm -rf build', 'echo x > f', 'cat a | tee b', 'cat .env', 'cat ~/.ssh/id_rsa', 'grep key secrets/server.pem']) {
      expect([command, resolve({ command }).accesses]).toEqual([command, ToolAccesses.all()]);
    }
  });

  test('a pattern argument is expanded as bash would: a read-only command whose pattern matches a secret declares all', () => {
    writeFiles(fx.dir, { '.env': 'KEY=1', 'a.md': 'x', 'b.md': 'y', 'keys/server.pem': 'k', 'sub/c.md': 'z' });
    for (const command of ['cat .e*', 'cat .??v', 'cat .[e]nv', 'grep KEY .*', 'cat keys/*', 'cat */*.md', 'cat s*/c.md']) {
      expect([command, resolve({ command }).accesses]).toEqual([command, ToolAccesses.all()]);
    }
    // bash's `*` does not match a leading dot, and a pattern that matches nothing stays as written.
    for (const command of ['cat *.md', 'wc -l *', 'cat *.nothing', 'cd sub && cat *.md']) {
      expect([command, resolve({ command }).accesses]).toEqual([command, [ToolAccesses.readTree(fx.dir), ToolAccesses.process()]]);
    }
    // Outside the cwd, each match is declared.
    writeFiles(fx.dir, { 'w/x.txt': 'x' });
    expect(resolve({ command: 'cat ../*.md', cwd: 'w' }).accesses).toEqual([
      ToolAccesses.readTree(`${fx.dir}/w`),
      ToolAccesses.readTree(`${fx.dir}/a.md`),
      ToolAccesses.readTree(`${fx.dir}/b.md`),
      ToolAccesses.process(),
    ]);
  });

  test('the approval rule is Bash(<command>) and command rules match it', () => {
    const exec = resolve({ command: 'npm test -- --watch=false' });
    expect(exec.approvalRule).toBe('Bash(npm test -- --watch=false)');
    expect(exec.matchesRule!('npm test:*')).toBe(true);
    expect(exec.matchesRule!('npm *')).toBe(true);
    expect(exec.matchesRule!('git *')).toBe(false);
    expect(resolve({ command: 'ls *.ts' }).approvalRule).toBe('Bash(ls \\*.ts)');
    const compound = resolve({ command: 'git status && rm -rf x' });
    expect(compound.matchesRule!('git *', 'allow')).toBe(false);
    expect(compound.matchesRule!('rm *', 'deny')).toBe(true);
  });

  test('display is a command with its cwd and description', () => {
    writeFiles(fx.dir, { 'sub/a.txt': 'x' });
    const exec = resolve({ command: 'npm test', cwd: 'sub', description: 'Run the tests' });
    expect(exec.display).toEqual({ kind: 'command', command: 'npm test', cwd: `${fx.dir}/sub`, description: 'Run the tests', language: 'bash' });
    expect(exec.description).toBe('Run the tests');
    expect(resolve({ command: 'npm   test\n' }).description).toBe('Running npm test');
  });
});

describe('Bash: without the task feature', () => {
  test('run_in_background is refused and the description says so', async () => {
    fx.open({ builtins: false, features: [createOsToolsFeature()] });
    const tool = fx.agent.registry.get('Bash')!.tool;
    expect(tool.description).toContain(
      'Background tasks are not available to this agent (the background-task service is not installed), so `run_in_background` is refused.',
    );
    expect(tool.description).not.toContain('TaskOutput');
    expect(await callTool(fx.agent, 'Bash', { command: 'sleep 1', run_in_background: true })).toEqual({
      isError: true,
      output: 'Background execution is not available: the background-task service is not installed. Run the command in the foreground with a timeout of at most 300 s.',
    });
  });

  test('with the task tools disabled by config, the message names them', async () => {
    fx.open({ config: { tools: { disabled: ['TaskOutput', 'TaskStop'] } } });
    expect(text(await callTool(fx.agent, 'Bash', { command: 'sleep 1', run_in_background: true }))).toBe(
      'Background execution is not available: the TaskOutput and TaskStop tools are not active. Run the command in the foreground with a timeout of at most 300 s.',
    );
    fx.app.config.update({ tools: { disabled: [] } });
    expect(fx.agent.registry.get('Bash')!.tool.description).toContain('Background tasks: pass `run_in_background: true`');
  });
});
