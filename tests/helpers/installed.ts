import { spawnSync } from 'node:child_process';

/**
 * Whether a system program the tests need is installed (it answers `args`). Under CI (`CI` set)
 * a missing program is an error, never a skip: `.ci/run` must install it.
 */
export function programInstalled(program: string, args: readonly string[], debianPackage: string): boolean {
  const found = spawnSync(program, [...args], { stdio: 'ignore' }).status === 0;
  if (!found && process.env.CI) throw new Error(`${program} is not installed, but CI is set: .ci/run must install it (apt-get install -y ${debianPackage})`);
  return found;
}

/** `describe` when the program is installed; otherwise a skipped describe whose name says why and how to install it. */
export function describeWhenInstalled(program: string, args: readonly string[], debianPackage: string): jest.Describe {
  if (programInstalled(program, args, debianPackage)) return describe;
  const skipped = ((name: string, fn: jest.EmptyFunction) =>
    describe.skip(`${name} (skipped: ${program} is not installed; apt-get install -y ${debianPackage})`, fn)) as jest.Describe;
  return Object.assign(skipped, describe);
}

/** Suites that run the real bubblewrap. */
export const describeWithBwrap = describeWhenInstalled('bwrap', ['--version'], 'bubblewrap');
