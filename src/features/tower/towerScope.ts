import picomatch from 'picomatch';
import { TowerError } from './contract';

const WHOLE_REPO = new Set(['**', '**/*', '*', '.', './', '/', '']);
const matcher = (globs: readonly string[]) => picomatch([...globs], { dot: true });

/**
 * picomatch's regexes backtrack: a failing match tries up to n^k splits of an n-character name
 * for k stars in one segment (`src/*a*a*a*a*b/**` took 16 s on one 200-character name), and the
 * same across segments for `**`. A scope is matched against every tracked file, so it may have
 * at most this many of either.
 */
const MAX_STARS_PER_SEGMENT = 3;
const MAX_GLOBSTARS = 3;

/** The most `*` runs in one segment (escapes left out; `**` inside a name is a `*`), and the `**` segments. */
function wildcards(glob: string): { stars: number; globstars: number } {
  let stars = 0;
  let globstars = 0;
  for (const segment of glob.split('/')) {
    if (segment === '**') globstars++;
    else stars = Math.max(stars, segment.replace(/\\./g, '').match(/\*+/g)?.length ?? 0);
  }
  return { stars, globstars };
}

/** Throws TowerError for a scope that is not a list of repository-relative globs, covers the whole repository, or has too many wildcards to match safely. */
export function checkScope(missionTitle: string, scope: readonly string[]): void {
  for (const glob of scope) {
    if (WHOLE_REPO.has(glob.trim())) throw new TowerError(`mission "${missionTitle}": scope "${glob}" is the whole repository; name the folders or files the mission may change (e.g. "src/parser/**").`);
    if (glob.startsWith('/') || glob.split('/').includes('..')) throw new TowerError(`mission "${missionTitle}": scope "${glob}" must be relative to the repository root, without "..".`);
    const { stars, globstars } = wildcards(glob);
    if (stars > MAX_STARS_PER_SEGMENT || globstars > MAX_GLOBSTARS) {
      throw new TowerError(
        `mission "${missionTitle}": scope "${glob}" has too many wildcards (at most ${MAX_STARS_PER_SEGMENT} "*" in one path segment and ${MAX_GLOBSTARS} "**" segments; more can take minutes to match); name the folders or files instead (e.g. "src/parser/**").`,
      );
    }
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
