import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { isErrnoException } from '../base/errors';
import { isSensitivePath } from './sensitivePaths';

export type PathSecurityCode = 'PATH_INVALID' | 'PATH_SENSITIVE' | 'PATH_OUTSIDE_WORKSPACE';

/** A path a tool must not use. Its message is written for the model and is shown as it is. */
export class PathSecurityError extends Error {
  override readonly name = 'PathSecurityError';
  constructor(
    readonly code: PathSecurityCode,
    message: string,
    readonly rawPath: string,
    readonly canonicalPath?: string,
  ) {
    super(message);
  }
}

export type PathAccessVerb = 'read a file' | 'write or edit a file' | 'search' | 'access';

export interface PathAccessContext {
  /** The working directory: relative paths resolve against it; it is the workspace root. */
  readonly cwd: string;
  /** More workspace roots. */
  readonly additionalDirs?: readonly string[];
  /** Expands `~`; without it `~` is an ordinary name. */
  readonly homeDir?: string;
  /** Used in messages: "You must provide an absolute path to <verb> …". */
  readonly verb?: PathAccessVerb;
  /** Refuse files that hold secrets (default true). */
  readonly checkSensitive?: boolean;
  /**
   * `absolute` (default): a path outside the workspace is allowed only when written absolute;
   * `never`: every path must lie inside the workspace.
   */
  readonly outside?: 'absolute' | 'never';
  /** Resolves symlinks of an existing path; defaults to fs.realpathSync.native. */
  readonly realpath?: (path: string) => string;
}

export interface PathAccess {
  /** The canonical absolute path: symlinks resolved as far as the path exists. */
  readonly path: string;
  /** The absolute path before symlinks were resolved. */
  readonly lexicalPath: string;
  readonly outsideWorkspace: boolean;
}

const defaultRealpath = (p: string): string => fs.realpathSync.native(p);

/**
 * Resolves symlinks in the longest existing prefix of an absolute path and appends the rest.
 * This reads directory metadata only, never file contents.
 */
export function canonicalizeExisting(absolute: string, realpath: (p: string) => string = defaultRealpath): string {
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      const real = realpath(current);
      return missing.length === 0 ? real : nodePath.join(real, ...missing.reverse());
    } catch (error) {
      const code = isErrnoException(error) ? error.code : undefined;
      if (code === 'ELOOP') throw error;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return absolute;
      const parent = nodePath.dirname(current);
      if (parent === current) return absolute;
      missing.push(nodePath.basename(current));
      current = parent;
    }
  }
}

/** An absolute POSIX path as path.resolve would return it: nothing to normalize. */
function isResolvedPosix(p: string): boolean {
  return (
    p.charCodeAt(0) === 47 /* / */ &&
    (p.length === 1 || p.charCodeAt(p.length - 1) !== 47) &&
    !p.includes('//') &&
    !p.includes('/./') &&
    !p.includes('/../') &&
    !p.endsWith('/.') &&
    !p.endsWith('/..')
  );
}

const POSIX = nodePath.sep === '/';

/** `path` is `root` or lies below it (lexically: symlinks are not resolved). */
export function isPathInside(path: string, root: string): boolean {
  // Paths that are already resolved (what the tools pass) are compared as they are: this runs
  // several times per call, and path.relative resolves both sides again each time.
  if (POSIX && isResolvedPosix(path) && isResolvedPosix(root)) {
    return path === root || (path.startsWith(root) && (root.length === 1 || path.charCodeAt(root.length) === 47));
  }
  const rel = nodePath.relative(root, path);
  // A first name that merely begins with ".." (e.g. "..data") is still inside.
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${nodePath.sep}`) && !nodePath.isAbsolute(rel));
}

function expandHome(raw: string, homeDir: string | undefined): string {
  if (!homeDir) return raw;
  if (raw === '~') return homeDir;
  if (raw.startsWith('~/')) return nodePath.join(homeDir, raw.slice(2));
  return raw;
}

/**
 * The one entry for file paths a tool receives: expands `~`, resolves against the working
 * directory, resolves symlinks, and refuses secrets and relative paths that leave the workspace.
 * A symlink inside the workspace that points at a secret or outside the workspace is refused too.
 */
export function resolvePathAccess(rawPath: string, ctx: PathAccessContext): PathAccess {
  const verb = ctx.verb ?? 'access';
  if (rawPath.trim() === '') throw new PathSecurityError('PATH_INVALID', 'Path cannot be empty.', rawPath);
  if (rawPath.includes('\0')) {
    throw new PathSecurityError('PATH_INVALID', `"${rawPath.replace(/\0/g, '\\0')}" contains a NUL character.`, rawPath);
  }
  if (!nodePath.isAbsolute(ctx.cwd)) {
    throw new PathSecurityError('PATH_INVALID', `Cannot resolve "${rawPath}" against non-absolute cwd "${ctx.cwd}".`, rawPath);
  }
  const realpath = ctx.realpath ?? defaultRealpath;
  const expanded = expandHome(rawPath, ctx.homeDir);
  const writtenAbsolute = nodePath.isAbsolute(expanded);
  const lexicalPath = nodePath.resolve(ctx.cwd, expanded);
  let canonical: string;
  try {
    canonical = canonicalizeExisting(lexicalPath, realpath);
  } catch {
    throw new PathSecurityError('PATH_INVALID', `"${rawPath}" cannot be resolved: too many levels of symbolic links.`, rawPath);
  }
  const viaLink = canonical !== lexicalPath;

  if (ctx.checkSensitive !== false && (isSensitivePath(lexicalPath) || isSensitivePath(canonical))) {
    const subject = viaLink && !isSensitivePath(lexicalPath) ? `"${rawPath}" is a symbolic link to "${canonical}", which` : `"${rawPath}"`;
    throw new PathSecurityError(
      'PATH_SENSITIVE',
      `${subject} matches a sensitive-file pattern (env file, credentials, private key). Access is blocked to protect secrets.`,
      rawPath,
      canonical,
    );
  }

  const roots = [ctx.cwd, ...(ctx.additionalDirs ?? [])].map((root) => canonicalizeExisting(nodePath.resolve(root), realpath));
  const lexicalRoots = [ctx.cwd, ...(ctx.additionalDirs ?? [])].map((root) => nodePath.resolve(root));
  const insideLexically = lexicalRoots.some((root) => isPathInside(lexicalPath, root)) || roots.some((root) => isPathInside(lexicalPath, root));
  const insideReally = roots.some((root) => isPathInside(canonical, root));

  if (!insideReally) {
    if (insideLexically && viaLink) {
      throw new PathSecurityError(
        'PATH_OUTSIDE_WORKSPACE',
        `"${rawPath}" is a symbolic link that resolves to "${canonical}", outside the working directory. ` +
          (ctx.outside === 'never' ? `Paths outside the working directory are not allowed here.` : `To ${verb} there, pass that absolute path explicitly.`),
        rawPath,
        canonical,
      );
    }
    if (ctx.outside === 'never') {
      throw new PathSecurityError(
        'PATH_OUTSIDE_WORKSPACE',
        `"${rawPath}" is outside the working directory (${ctx.cwd}). Paths outside the working directory are not allowed here.`,
        rawPath,
        canonical,
      );
    }
    if (!writtenAbsolute) {
      throw new PathSecurityError(
        'PATH_OUTSIDE_WORKSPACE',
        `"${rawPath}" is not an absolute path. You must provide an absolute path to ${verb} outside the working directory.`,
        rawPath,
        canonical,
      );
    }
  }
  return { path: canonical, lexicalPath, outsideWorkspace: !insideReally };
}

/** `resolvePathAccess(...).path`. */
export function resolvePathAccessPath(rawPath: string, ctx: PathAccessContext): string {
  return resolvePathAccess(rawPath, ctx).path;
}
