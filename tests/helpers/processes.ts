import * as fs from 'node:fs';
import * as os from 'node:os';
import { waitFor } from './async';

/**
 * Whether a process is alive, read from /proc independently of the code under test. A zombie
 * (exited, not yet reaped) counts as gone: in a container whose PID 1 does not reap orphans,
 * killed processes stay zombies.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Kills a process left behind by a test (ignores errors). */
export function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone already
  }
}

/**
 * Ways a command's child leaves its process group, each starting `sleep 100` that first writes
 * its pid (and a newline) to `esc.pid` in the command's directory.
 */
export const ESCAPE_ROUTES: ReadonlyArray<readonly [name: string, command: string]> = [
  ['setsid … &', `setsid sh -c 'echo $$ > esc.pid; exec sleep 100' &`],
  ['setsid -f', `setsid -f sh -c 'echo $$ > esc.pid; exec sleep 100'`],
  ['setpgrp()', `perl -e 'setpgrp(0, 0); open(my $f, ">", "esc.pid") or die; print $f "$$\\n"; close $f; exec "sleep", "100"' &`],
  ['a double fork into a new session', `( setsid sh -c 'echo $$ > esc.pid; exec sleep 100' & ) &`],
];

/** Waits until `file` holds a whole pid line and returns the pid. */
export function readPidFile(file: string): Promise<number> {
  return waitFor(
    () => {
      let text: string;
      try {
        text = fs.readFileSync(file, 'utf8');
      } catch {
        return undefined;
      }
      return text.endsWith('\n') ? Number(text) : undefined;
    },
    { what: `a pid in ${file}` },
  );
}

/** Whether a process has a handler installed for `signal` (SigCgt in /proc/<pid>/status). */
export function catchesSignal(pid: number, signal: NodeJS.Signals): boolean {
  let status: string;
  try {
    status = fs.readFileSync(`/proc/${pid}/status`, 'latin1');
  } catch {
    return false;
  }
  const mask = /^SigCgt:\s*([0-9a-f]+)$/m.exec(status)?.[1];
  if (mask === undefined) return false;
  return ((BigInt(`0x${mask}`) >> BigInt(os.constants.signals[signal] - 1)) & 1n) === 1n;
}
