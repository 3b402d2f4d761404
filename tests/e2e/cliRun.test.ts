import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { CLI, cliEnv, runCliProcess, startCliProcess } from '../helpers/cliProcess';
import { waitFor } from '../helpers/async';
import { catchesSignal, ESCAPE_ROUTES, isAlive, killQuietly, readPidFile } from '../helpers/processes';
import { makeTempDir, removeDir, writeFiles } from '../helpers/tempDir';

let root: string;
let ws: string;
let outside: string;
beforeEach(() => {
  root = makeTempDir();
  ws = nodePath.join(root, 'ws');
  outside = nodePath.join(root, 'outside.txt');
  writeFiles(root, { 'ws/a.txt': 'alpha\nbeta\n', 'ws/b.txt': 'bravo\n', 'outside.txt': 'far away\n' });
});
afterEach(() => removeDir(root));

const batch = (calls: unknown[]) => JSON.stringify(calls);

describe('toolhost run --json', () => {
  test('stdout holds exactly one JSON object with the results in call order; events go to stderr', async () => {
    const input = batch([
      { name: 'Read', arguments: { path: 'a.txt' } },
      { id: 'mine', name: 'Read', arguments: '{"path": "b.txt", "n_lines": "1"}' },
      { name: 'Read', arguments: { path: '.env' } },
      { name: 'Nope', arguments: {} },
    ]);
    const run = await runCliProcess(['run', '--json'], { cwd: ws, input });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      results: [
        { id: 'call_1', name: 'Read', isError: false, outcome: 'executed', output: '1\talpha\n2\tbeta\n<system>Lines 1-2 of 2. End of file reached.</system>', truncated: false },
        { id: 'mine', name: 'Read', isError: false, outcome: 'executed', output: '1\tbravo\n<system>Line 1 of 1. End of file reached.</system>', truncated: false },
        {
          id: 'call_3',
          name: 'Read',
          isError: true,
          outcome: 'resolution-failed',
          output: '".env" matches a sensitive-file pattern (env file, credentials, private key). Access is blocked to protect secrets.',
          truncated: false,
        },
        { id: 'call_4', name: 'Nope', isError: true, outcome: 'rejected', output: 'Tool "Nope" not found', truncated: false },
      ],
    });
    const events = run.stderr.trim().split('\n').map((line) => JSON.parse(line) as { event: string; toolCallId: string });
    for (const id of ['call_1', 'mine', 'call_3', 'call_4']) {
      expect(events.filter((e) => e.toolCallId === id).map((e) => e.event)).toEqual(['started', 'finished']);
    }
  });

  test('reads a FILE argument, relative to the current directory', async () => {
    writeFiles(root, { 'calls.json': batch([{ name: 'Read', arguments: { path: 'a.txt', n_lines: 1 } }]) });
    const run = await runCliProcess(['run', '--json', '--cwd', ws, nodePath.join('..', 'calls.json')], { cwd: ws });
    expect(run.code).toBe(0);
    expect((JSON.parse(run.stdout) as { results: Array<{ output: string }> }).results[0]!.output).toMatch(/^1\talpha\n/);
  });
});

describe('toolhost run approvals', () => {
  const outsideRead = () => batch([{ name: 'Read', arguments: { path: outside } }]);

  test('without --yes and without a terminal, a call that needs approval is denied with a message naming --yes and approval.allow', async () => {
    const run = await runCliProcess(['run', '--json'], { cwd: ws, input: outsideRead() });
    expect(run.code).toBe(0);
    const [result] = (JSON.parse(run.stdout) as { results: Array<{ outcome: string; output: string }> }).results;
    expect(result!.outcome).toBe('denied');
    expect(result!.output).toBe(
      `Tool "Read" was not run: it needs approval and there is no one to approve it. To allow it, add a rule such as "Read(${outside})" to approval.allow in toolhost.json, or run toolhost with --yes to approve every call. Do not retry the same call; choose a different approach or ask the user how to proceed.`,
    );
  });

  test('--yes approves it', async () => {
    const run = await runCliProcess(['run', '--json', '--yes'], { cwd: ws, input: outsideRead() });
    expect((JSON.parse(run.stdout) as { results: Array<{ outcome: string }> }).results[0]!.outcome).toBe('executed');
  });

  test('a config approval.allow rule approves it', async () => {
    writeFiles(ws, { 'toolhost.json': JSON.stringify({ approval: { allow: [`Read(${nodePath.dirname(outside)}/*.txt)`] } }) });
    const run = await runCliProcess(['run', '--json'], { cwd: ws, input: outsideRead() });
    expect((JSON.parse(run.stdout) as { results: Array<{ outcome: string }> }).results[0]!.outcome).toBe('executed');
  });

  const hasScript = fs.existsSync('/usr/bin/script');
  (hasScript ? test : test.skip)('on a terminal the person is asked; "a" approves the rest of the session', async () => {
    writeFiles(root, { 'calls.json': batch([{ name: 'Read', arguments: { path: outside } }, { name: 'Read', arguments: { path: outside } }]) });
    // `script` gives the CLI a real pseudo-terminal; the answer is typed into it.
    const child = spawn('/usr/bin/script', ['-qfec', `${process.execPath} ${CLI} run ${nodePath.join(root, 'calls.json')}`, '/dev/null'], { cwd: ws });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (out.includes('> ') && !out.includes('answered')) {
        out += '(answered)';
        child.stdin.end('a\n');
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(out.match(/\? Read wants to run: Reading /g)).toHaveLength(1);
    expect(out).toContain(`[a] yes, and allow Read(${outside}) for this session`);
    expect(out).toContain('2 calls: 2 executed; 0 errors.');
  });

  (hasScript ? test : test.skip)('on a terminal, several prompts in a row each get the line typed for them', async () => {
    writeFiles(root, { 'calls.json': batch([1, 2, 3].map(() => ({ name: 'Read', arguments: { path: outside } }))) });
    const child = spawn('/usr/bin/script', ['-qfec', `${process.execPath} ${CLI} run ${nodePath.join(root, 'calls.json')}`, '/dev/null'], { cwd: ws });
    let out = '';
    let answered = 0;
    // One answer per prompt, typed once the prompt is on the screen; "n" for the second one.
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const prompts = out.split('? Read wants to run: Reading ').length - 1;
      while (answered < prompts) {
        answered++;
        child.stdin.write(answered === 2 ? 'n not this one\n' : 'y\n');
      }
    });
    // A lost line would leave the CLI waiting for ever: end it, so the test fails instead of hanging.
    const guard = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(guard);
    expect(code).toBe(0);
    expect(answered).toBe(3);
    expect(out).toContain('3 calls: 2 executed, 1 denied; 1 error.');
    expect(out).toContain('not this one');
  });
});

describe('toolhost run questions and notifications', () => {
  const question = { question: 'Which database?', header: 'Database', options: [{ label: 'PostgreSQL' }, { label: 'SQLite' }] };
  const checks = { question: 'Which checks?', header: 'Checks', multi_select: true, options: [{ label: 'lint' }, { label: 'tests' }] };
  const hasScript = fs.existsSync('/usr/bin/script');

  test('--yes never answers a question for the person: AskUserQuestion is not active; NotifyUser prints on stderr', async () => {
    const input = batch([
      { name: 'AskUserQuestion', arguments: { questions: [question] } },
      { name: 'NotifyUser', arguments: { title: 'Build \u001b[31mdone', body: 'all green' } },
    ]);
    const run = await runCliProcess(['run', '--json', '--yes'], { cwd: ws, input });
    const results = (JSON.parse(run.stdout) as { results: Array<{ isError: boolean; output: string }> }).results;
    expect(results[0]!.isError).toBe(true);
    expect(results[0]!.output).toContain('Tool "AskUserQuestion" exists but is not active');
    expect(results[1]!.output).toBe('sent: true');
    expect(run.stderr).toContain('[i] Build [31mdone\n    all green\n');
  });

  (hasScript ? test : test.skip)('on a terminal the questions are asked by number; "Other" takes typed text; the answers come back in order', async () => {
    writeFiles(root, { 'calls.json': batch([{ name: 'AskUserQuestion', arguments: { questions: [question, checks] } }]) });
    const child = spawn('/usr/bin/script', ['-qfec', `${process.execPath} ${CLI} run --json ${nodePath.join(root, 'calls.json')}`, '/dev/null'], { cwd: ws });
    let out = '';
    // For each prompt on the screen, one line: "9" first (out of range, asked again), then 2, then 3 (Other), then the text.
    const answers = ['9', '2', '3', 'lint and e2e'];
    let typed = 0;
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const prompts = out.split('> ').length - 1;
      while (typed < prompts && typed < answers.length) child.stdin.write(answers[typed++] + '\n');
    });
    const guard = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(guard);
    expect(code).toBe(0);
    expect(out).toContain('? (1/2) [Database] Which database?');
    expect(out).toContain('    2. SQLite');
    expect(out).toContain('    3. Other (type your own answer)');
    expect(out).toContain('Please type numbers from 1 to 3.');
    expect(out).toContain('? (2/2) [Checks] Which checks?');
    expect(out).toContain('Type numbers separated by commas (e.g. 1,3)');
    expect(out).toContain(
      JSON.stringify({
        status: 'answered',
        answers: [
          { question: 'Which database?', selected: ['SQLite'], other: null },
          { question: 'Which checks?', selected: [], other: 'lint and e2e' },
        ],
      }).replace(/"/g, '\\"'),
    );
  });

  (hasScript ? test : test.skip)('on a terminal an empty line dismisses the questions', async () => {
    writeFiles(root, { 'calls.json': batch([{ name: 'AskUserQuestion', arguments: { questions: [question] } }]) });
    const child = spawn('/usr/bin/script', ['-qfec', `${process.execPath} ${CLI} run ${nodePath.join(root, 'calls.json')}`, '/dev/null'], { cwd: ws });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (out.includes('> ') && !out.includes('(answered)')) {
        out += '(answered)';
        child.stdin.end('\n');
      }
    });
    const guard = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(guard);
    expect(code).toBe(0);
    expect(out).toContain('{"status":"dismissed","answers":[]}');
    expect(out).toContain('1 call: 1 executed; 0 errors.');
  });
});

describe('toolhost run transcript', () => {
  test('stdout and stderr in one log: each "finished" line of stderr starts a line of its own, between the blocks', async () => {
    const log = nodePath.join(root, 'run.log');
    const fd = fs.openSync(log, 'a');
    const child = spawn(process.execPath, [CLI, 'run', '--yes'], { cwd: ws, env: cliEnv(), stdio: ['pipe', fd, fd] });
    fs.closeSync(fd);
    // The Bash call finishes after the Read's block is printed: its "finished" line comes between the blocks.
    child.stdin!.end(batch([{ name: 'Read', arguments: { path: 'b.txt' } }, { name: 'Bash', arguments: { command: 'sleep 0.3; echo done', description: 'wait' } }]));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    const lines = fs.readFileSync(log, 'utf8').split('\n');
    expect(lines).toContain('<system>Line 1 of 1. End of file reached.</system>');
    expect(lines).toContain('finished call_2 Bash: executed');
    expect(lines.filter((line) => line.includes('finished call_'))).toEqual(['finished call_1 Read: executed', 'finished call_2 Bash: executed']);
  });

  test('prints one block per call with status, time and output, then a summary', async () => {
    const run = await runCliProcess(['run'], { cwd: ws, input: batch([{ name: 'Read', arguments: { path: 'b.txt' } }, { name: 'Read', arguments: '{"path":' }]) });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^=== \[1\/2\] Read \(call_1\): executed, \d+ ms\nargs: \{"path":"b\.txt"\}\n1\tbravo\n<system>Line 1 of 1\. End of file reached\.<\/system>\n\n=== \[2\/2\] Read \(call_2\): rejected, error, \d+ ms\nargs: \{"path":\nInvalid JSON in arguments for tool "Read": Unexpected end of JSON input\n\n2 calls: 1 executed, 1 rejected; 1 error\.\n$/,
    );
  });
});

test('a result Bash cut and saved itself carries outputPath in --json, like an output the executor spilled', async () => {
  // 200,000 characters: over Bash's 48,000 kept characters, and its saved file is the whole output.
  const input = batch([{ id: 'big', name: 'Bash', arguments: { command: "head -c 200000 /dev/zero | tr '\\0' x" } }]);
  const run = await runCliProcess(['run', '--json', '--yes'], { cwd: ws, input });
  const [result] = (JSON.parse(run.stdout) as { results: Array<{ id: string; truncated: boolean; outputPath?: string; output: string }> }).results;
  expect(result!.truncated).toBe(true);
  expect(result!.outputPath).toEqual(expect.any(String));
  expect(result!.output).toContain(`saved to ${result!.outputPath}`);
  expect(fs.readFileSync(result!.outputPath!, 'utf8')).toBe('x'.repeat(200_000));
});

test('--json progress does not pile up in memory: while stderr is not read, updates are left out and counted, and the result is whole', async () => {
  const input = batch([{ id: 'loud', name: 'Bash', arguments: { command: "head -c 30000000 /dev/zero | tr '\\0' x" } }]);
  const child = spawn(process.execPath, [CLI, 'run', '--json', '--yes'], { cwd: ws, env: cliEnv(), stdio: 'pipe' });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  const closed = new Promise((resolve) => child.on('close', resolve));
  child.stdin.end(input);
  // Nobody reads stderr until the results are out: 30 MB of progress cannot reach the pipe.
  await waitFor(() => stdout.endsWith(']}\n'), { timeoutMs: 60_000, what: 'the results on stdout' });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  await closed;
  const events = stderr
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { event: string; update?: { text: string }; progressSkipped?: number; outcome?: string });
  const shown = events.reduce((n, e) => n + (e.update?.text.length ?? 0), 0);
  const skipped = events.reduce((n, e) => n + (e.progressSkipped ?? 0), 0);
  expect(shown).toBeLessThan(5_000_000);
  expect(skipped).toBeGreaterThan(0);
  expect(events[events.length - 1]).toMatchObject({ event: 'finished', toolCallId: 'loud', outcome: 'executed' });
  const [result] = (JSON.parse(stdout) as { results: Array<{ outputPath?: string }> }).results;
  expect(fs.statSync(result!.outputPath!).size).toBe(30_000_000);
});

test('a call with an empty tool name or arguments of the wrong type gets its own rejected result; the others run', async () => {
  const input = batch([
    { id: 'empty', name: '', arguments: {} },
    { id: 'typed', name: 'Read', arguments: 5 },
    { id: 'fine', name: 'Read', arguments: { path: 'b.txt' } },
  ]);
  const run = await runCliProcess(['run', '--json'], { cwd: ws, input });
  expect(run.code).toBe(0);
  const { results } = JSON.parse(run.stdout) as { results: Array<{ id: string; outcome: string; output: string }> };
  expect(results.map((r) => [r.id, r.outcome])).toEqual([
    ['empty', 'rejected'],
    ['typed', 'rejected'],
    ['fine', 'executed'],
  ]);
  expect(results[0]!.output).toMatch(/^Tool "" not found/);
  expect(results[1]!.output).toMatch(/^Invalid args for tool "Read": /);
});

test('run --json writes each result as soon as it and the ones before it are in, not when the batch ends', async () => {
  // The second call waits for a file the test creates only once the first result is on stdout:
  // a CLI that printed the results at the end of the batch would never get there.
  const marker = nodePath.join(root, 'go');
  const input = batch([
    { id: 'first', name: 'Read', arguments: { path: 'a.txt' } },
    { id: 'second', name: 'Bash', arguments: { command: `while [ ! -e '${marker}' ]; do sleep 0.05; done; echo released` } },
  ]);
  const cli = startCliProcess(['run', '--json', '--yes', '--cwd', ws, '-'], { cwd: ws });
  cli.child.stdin.end(input);
  try {
    await waitFor(() => cli.stdout().includes('"id":"first"'), { what: 'the first result on stdout' });
    expect(cli.stdout()).not.toContain('"id":"second"');
  } finally {
    // Also when it failed: the waiting Bash call ends, and the CLI with it.
    fs.writeFileSync(marker, '');
  }
  expect((await cli.exit).code).toBe(0);
  const { results } = JSON.parse(cli.stdout()) as { results: Array<{ id: string; output: string }> };
  expect(results.map((r) => r.id)).toEqual(['first', 'second']);
  expect(results[1]!.output).toContain('released');
}, 30_000);

describe('toolhost run input errors exit with code 2', () => {
  test.each<[string, string[], string | undefined, RegExp]>([
    ['a missing file', ['run', 'missing.json'], undefined, /^toolhost: cannot read missing\.json: ENOENT/],
    ['invalid JSON', ['run'], '[{"name": "Read",', /^toolhost: stdin is not valid JSON: /],
    ['not an array', ['run'], '{"name": "Read"}', /^toolhost: stdin must be a JSON array of \{"id"\?: string, "name": string, "arguments": string \| object\}:\n {2}- \(root\): expected array, received object\n$/],
    ['a call without a name', ['run'], '[{"arguments": {}}]', /- \[0\]\.name: expected string, received undefined/],
    ['an unknown key', ['run'], '[{"name": "Read", "args": {}}]', /- \[0\]\.args: unknown key/],
    ['an unknown flag', ['run', '--force'], '[]', /error: unknown option '--force'/],
  ])('%s', async (_name, args, input, stderr) => {
    const run = await runCliProcess(args, { cwd: ws, input });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(stderr);
    expect(run.stdout).toBe('');
  });
});

describe('toolhost run reads only bounded regular files', () => {
  const oneRead = batch([{ name: 'Read', arguments: { path: 'b.txt' } }]);

  test.each<[string, string]>([
    ['/dev/zero', 'toolhost: cannot read /dev/zero: it is a character device, not a regular file. Give a JSON file, or pipe the batch on stdin ("-").\n'],
    ['calls.fifo', 'toolhost: cannot read calls.fifo: it is a FIFO (named pipe), not a regular file. Give a JSON file, or pipe the batch on stdin ("-").\n'],
  ])('a batch FILE that is %s is refused at once', async (file, stderr) => {
    execFileSync('mkfifo', [nodePath.join(ws, 'calls.fifo')]);
    const run = await runCliProcess(['run', file], { cwd: ws });
    expect(run).toEqual({ code: 2, stdout: '', stderr });
  });

  test('a batch FILE over 64 MB is refused without reading it', async () => {
    fs.writeFileSync(nodePath.join(root, 'huge.json'), '');
    fs.truncateSync(nodePath.join(root, 'huge.json'), 64 * 1024 * 1024 + 1);
    const run = await runCliProcess(['run', '../huge.json'], { cwd: ws });
    expect(run).toEqual({ code: 2, stdout: '', stderr: 'toolhost: cannot read ../huge.json: it is larger than 64 MB, the most a batch may be. Split it into smaller batches.\n' });
  });

  test('stdin is read up to 64 MB: /dev/zero as stdin ends with an error naming the limit', async () => {
    const run = await runCliProcess(['run'], { cwd: ws, stdinFrom: '/dev/zero' });
    expect(run).toEqual({ code: 2, stdout: '', stderr: 'toolhost: stdin holds more than 64 MB, the most a batch may be. Split it into smaller batches.\n' });
  });

  test.each<[string, string]>([
    ['/dev/zero', 'a character device'],
    ['config.fifo', 'a FIFO (named pipe)'],
  ])('--config %s is refused at once', async (file, kind) => {
    execFileSync('mkfifo', [nodePath.join(ws, 'config.fifo')]);
    const run = await runCliProcess(['run', '--config', file], { cwd: ws, input: oneRead });
    const shown = nodePath.resolve(ws, file);
    expect(run).toEqual({ code: 2, stdout: '', stderr: `toolhost: Invalid configuration in ${shown}:\n  - (root): it is ${kind}, not a regular file: give the path of a JSON file\n` });
  });

  test('a toolhost.json that is a FIFO is refused, and one over 4 MB too', async () => {
    execFileSync('mkfifo', [nodePath.join(ws, 'toolhost.json')]);
    const fifo = await runCliProcess(['run'], { cwd: ws, input: oneRead });
    expect(fifo).toEqual({
      code: 2,
      stdout: '',
      stderr: `toolhost: Invalid configuration in ${ws}/toolhost.json:\n  - (root): it is a FIFO (named pipe), not a regular file: give the path of a JSON file\n`,
    });
    fs.rmSync(nodePath.join(ws, 'toolhost.json'));
    fs.writeFileSync(nodePath.join(root, 'big.json'), '');
    fs.truncateSync(nodePath.join(root, 'big.json'), 4 * 1024 * 1024 + 1);
    const big = await runCliProcess(['run', '--config', '../big.json'], { cwd: ws, input: oneRead });
    expect(big).toEqual({
      code: 2,
      stdout: '',
      stderr: `toolhost: Invalid configuration in ${root}/big.json:\n  - (root): it is larger than 4.0 MB, the most a configuration file may be\n`,
    });
  });
});

describe('toolhost run stopped by a signal ends every process it started', () => {
  const leftovers: number[] = [];
  afterEach(() => {
    for (const pid of leftovers.splice(0)) killQuietly(pid);
  });

  /** Starts a background task and then a foreground command with a child that left its process group. */
  async function startRun(): Promise<{ cli: ReturnType<typeof startCliProcess>; pids: number[] }> {
    const cli = startCliProcess(['run', '--yes', '--json', '--cwd', ws], { cwd: root });
    cli.child.stdin.end(
      batch([
        { name: 'Bash', arguments: { command: 'echo $$ > task.pid; exec sleep 100', run_in_background: true } },
        { name: 'Bash', arguments: { command: `${ESCAPE_ROUTES[0]![1]}\necho $$ > shell.pid\nsleep 100` } },
      ]),
    );
    const pids = await Promise.all(['task.pid', 'shell.pid', 'esc.pid'].map((file) => readPidFile(nodePath.join(ws, file))));
    leftovers.push(...pids);
    for (const pid of pids) expect(isAlive(pid)).toBe(true);
    return { cli, pids };
  }

  test.each<[NodeJS.Signals, number]>([
    ['SIGTERM', 143],
    ['SIGHUP', 129],
    ['SIGINT', 130],
  ])('%s aborts the batch, prints the results, stops the command, its escaped child and the task, and exits %i', async (signal, code) => {
    const { cli, pids } = await startRun();
    process.kill(cli.child.pid!, signal);
    expect(await cli.exit).toEqual({ code, signal: null });
    for (const pid of pids) expect([pid, isAlive(pid)]).toEqual([pid, false]);
    const { results } = JSON.parse(cli.stdout()) as { results: Array<{ outcome: string; isError: boolean; output: string }> };
    expect(results.map((r) => [r.outcome, r.isError])).toEqual([
      ['executed', false],
      ['aborted', true],
    ]);
    expect(results[1]!.output).toMatch(/^<system>Command was interrupted after .+ and stopped \(SIGTERM to its process group\)\. It printed nothing\.<\/system>$/);
    expect(cli.stderr()).toContain(signal === 'SIGINT' ? 'Aborting… (press Ctrl-C again to quit now)' : `toolhost: ${signal}: stopping…\n`);
  });

  test('SIGKILL: its watchdog stops the command, its escaped child and the task', async () => {
    const { cli, pids } = await startRun();
    process.kill(cli.child.pid!, 'SIGKILL');
    expect(await cli.exit).toEqual({ code: null, signal: 'SIGKILL' });
    await waitFor(() => pids.every((pid) => !isAlive(pid)), { what: 'every process of the run to end' });
  });

  test('SIGKILL: its watchdog stops an MCP server that ignores the end of its stdin', async () => {
    // Not an MCP server: it never answers, so the run waits for it to start, and it outlives its stdin.
    writeFiles(ws, { 'toolhost.json': JSON.stringify({ mcpServers: { s: { command: 'sh', args: ['-c', 'echo $$ > mcp.pid; exec sleep 100'], startupTimeoutMs: 60_000 } } }) });
    const cli = startCliProcess(['run', '--yes', '--cwd', ws], { cwd: root });
    cli.child.stdin.end(batch([{ name: 'mcp__s__x', arguments: {} }]));
    const server = await readPidFile(nodePath.join(ws, 'mcp.pid'));
    leftovers.push(server);
    process.kill(cli.child.pid!, 'SIGKILL');
    expect(await cli.exit).toEqual({ code: null, signal: 'SIGKILL' });
    await waitFor(() => !isAlive(server), { what: 'the MCP server to end' });
  });

  test('a signal while it waits for its input on stdin exits at once', async () => {
    const cli = startCliProcess(['run', '--cwd', ws], { cwd: root });
    // The input never ends: without the signal the run would wait for ever.
    cli.child.stdin.write('[');
    // Node catches SIGINT and SIGTERM from the start; SIGHUP only once toolhost handles them all.
    await waitFor(() => catchesSignal(cli.child.pid!, 'SIGHUP'), { what: 'toolhost to handle SIGHUP' });
    process.kill(cli.child.pid!, 'SIGHUP');
    expect(await cli.exit).toEqual({ code: 129, signal: null });
    expect(cli.stdout()).toBe('');
  });
});

describe('toolhost run with command hooks from toolhost.json', () => {
  test('a hook that exits 1, and one that times out, are reported on stderr and do not block the call', async () => {
    writeFiles(ws, {
      'hook-fails.sh': 'cat > /dev/null\necho "jq: not found" >&2\nexit 1\n',
      'toolhost.json': JSON.stringify({
        hooks: {
          PreToolUse: [
            { matcher: 'Read', hooks: [{ type: 'command', command: 'sh ./hook-fails.sh' }] },
            { matcher: 'Read', hooks: [{ type: 'command', command: 'sleep 30', timeout: 1 }] },
          ],
        },
      }),
    });
    const expected = [
      'PreToolUse hook "sh ./hook-fails.sh" (for Read, call r1): the hook exited with code 1: jq: not found; it did not block the call',
      'PreToolUse hook "sleep 30" (for Read, call r1): the hook did not finish within its timeout of 1 s and was killed; it did not block the call',
    ];
    const run = await runCliProcess(['run'], { cwd: ws, input: batch([{ id: 'r1', name: 'Read', arguments: { path: 'a.txt' } }]) });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('executed');
    expect(run.stderr.split('\n').filter((line) => line.startsWith('warning: ')).sort()).toEqual(expected.map((m) => `warning: ${m}`));

    // Beside --json's events, a warning is a JSON line too: every stderr line parses.
    const json = await runCliProcess(['run', '--json'], { cwd: ws, input: batch([{ id: 'r1', name: 'Read', arguments: { path: 'a.txt' } }]) });
    expect(json.code).toBe(0);
    expect((JSON.parse(json.stdout) as { results: Array<{ outcome: string; isError: boolean }> }).results.map((r) => [r.outcome, r.isError])).toEqual([['executed', false]]);
    const events = json.stderr.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as { event: string; message?: string });
    expect(events.filter((e) => e.event === 'warning').map((e) => e.message).sort()).toEqual(expected);
  });
});
