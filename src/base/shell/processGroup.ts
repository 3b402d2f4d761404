import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { isErrnoException } from '../errors';

/**
 * Process groups of commands started detached (`spawn(..., {detached: true})`): the shell is the
 * group leader, so its pid is the group id, and everything it starts (unless it calls setsid or
 * setpgid) stays in the group. What leaves the group is found by a run marker in its environment.
 */

/**
 * The environment variable that marks every process of a command: the run ids of the commands it
 * descends from, outermost first, separated by spaces (a toolhost run inside a command adds its
 * own, so the outer run still finds the inner run's processes). Inherited through setsid, setpgid
 * and double forks; only a process that replaces its environment loses it.
 */
export const RUN_ID_VARIABLE = 'TOOLHOST_RUN_ID';

/** Random per toolhost process: every run id of this process starts with `<HOST_RUN_PREFIX>-`. */
export const HOST_RUN_PREFIX = randomBytes(6).toString('hex');

export function newRunId(): string {
  return `${HOST_RUN_PREFIX}-${randomBytes(6).toString('hex')}`;
}

/** `env` with `runId` added to the run marker. */
export function withRunMarker(env: NodeJS.ProcessEnv, runId: string): NodeJS.ProcessEnv {
  const outer = env[RUN_ID_VARIABLE]?.trim();
  return { ...env, [RUN_ID_VARIABLE]: outer ? `${outer} ${runId}` : runId };
}

/** Whether an environment block (`/proc/<pid>/environ`: NUL-separated) carries `runId`. */
function carriesRunId(environ: Buffer, runId: string): boolean {
  const key = `${RUN_ID_VARIABLE}=`;
  let at = environ.indexOf(key);
  while (at > 0 && environ[at - 1] !== 0) at = environ.indexOf(key, at + 1);
  if (at < 0) return false;
  const end = environ.indexOf(0, at);
  const value = environ.toString('latin1', at + key.length, end < 0 ? environ.length : end);
  return value.split(' ').includes(runId);
}

export interface MarkedProcess {
  readonly pid: number;
  /** Its process group. */
  readonly pgrp: number;
}

/**
 * The live processes of this user (zombies left out) whose environment carries `runId`, from one
 * pass over /proc. Empty where there is no /proc (the process group is all that is stopped there).
 */
export function findMarkedProcesses(runId: string): MarkedProcess[] {
  if (process.platform !== 'linux') return [];
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  const uid = process.getuid?.();
  const found: MarkedProcess[] = [];
  for (const entry of entries) {
    if (!isPidName(entry) || Number(entry) === process.pid) continue;
    if (!isMarked(entry, runId, uid)) continue;
    const state = processState(entry);
    if (state && state.state !== 'Z' && state.state !== 'X') found.push({ pid: Number(entry), pgrp: state.pgrp });
  }
  return found;
}

/** Whether a process is alive and still carries `runId` (a pid that was reused does not). */
export function isMarkedProcessAlive(pid: number, runId: string): boolean {
  return isProcessAlive(pid) && (process.platform !== 'linux' || isMarked(String(pid), runId, process.getuid?.()));
}

function isMarked(pid: string, runId: string, uid: number | undefined): boolean {
  try {
    // The environment first: few processes carry the marker, so few need the owner checked.
    if (!carriesRunId(fs.readFileSync(`/proc/${pid}/environ`), runId)) return false;
    return uid === undefined || fs.statSync(`/proc/${pid}`).uid === uid;
  } catch {
    return false;
  }
}

/** Sends a signal to one process; false when it is gone. */
export function signalProcess(pid: number, signal: NodeJS.Signals): boolean {
  if (!Number.isInteger(pid) || pid <= 1) return false;
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

function isPidName(entry: string): boolean {
  const first = entry.charCodeAt(0);
  return first >= 48 && first <= 57;
}

/** Sends a signal to every process of a group. Returns false when the group no longer exists. */
export function signalProcessGroup(pgid: number, signal: NodeJS.Signals): boolean {
  // kill(-1) and kill(0) would reach every process of the user, or this one's group.
  if (!Number.isInteger(pgid) || pgid <= 1) return false;
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
    if (!isPidName(entry)) continue;
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
