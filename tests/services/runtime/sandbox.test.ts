import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as nodePath from 'node:path';
import { createApp } from '../../../src/scopes/appScope';
import { builtinFeatures } from '../../../src/scopes/builtinFeatures';
import { SandboxUnavailableError } from '../../../src/services/runtime/bwrapRuntime';
import { IAgentRuntimeService } from '../../../src/services/runtime/runtime';
import { IAgentTaskService } from '../../../src/tools/task/contract';
import { callTool, text, useAgent } from '../../helpers/agentHarness';
import { waitFor } from '../../helpers/async';
import { describeWithBwrap } from '../../helpers/installed';
import { isAlive, killQuietly } from '../../helpers/processes';
import { makeTempDir, removeDir, writeFiles } from '../../helpers/tempDir';

/**
 * Bash and background tasks under bubblewrap (config `sandbox`), with the real bwrap: what the
 * sandbox refuses is checked against the same command run without it.
 */

const fx = useAgent({ builtins: true, tempDataDir: true });
const outside: string[] = [];
afterEach(() => {
  for (const dir of outside.splice(0)) removeDir(dir);
});

function outsideDir(): string {
  const dir = makeTempDir('toolhost-outside-');
  outside.push(dir);
  return dir;
}

async function bash(command: string, extra: Record<string, unknown> = {}): Promise<string> {
  return text(await callTool(fx.agent, 'Bash', { command, ...extra }));
}

/** Live processes (seen from outside any sandbox) whose command line holds `token`. */
function processesWith(token: string): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline: string;
    try {
      cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'latin1');
    } catch {
      continue;
    }
    if (cmdline.split('\0').includes(token) && isAlive(Number(entry))) found.push(Number(entry));
  }
  return found;
}

/** A sleep duration no other process uses, to find it in /proc. */
function uniqueSleep(): string {
  return `${1000 + Math.floor(Math.random() * 8000)}.${process.pid}${Math.floor(Math.random() * 1000)}`;
}

describeWithBwrap('sandbox "bwrap": the file system', () => {
  test('a write outside the workspace fails as read-only, and no file appears; without the sandbox it lands', async () => {
    const elsewhere = outsideDir();
    const target = nodePath.join(elsewhere, 'escaped.txt');
    fx.open({ config: { sandbox: 'bwrap' } });
    expect(fx.agent.get(IAgentRuntimeService).current.name).toBe('bwrap-local');
    const output = await bash(`echo nope > ${target}`);
    expect(output).toContain('Read-only file system');
    expect(fs.existsSync(target)).toBe(false);

    fx.open({ config: { sandbox: 'none' } });
    await bash(`echo yes > ${target}`);
    expect(fs.readFileSync(target, 'utf8')).toBe('yes\n');
  });

  test('writes in the workspace, a sandbox.writable folder and TMPDIR land; TMPDIR is private and goes with the agent', async () => {
    const extra = outsideDir();
    const harness = fx.open({ config: { sandbox: { mode: 'bwrap', writable: [extra] } } });
    const output = await bash(`echo in > inside.txt && mkdir -p sub && echo deep > sub/x && echo more > ${extra}/more.txt && echo tmp > "$TMPDIR/t" && echo "$TMPDIR"`);
    const tmpdir = output.trim();
    expect(fs.readFileSync(nodePath.join(fx.dir, 'inside.txt'), 'utf8')).toBe('in\n');
    expect(fs.readFileSync(nodePath.join(fx.dir, 'sub/x'), 'utf8')).toBe('deep\n');
    expect(fs.readFileSync(nodePath.join(extra, 'more.txt'), 'utf8')).toBe('more\n');
    expect(nodePath.basename(tmpdir)).toMatch(/^toolhost-sandbox-/);
    expect(fs.readFileSync(nodePath.join(tmpdir, 't'), 'utf8')).toBe('tmp\n');
    await harness.dispose();
    expect(fs.existsSync(tmpdir)).toBe(false);
  });

  test('commands run in their own PID namespace, /dev holds only the basic devices', async () => {
    fx.open({ config: { sandbox: 'bwrap' } });
    // The sandbox's first process is its init (pid 1); the command's shell is pid 2.
    expect(await bash('echo $$')).toBe('2\n');
    expect((await bash('ls /dev')).split('\n')).not.toContain('sda');
    expect(await bash('test -e /dev/null && test -e /dev/urandom && echo ok')).toBe('ok\n');
  });

  test("the runtime's exec runs under the sandbox too (the port's other spawn path)", async () => {
    const elsewhere = outsideDir();
    fx.open({ config: { sandbox: 'bwrap' } });
    const result = await fx.agent.get(IAgentRuntimeService).requireProcess().exec('sh', ['-c', `echo $$; touch ${elsewhere}/x`], { cwd: fx.dir });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('2\n');
    expect(result.stderr).toContain('Read-only file system');
    expect(fs.existsSync(nodePath.join(elsewhere, 'x'))).toBe(false);
  });

  test('a signal that ends the command is reported as bash reports it (exit code 128 + n), and the exit code passes through', async () => {
    fx.open({ config: { sandbox: 'bwrap' } });
    expect(await bash('kill -TERM $$')).toContain('Command failed with exit code 143.');
    expect(await bash('exit 7')).toContain('Command failed with exit code 7.');
  });
});

describeWithBwrap('sandbox "bwrap": the network', () => {
  let server: net.Server;
  let port: number;
  let connections = 0;
  beforeEach(async () => {
    connections = 0;
    server = net.createServer((socket) => {
      connections++;
      socket.end('hello\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
  });
  afterEach(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const connect = () => bash(`exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3`);

  test('is refused by default: a server on 127.0.0.1 outside is not reached', async () => {
    fx.open({ config: { sandbox: 'bwrap' } });
    const output = await connect();
    expect(output).toMatch(/Connection refused|Network is unreachable|Cannot assign requested address/);
    expect(connections).toBe(0);
  });

  test('is reached with sandbox.network: true', async () => {
    fx.open({ config: { sandbox: { mode: 'bwrap', network: true } } });
    expect(await connect()).toBe('hello\n');
    expect(connections).toBe(1);
  });
});

describeWithBwrap('sandbox "bwrap": processes end with the call', () => {
  // Leaving the process group and dropping the run marker escapes the unsandboxed clean-up.
  const escape = (duration: string) => `setsid env -u TOOLHOST_RUN_ID sleep ${duration} > /dev/null 2>&1 & echo started`;

  test('a process left running in the background is gone after the call', async () => {
    const duration = uniqueSleep();
    fx.open({ config: { sandbox: 'bwrap', bash: { stopLeftoverProcesses: false } } });
    expect(await bash(`sleep ${duration} & ${escape(duration)}`)).toBe('started\n');
    expect(processesWith(duration)).toEqual([]);
  });

  test('(control) without the sandbox the same process outlives the call', async () => {
    const duration = uniqueSleep();
    fx.open({ config: { sandbox: 'none', bash: { stopLeftoverProcesses: false } } });
    expect(await bash(escape(duration))).toBe('started\n');
    const left = await waitFor(() => processesWith(duration).length > 0 && processesWith(duration), { what: 'the escaped sleep' });
    for (const pid of left) killQuietly(pid);
  });

  test('background tasks run sandboxed too, and TaskStop kills the whole sandboxed tree', async () => {
    const elsewhere = outsideDir();
    const duration = uniqueSleep();
    fx.open({ config: { sandbox: 'bwrap' } });
    const started = text(
      await callTool(fx.agent, 'Bash', {
        command: `echo pid=$$; touch ${elsewhere}/bg.txt; echo written > bg-inside.txt; sleep ${duration} & ${escape(duration)}; sleep ${duration}`,
        run_in_background: true,
      }),
    );
    const id = /^task_id: (\S+)$/m.exec(started)![1]!;
    const tasks = fx.agent.get(IAgentTaskService);
    const bwrapPid = tasks.get(id)!.pid!;
    const sleeps = await waitFor(() => processesWith(duration).length === 3 && processesWith(duration), { what: 'the three sleeps of the task' });
    const output = await waitFor(async () => {
      const read = text(await callTool(fx.agent, 'TaskOutput', { task_id: id }));
      return read.includes('started') && read.includes('Read-only file system') && read;
    }, { what: 'the output of the task' });
    expect(output).toContain('pid=2');
    expect(output).toContain('Read-only file system');
    expect(fs.existsSync(nodePath.join(elsewhere, 'bg.txt'))).toBe(false);
    expect(fs.readFileSync(nodePath.join(fx.dir, 'bg-inside.txt'), 'utf8')).toBe('written\n');

    const stopped = text(await callTool(fx.agent, 'TaskStop', { task_id: id }));
    expect(stopped).toMatch(/killed/);
    expect(tasks.get(id)!.status).toBe('killed');
    expect(sleeps.filter(isAlive)).toEqual([]);
    expect(isAlive(bwrapPid)).toBe(false);
  });
});

describe('sandbox "bwrap" where bubblewrap cannot run', () => {

  test('a missing binary is a SandboxUnavailableError at agent creation that says how to fix it', () => {
    const dir = outsideDir();
    const app = createApp({ features: builtinFeatures(), config: { sandbox: { mode: 'bwrap', bwrapPath: nodePath.join(dir, 'no-bwrap') } } });
    let error: unknown;
    try {
      app.createAgent({ cwd: dir });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SandboxUnavailableError);
    expect((error as SandboxUnavailableError).reason).toBe('not-found');
    expect((error as SandboxUnavailableError).message).toBe(
      `The sandbox needs bubblewrap, but "${dir}/no-bwrap" was not found. Install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), ` +
        'or give its path in config sandbox.bwrapPath, or run without the sandbox (no --sandbox flag; config "sandbox": "none").',
    );
    void app.dispose();
  });

  test('bwrap not on PATH is found missing too', () => {
    const dir = outsideDir();
    const saved = process.env.PATH;
    process.env.PATH = dir;
    try {
      const app = createApp({ features: builtinFeatures(), config: { sandbox: 'bwrap' } });
      expect(() => app.createAgent({ cwd: dir })).toThrow(/"bwrap" was not found on PATH/);
      void app.dispose();
    } finally {
      process.env.PATH = saved;
    }
  });

  test('a bwrap that cannot create namespaces is reported with what it said, and no temporary folder is left', () => {
    const dir = outsideDir();
    writeFiles(dir, { 'bwrap': '#!/bin/sh\necho "bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2\nexit 1\n' });
    fs.chmodSync(nodePath.join(dir, 'bwrap'), 0o755);
    const app = createApp({ features: builtinFeatures(), config: { sandbox: { mode: 'bwrap', bwrapPath: nodePath.join(dir, 'bwrap') } } });
    const id = `nsfail-${process.pid}-${Math.floor(Math.random() * 1e6)}`;
    let error: SandboxUnavailableError | undefined;
    try {
      app.createAgent({ cwd: dir, id });
    } catch (e) {
      error = e as SandboxUnavailableError;
    }
    expect(error).toBeInstanceOf(SandboxUnavailableError);
    expect(fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith(`toolhost-sandbox-${id}-`))).toEqual([]);
    expect(error!.reason).toBe('no-namespaces');
    expect(error!.message).toContain('could not create its namespaces (bwrap: No permissions to create new namespace');
    expect(error!.message).toContain('Enable unprivileged user namespaces');
    void app.dispose();
  });
});

describe('config sandbox', () => {
  test.each([
    ['bwarp', 'sandbox: must be one of "none", "bwrap"'],
    [3, 'sandbox: must be "none" or "bwrap", or an object'],
    [{ mode: 'bwrap', netwrk: true }, 'Unrecognized key: "netwrk"; the keys are mode, network, writable, bwrapPath'],
    [{ network: true }, 'sandbox.mode: must be one of "none", "bwrap"'],
    [{ mode: 'bwrap', network: 'yes' }, 'sandbox.network'],
  ])('%j is refused with a clear error', (sandbox, message) => {
    expect(() => createApp({ features: builtinFeatures(), config: { sandbox } as never })).toThrow(message);
  });

  test('a missing sandbox.writable folder is an error at agent creation', () => {
    const dir = outsideDir();
    const app = createApp({ features: builtinFeatures(), config: { sandbox: { mode: 'bwrap', writable: ['missing'] } } });
    expect(() => app.createAgent({ cwd: dir })).toThrow(`sandbox.writable: folder "${dir}/missing" does not exist.`);
    void app.dispose();
  });
});
