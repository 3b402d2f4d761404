import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { OutputCapture } from '../../src/base/shell/outputCapture';
import {
  findMarkedProcesses,
  HOST_RUN_PREFIX,
  isProcessAlive,
  isProcessGroupAlive,
  newRunId,
  RUN_ID_VARIABLE,
  signalProcess,
  signalProcessGroup,
  withRunMarker,
} from '../../src/base/shell/processGroup';
import { shellEnvironment } from '../../src/base/shell/shellEnv';
import { type OutputStreamName, ShellProcess, type ShellProcessOptions } from '../../src/base/shell/shellProcess';
import { spawn } from 'node:child_process';
import { waitFor } from '../helpers/async';
import { isAlive, killQuietly, readPidFile } from '../helpers/processes';
import { useTempDir } from '../helpers/tempDir';

const dir = useTempDir();

function capture(options: Partial<ConstructorParameters<typeof OutputCapture>[0]> = {}): OutputCapture {
  return new OutputCapture({
    headChars: 10,
    tailChars: 10,
    filePath: nodePath.join(dir.path, 'out', 'full.log'),
    fileMode: 'overflow',
    fileMaxBytes: 1_000_000,
    ...options,
  });
}

describe('OutputCapture', () => {
  test('output that fits is kept whole, in arrival order, and needs no file', async () => {
    const c = capture();
    c.write(Buffer.from('out1\n'), 'stdout');
    c.write(Buffer.from('err1\n'), 'stderr');
    c.write(Buffer.from('out2\n'), 'stdout');
    await c.close();
    expect(c.render()).toEqual({ text: 'out1\nerr1\nout2\n', omittedChars: 0 });
    expect(c.cut).toBe(false);
    expect(c.hasFile).toBe(false);
    expect(fs.existsSync(nodePath.join(dir.path, 'out', 'full.log'))).toBe(false);
  });

  test('longer output keeps the head and the tail, and the whole bytes in the file', async () => {
    const c = capture();
    const all = 'abcdefghijklmnopqrstuvwxyz0123456789';
    for (const part of all.match(/.{1,7}/g)!) c.write(Buffer.from(part), 'stdout');
    await c.close();
    expect(c.render()).toEqual({ text: 'abcdefghij\n[... 16 characters omitted ...]\n0123456789', omittedChars: 16 });
    expect(c.totalChars).toBe(36);
    expect(c.totalBytes).toBe(36);
    expect(fs.readFileSync(c.filePath, 'utf8')).toBe(all);
    expect(c.tail(4)).toBe('6789');
  });

  test('a character split between chunks is decoded whole, per stream', async () => {
    const c = capture({ headChars: 100, tailChars: 100 });
    const euro = Buffer.from('€'); // three bytes
    c.write(euro.subarray(0, 1), 'stdout');
    c.write(Buffer.from('x'), 'stderr');
    c.write(euro.subarray(1), 'stdout');
    await c.close();
    expect(c.render().text).toBe('x€');
  });

  test('head and tail are cut at a line break when one is near', async () => {
    const c = capture({ headChars: 100, tailChars: 100 });
    const lines = Array.from({ length: 50 }, (_, i) => `line ${String(i).padStart(2, '0')}`).join('\n') + '\n';
    c.write(Buffer.from(lines), 'stdout');
    await c.close();
    const { text } = c.render();
    expect(text.startsWith('line 00\n')).toBe(true);
    expect(text).toMatch(/\nline \d\d\n\[\.\.\. [\d,]+ characters omitted \.\.\.\]\nline \d\d\n/);
    expect(text.endsWith('line 49\n')).toBe(true);
  });

  test('the file stops at its cap; the tail still has the end', async () => {
    const c = capture({ fileMaxBytes: 25 });
    c.write(Buffer.from('a'.repeat(20)), 'stdout');
    c.write(Buffer.from('b'.repeat(20)), 'stdout');
    await c.close();
    expect(c.fileCapped).toBe(true);
    expect(fs.readFileSync(c.filePath, 'utf8')).toBe('a'.repeat(20) + 'b'.repeat(5));
    expect(c.tail(5)).toBe('bbbbb');
  });

  test('a file that cannot be created is reported, and capture goes on', async () => {
    fs.writeFileSync(nodePath.join(dir.path, 'blocker'), '');
    const c = capture({ filePath: nodePath.join(dir.path, 'blocker', 'full.log'), fileMode: 'always' });
    c.write(Buffer.from('hello'), 'stdout');
    await c.close();
    expect(c.fileError).toMatch(/EEXIST|ENOTDIR/);
    expect(c.hasFile).toBe(false);
    expect(c.render().text).toBe('hello');
  });
});

function shell(command: string, options: Partial<ShellProcessOptions> = {}): { proc: ShellProcess; chunks: [OutputStreamName, string][] } {
  const chunks: [OutputStreamName, string][] = [];
  const proc = new ShellProcess({
    command,
    cwd: dir.path,
    env: shellEnvironment(),
    drainMs: 100,
    killGraceMs: 500,
    onData: (chunk, stream) => chunks.push([stream, chunk.toString()]),
    ...options,
  });
  return { proc, chunks };
}

describe('ShellProcess', () => {
  test('reports the exit code and nothing else for a plain command', async () => {
    const { proc, chunks } = shell('echo hi; exit 4');
    expect(await proc.done).toEqual({ exitCode: 4, signal: null, forceKilled: false, leftoversStopped: false, outputCutOff: false });
    expect(chunks).toEqual([['stdout', 'hi\n']]);
  });

  test('stdin, when given, reaches the command and is then closed', async () => {
    const { proc, chunks } = shell('cat; echo "[eof]"', { stdin: '{"a":1}' });
    expect((await proc.done).exitCode).toBe(0);
    expect(chunks.map((c) => c[1]).join('')).toBe('{"a":1}[eof]\n');
  });

  test('a command that exits without reading a large stdin is no error', async () => {
    const { proc } = shell('exit 3', { stdin: 'x'.repeat(1_000_000) });
    expect((await proc.done).exitCode).toBe(3);
  });

  test('without the /proc scan on exit, what the shell left in its group is still stopped', async () => {
    const { proc, chunks } = shell('sleep 1000 & echo $!', { findEscapedOnExit: false });
    const exit = await proc.done;
    expect(exit).toMatchObject({ exitCode: 0, leftoversStopped: true });
    expect(isAlive(Number(chunks[0]![1]))).toBe(false);
  });

  test('a shell that cannot start resolves with the error', async () => {
    const { proc } = shell('true', { shell: nodePath.join(dir.path, 'no-such-shell') });
    const exit = await proc.done;
    expect(exit.spawnError).toContain('ENOENT');
    expect(exit.exitCode).toBeNull();
    expect(proc.pid).toBeUndefined();
  });

  test('kill stops the whole group; done resolves once no live member is left', async () => {
    const { proc, chunks } = shell('sleep 1000 & echo $!; wait');
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        if (chunks.length > 0) {
          clearInterval(timer);
          resolve();
        }
      }, 10);
    });
    const grandchild = Number(chunks[0]![1]);
    proc.kill('abort');
    proc.kill('again'); // later calls do nothing
    const exit = await proc.done;
    expect(exit).toMatchObject({ killReason: 'abort', signal: 'SIGTERM', forceKilled: false });
    expect(isAlive(grandchild)).toBe(false);
    expect(isProcessAlive(grandchild)).toBe(false);
    expect(isProcessGroupAlive(proc.pid!)).toBe(false);
  });

  test('a consumer that falls behind after the exit still gets everything buffered in the pipe', async () => {
    let bytes = 0;
    let paused = false;
    const proc: ShellProcess = new ShellProcess({
      // Three pieces that fit in the pipe buffer: the shell exits while nobody reads.
      command: 'for i in 1 2 3; do head -c 10000 /dev/zero; sleep 0.02; done',
      cwd: dir.path,
      env: shellEnvironment(),
      drainMs: 50,
      killGraceMs: 500,
      onData: (chunk) => {
        bytes += chunk.length;
        if (!paused) {
          // Stop reading at the first chunk, and resume only well after the shell has exited.
          paused = true;
          proc.pause();
          setTimeout(() => proc.resume(), 300);
        }
      },
    });
    const exit = await proc.done;
    expect(exit.outputCutOff).toBe(false);
    expect(bytes).toBe(30000);
  });
});

describe('run markers', () => {
  test('a run id starts with this process\'s prefix; a marker adds to an outer one', () => {
    const id = newRunId();
    expect(id).toMatch(new RegExp(`^${HOST_RUN_PREFIX}-[0-9a-f]{12}$`));
    expect(withRunMarker({ PATH: '/bin' }, id)).toEqual({ PATH: '/bin', [RUN_ID_VARIABLE]: id });
    expect(withRunMarker({ [RUN_ID_VARIABLE]: 'outer-1 ' }, id)).toEqual({ [RUN_ID_VARIABLE]: `outer-1 ${id}` });
  });

  test('a command sees its marker after the outer ones', async () => {
    const { proc, chunks } = shell('printf %s "$TOOLHOST_RUN_ID"', { env: { ...shellEnvironment(), [RUN_ID_VARIABLE]: 'outer-1' } });
    await proc.done;
    expect(chunks.map((c) => c[1]).join('')).toMatch(new RegExp(`^outer-1 ${HOST_RUN_PREFIX}-[0-9a-f]{12}$`));
  });

  test('findMarkedProcesses finds a process in another session by its marker, and only that one', async () => {
    const id = newRunId();
    const pidFile = nodePath.join(dir.path, 'esc.pid');
    const command = `setsid sh -c 'echo $$ > ${pidFile}; exec sleep 100' & sleep 100 & echo $! > ${pidFile}.plain; wait`;
    const marked = spawn('sh', ['-c', command], { env: withRunMarker(process.env, `other ${id}`), stdio: 'ignore', detached: true });
    const unmarked = spawn('sleep', ['100'], { stdio: 'ignore' });
    let escapee = 0;
    try {
      escapee = await readPidFile(pidFile);
      const sibling = await readPidFile(`${pidFile}.plain`);
      const found = findMarkedProcesses(id);
      expect(found.map((p) => p.pid).sort()).toEqual([marked.pid!, sibling, escapee].sort());
      expect(found.find((p) => p.pid === escapee)!.pgrp).toBe(escapee);
      expect(found.find((p) => p.pid === sibling)!.pgrp).toBe(marked.pid);
      expect(findMarkedProcesses(newRunId())).toEqual([]);
      expect(findMarkedProcesses(id.slice(0, -1))).toEqual([]);
    } finally {
      if (escapee) killQuietly(escapee);
      signalProcessGroup(marked.pid!, 'SIGKILL');
      unmarked.kill('SIGKILL');
    }
  });

  test('signals to pid 0, 1 or a negative id are refused (they would reach other processes)', () => {
    for (const id of [0, 1, -1, -5, 1.5, Number.NaN]) {
      expect(signalProcessGroup(id, 'SIGCONT')).toBe(false);
      expect(signalProcess(id, 'SIGCONT')).toBe(false);
    }
  });
});

describe('the process watchdog', () => {
  const dist = nodePath.resolve(__dirname, '../../dist/base/shell');

  test('when toolhost is killed, it stops a marked process whose group it was never told about', async () => {
    const pidFile = nodePath.join(dir.path, 'marked.pid');
    // A toolhost-like process killed between a spawn and watchProcessGroup: only the marker is left.
    const script = `
      const { spawn } = require('node:child_process');
      const { newRunId, withRunMarker } = require(${JSON.stringify(`${dist}/processGroup.js`)});
      const { ensureProcessWatchdog } = require(${JSON.stringify(`${dist}/processWatchdog.js`)});
      ensureProcessWatchdog();
      spawn('sh', ['-c', 'echo $$ > ${pidFile}; exec sleep 100'], { env: withRunMarker(process.env, newRunId()), detached: true, stdio: 'ignore' });
      setInterval(() => undefined, 1000);`;
    const host = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
    let marked = 0;
    try {
      marked = await readPidFile(pidFile);
      expect(isAlive(marked)).toBe(true);
      host.kill('SIGKILL');
      await waitFor(() => !isAlive(marked), { what: 'the watchdog to stop the marked process' });
    } finally {
      host.kill('SIGKILL');
      if (marked) killQuietly(marked);
    }
  });
});

describe('shellEnvironment()', () => {
  test('adds the non-interactive settings and drops forced colours', () => {
    const env = shellEnvironment({ PATH: '/bin', FORCE_COLOR: '1', CLICOLOR_FORCE: '1', TERM: 'xterm-256color' }, { EXTRA: 'x' });
    expect(env).toEqual({ PATH: '/bin', NO_COLOR: '1', TERM: 'dumb', GIT_TERMINAL_PROMPT: '0', PAGER: 'cat', GIT_PAGER: 'cat', EXTRA: 'x' });
  });
});
