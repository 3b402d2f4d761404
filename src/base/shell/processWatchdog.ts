import type { ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { HOST_RUN_PREFIX, RUN_ID_VARIABLE } from './processGroup';
import { nodeBuiltins } from '../nodeBuiltins';

/** After SIGTERM to what is left, how long the watchdog waits before SIGKILL, in seconds. */
const WATCHDOG_KILL_GRACE_S = 2;

/**
 * The watchdog: `sh` reading a pipe that only this toolhost process holds. Lines `+<pgid>` and
 * `-<pgid>` keep the set of live process groups; end of file means toolhost is gone (exited,
 * crashed or SIGKILLed: node cannot set PR_SET_PDEATHSIG, but the kernel closes the pipe). Then it
 * sends SIGTERM, and SIGKILL after a grace period, to those groups and to every process of this
 * user whose run marker holds a run id of this toolhost (`$1-…`), and exits.
 */
const WATCHDOG_SCRIPT = `
trap '' HUP INT PIPE
prefix=$1
grace=$2
case $prefix in ''|*[!0-9a-f]*) exit 2 ;; esac
groups=' '
# Only ids above 1: kill -1 would signal every process of the user.
valid() { case $1 in ''|*[!0-9]*|0|1) return 1 ;; esac; }
while IFS= read -r line; do
  g=\${line#?}
  valid "$g" || continue
  case $line in
    +*) groups="$groups$g " ;;
    -*) case $groups in *" $g "*) groups="\${groups%%" $g "*} \${groups#*" $g "}" ;; esac ;;
  esac
done
marked() {
  grep -lzE "^${RUN_ID_VARIABLE}=(.* )?$prefix-" /proc/[0-9]*/environ 2>/dev/null | while IFS=/ read -r _ _ pid _; do
    valid "$pid" && [ "$pid" != "$$" ] && [ -O "/proc/$pid" ] && echo "$pid"
  done
}
stop() {
  for g in $groups; do valid "$g" && kill -$1 "-$g" 2>/dev/null; done
  pids=$(marked)
  for pid in $pids; do kill -$1 "$pid" 2>/dev/null; done
}
stop TERM
case "$groups$pids" in *[0-9]*) sleep "$grace"; stop KILL ;; esac
exit 0
`;

/**
 * One watchdog per toolhost process, started with the first command, so that no command outlives
 * toolhost even when toolhost dies without stopping them. It is detached (a terminal's Ctrl-C or
 * hangup does not reach it) and unreferenced (it never keeps toolhost running).
 */
class ProcessWatchdog {
  private child: ChildProcess | undefined;
  private unavailable = process.platform === 'win32';
  private readonly groups = new Set<number>();

  watch(pgid: number): void {
    if (this.groups.has(pgid)) return;
    this.groups.add(pgid);
    if (this.child) this.send(`+${pgid}\n`);
    else this.start();
  }

  /** Starts it if it is not running (before a spawn: a process marked with this toolhost's run id is covered from its first instant). */
  ensure(): void {
    if (!this.child) this.start();
  }

  unwatch(pgid: number): void {
    if (this.groups.delete(pgid) && this.child) this.send(`-${pgid}\n`);
  }

  private start(): void {
    if (this.unavailable) return;
    const env = { ...process.env };
    // Not one of the processes it stops; and an outer run stopping this toolhost leaves it be.
    delete env[RUN_ID_VARIABLE];
    let child: ChildProcess;
    try {
      child = nodeBuiltins.childProcess().spawn('/bin/sh', ['-c', WATCHDOG_SCRIPT, 'toolhost-watchdog', HOST_RUN_PREFIX, String(WATCHDOG_KILL_GRACE_S)], {
        detached: true,
        stdio: ['pipe', 'ignore', 'ignore'],
        env,
      });
    } catch {
      this.unavailable = true;
      return;
    }
    this.child = child;
    child.on('error', () => {
      // No /bin/sh: commands are still stopped by toolhost itself, just not after it dies.
      if (child.pid === undefined) this.unavailable = true;
      if (this.child === child) this.child = undefined;
    });
    // Killed by someone: the next command starts a new one, which is told every live group.
    child.on('exit', () => {
      if (this.child === child) this.child = undefined;
    });
    child.stdin?.on('error', () => undefined);
    child.unref();
    (child.stdin as Socket | null)?.unref();
    this.send([...this.groups].map((g) => `+${g}\n`).join(''));
  }

  private send(lines: string): void {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed || lines === '') return;
    stdin.write(lines);
  }
}

const watchdog = new ProcessWatchdog();

/**
 * Starts the watchdog if it is not running. Call it before spawning a process that carries a run
 * marker: should toolhost be killed before `watchProcessGroup`, the marker still gets it stopped.
 */
export function ensureProcessWatchdog(): void {
  watchdog.ensure();
}

/** Has the watchdog stop this process group (and the run's marked processes) if toolhost dies first. */
export function watchProcessGroup(pgid: number): void {
  watchdog.watch(pgid);
}

/** The group has ended: its id may be reused, so the watchdog forgets it. */
export function unwatchProcessGroup(pgid: number): void {
  watchdog.unwatch(pgid);
}
