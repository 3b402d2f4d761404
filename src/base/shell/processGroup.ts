import * as fs from 'node:fs';
import { isErrnoException } from '../errors';

/**
 * Process groups of commands started detached (`spawn(..., {detached: true})`): the shell is the
 * group leader, so its pid is the group id, and everything it starts (unless it calls setsid)
 * stays in the group.
 */

/** Sends a signal to every process of a group. Returns false when the group no longer exists. */
export function signalProcessGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    if (isErrnoException(error) && error.code === 'EPERM') return true;
    return false;
  }
}

/**
 * Whether a group still has a live member. A zombie does not count: where nobody reaps orphans
 * (a container whose PID 1 is not an init), killed processes stay zombies forever, and
 * `kill(-pgid, 0)` keeps succeeding for them.
 */
export function isProcessGroupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    return isErrnoException(error) && error.code === 'EPERM';
  }
  if (process.platform !== 'linux') return true;
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
    const state = processState(entry);
    if (state && state.pgrp === pgid && state.state !== 'Z' && state.state !== 'X') return true;
  }
  return false;
}

/** Whether a single process is alive (not a zombie). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return isErrnoException(error) && error.code === 'EPERM';
  }
  if (process.platform !== 'linux') return true;
  const state = processState(String(pid));
  return state === undefined ? false : state.state !== 'Z' && state.state !== 'X';
}

function processState(pid: string): { state: string; pgrp: number } | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // `pid (comm) state ppid pgrp …`; comm may contain spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '', pgrp: Number(fields[2]) };
}
