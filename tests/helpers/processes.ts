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

/** Polls until `condition` holds; fails with `what` after `timeoutMs`. No fixed sleeps in tests. */
export async function waitUntil(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
