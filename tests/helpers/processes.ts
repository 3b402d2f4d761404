import * as fs from 'node:fs';

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
