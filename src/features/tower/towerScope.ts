import picomatch from 'picomatch';
import { TowerError } from './contract';

const WHOLE_REPO = new Set(['**', '**/*', '*', '.', './', '/', '']);
const matcher = (globs: readonly string[]) => picomatch([...globs], { dot: true });

/** Throws TowerError for a scope that is not a list of repository-relative globs, or covers the whole repository. */
export function checkScope(missionTitle: string, scope: readonly string[]): void {
  for (const glob of scope) {
    if (WHOLE_REPO.has(glob.trim())) throw new TowerError(`mission "${missionTitle}": scope "${glob}" is the whole repository; name the folders or files the mission may change (e.g. "src/parser/**").`);
    if (glob.startsWith('/') || glob.split('/').includes('..')) throw new TowerError(`mission "${missionTitle}": scope "${glob}" must be relative to the repository root, without "..".`);
  }
}

/**
 * Two scopes overlap when one file could be in both: a tracked file matches both, or one scope
 * matches the literal base (or a file below it) of a glob of the other. Glob semantics, not prefixes.
 */
export function scopesOverlap(a: readonly string[], b: readonly string[], trackedFiles: readonly string[]): string | undefined {
  const inA = matcher(a);
  const inB = matcher(b);
  const shared = trackedFiles.find((file) => inA(file) && inB(file));
  if (shared !== undefined) return shared;
  const probes = (globs: readonly string[]) =>
    globs.flatMap((glob) => {
      const { base, isGlob } = picomatch.scan(glob);
      return isGlob ? (base === '' ? [] : [base, `${base}/__tower_probe__`]) : [glob];
    });
  return probes(b).find((probe) => inA(probe)) ?? probes(a).find((probe) => inB(probe));
}

/** The changed files outside `scope`. */
export function outOfScope(files: readonly string[], scope: readonly string[]): string[] {
  const inScope = matcher(scope);
  return files.filter((file) => !inScope(file));
}
