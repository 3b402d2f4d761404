import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as nodePath from 'node:path';
import { inject, injectable, preDestroy } from 'inversify';
import { Emitter } from '../../base/event';
import { errorMessage } from '../../base/errors';
import { formatBytes, formatCount } from '../../base/strings';
import { IConfigService } from '../../services/config/config';
import { type AgentOptions, IAgentOptions } from '../../services/workspace/workspace';
import { type ISkillCatalog, type LoadedSkill, type Skill, type SkillDiagnostic, type SkillListing, SkillLoadError, type SkillScope, type SkillSearchHit, SKILL_FILE_NAME } from './contract';
import { parseSkillFile, type SkillFileProblem } from './frontMatter';
import { checkSkillFields } from './skillRules';
import { skillsConfig } from './skillsConfig';

/** A SKILL.md larger than this is refused: the body goes into the model's context whole. */
export const MAX_SKILL_FILE_BYTES = 256 * 1024;
/** Skill folders read per root; the rest are reported. */
export const MAX_SKILLS_PER_ROOT = 1000;
/** Entries the file listing of an activated skill visits at most (its folder may be large). */
export const MAX_SKILL_WALK_ENTRIES = 2000;
const MAX_SKILL_WALK_DEPTH = 6;
const SKIPPED_FOLDERS: ReadonlySet<string> = new Set(['.git', 'node_modules']);

export interface SkillRoot {
  readonly dir: string;
  readonly scope: SkillScope;
}

/** The roots in search order: the workspace's, the home directory's, then config `skills.paths`. */
export function skillRoots(cwd: string, homeDir: string, paths: readonly string[]): SkillRoot[] {
  return [
    { dir: nodePath.join(cwd, '.agents', 'skills'), scope: 'workspace' },
    { dir: nodePath.join(cwd, '.claude', 'skills'), scope: 'workspace' },
    { dir: nodePath.join(homeDir, '.agents', 'skills'), scope: 'user' },
    { dir: nodePath.join(homeDir, '.claude', 'skills'), scope: 'user' },
    ...paths.map((p): SkillRoot => ({ dir: p === '~' || p.startsWith('~/') ? nodePath.join(homeDir, p.slice(1)) : nodePath.resolve(cwd, p), scope: 'config' })),
  ];
}

/** One SKILL.md as last read, kept while its size, mtime and inode (and its folder's) stay the same. */
export interface ReadSkill {
  readonly signature: string;
  readonly skill?: Skill;
  readonly problems: readonly SkillFileProblem[];
}

/** SKILL.md files entries this cache keeps at most; past it, the oldest go. */
const MAX_CACHED_SKILL_FILES = 10_000;

/**
 * The SKILL.md files read so far, by path (App scope): every agent of the App (a swarm of
 * subagents on one workspace) parses each file once, until it changes.
 */
@injectable()
export class SkillFileCache {
  private readonly entries = new Map<string, ReadSkill>();

  get(file: string, signature: string): ReadSkill | undefined {
    const entry = this.entries.get(file);
    return entry?.signature === signature ? entry : undefined;
  }

  set(file: string, entry: ReadSkill): void {
    this.entries.delete(file);
    this.entries.set(file, entry);
    if (this.entries.size > MAX_CACHED_SKILL_FILES) this.entries.delete(this.entries.keys().next().value!);
  }
}

/**
 * The default ISkillCatalog: SKILL.md files one level below each root. Each listing revalidates
 * with a stat per SKILL.md and rereads only files that changed; there is no watcher (the skills
 * feature lists again after every call that writes, and the Skill tool's description lists on
 * every read).
 */
@injectable()
export class FileSkillCatalog implements ISkillCatalog {
  private readonly changeEmitter = new Emitter<SkillListing>();
  readonly onDidChange = this.changeEmitter.event;
  private last: SkillListing | undefined;
  private lastKey = '';

  constructor(
    @inject(IAgentOptions) private readonly options: AgentOptions,
    @inject(IConfigService) private readonly config: IConfigService,
    @inject(SkillFileCache) private readonly cache: SkillFileCache,
  ) {}

  list(): SkillListing {
    const roots = skillRoots(this.options.cwd, this.options.homeDir, this.config.section(skillsConfig).paths);
    const seenRoots = new Set<string>();
    const rootDiagnostics: SkillDiagnostic[] = [];
    const found: FoundSkill[] = [];
    for (const root of roots) {
      const canonicalRoot = canonical(root.dir);
      // A root linked to another (.claude/skills -> ../.agents/skills) is the same skills once.
      if (canonicalRoot === undefined || seenRoots.has(canonicalRoot)) continue;
      seenRoots.add(canonicalRoot);
      found.push(...this.readRoot(root, canonicalRoot, rootDiagnostics));
    }
    // Same roots, same files with the same stats, same root problems: the same listing, nothing to rebuild.
    const key = JSON.stringify([[...seenRoots], found.map((f) => `${f.file}|${f.read.signature}`), rootDiagnostics]);
    if (this.last && key === this.lastKey) return this.last;
    const listing = assemble([...seenRoots], found, rootDiagnostics);
    const changed = this.last !== undefined;
    this.last = listing;
    this.lastKey = key;
    if (changed) this.changeEmitter.fire(listing);
    return listing;
  }

  snapshot(): SkillListing {
    return this.last ?? this.list();
  }

  get(name: string): Skill | undefined {
    return this.snapshot().skills.find((s) => s.name === name);
  }

  search(query: string, limit = 10): readonly SkillSearchHit[] {
    const words = query.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
    const phrase = query.trim().toLowerCase();
    const hits: SkillSearchHit[] = [];
    for (const skill of this.snapshot().skills) {
      if (skill.disableModelInvocation) continue;
      const name = skill.name.toLowerCase();
      const description = skill.description.toLowerCase();
      let score = name === phrase ? 100 : name.includes(phrase) && phrase !== '' ? 40 : 0;
      for (const word of words) {
        if (name.split('-').includes(word)) score += 12;
        else if (name.includes(word)) score += 6;
        if (new RegExp(`\\b${word}`).test(description)) score += 3;
      }
      if (score > 0) hits.push({ skill, score });
    }
    hits.sort((a, b) => b.score - a.score || (a.skill.name < b.skill.name ? -1 : 1));
    return hits.slice(0, limit);
  }

  async load(skill: Skill, maxFiles: number): Promise<LoadedSkill> {
    let text: string;
    try {
      text = readBounded(skill.file);
    } catch (error) {
      if (error instanceof SkillLoadError) throw new SkillLoadError(`Skill "${skill.name}" cannot be run: ${error.message}`);
      throw new SkillLoadError(`Skill "${skill.name}" cannot be read (${errorMessage(error)}); Skill({query}) lists the skills there are.`);
    }
    const { body } = parseSkillFile(text);
    const { files, more } = await listFiles(skill.dir, maxFiles);
    return { skill, body, files, moreFiles: more };
  }

  /** The SKILL.md files of one root, each read (or taken from the cache). */
  private readRoot(root: SkillRoot, canonicalRoot: string, diagnostics: SkillDiagnostic[]): FoundSkill[] {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(canonicalRoot, { withFileTypes: true });
    } catch (error) {
      diagnostics.push({ severity: 'warning', path: root.dir, message: `The skills root cannot be listed (${errorMessage(error)}); its skills are not loaded.` });
      return [];
    }
    const folders = entries
      .filter((e) => !e.name.startsWith('.') && (e.isDirectory() || e.isSymbolicLink()))
      .map((e) => e.name)
      .sort();
    if (folders.length > MAX_SKILLS_PER_ROOT) {
      diagnostics.push({ severity: 'warning', path: root.dir, message: `The skills root has ${folders.length} folders; the first ${MAX_SKILLS_PER_ROOT} (by name) are read, the rest are not.` });
    }
    const found: FoundSkill[] = [];
    for (const folder of folders.slice(0, MAX_SKILLS_PER_ROOT)) {
      const file = nodePath.join(canonicalRoot, folder, SKILL_FILE_NAME);
      let stat: fs.Stats | undefined;
      try {
        stat = fs.statSync(file, { throwIfNoEntry: false });
      } catch (error) {
        found.push({ file, read: { signature: `unreadable:${errorMessage(error)}`, problems: [{ severity: 'error', message: `SKILL.md cannot be read (${errorMessage(error)}).` }] } });
        continue;
      }
      // A folder without SKILL.md holds something else (shared scripts): not a skill.
      if (!stat) continue;
      // The folder's mtime changes when scripts/ appears, which changes what approving the skill means.
      const folderStat = fs.statSync(nodePath.dirname(file), { throwIfNoEntry: false });
      const signature = `${stat.size}:${stat.mtimeMs}:${stat.ino}:${folderStat?.mtimeMs}:${root.scope}`;
      let read = this.cache.get(file, signature);
      if (!read) {
        read = readSkillFile(file, folder, stat, root.scope, signature);
        this.cache.set(file, read);
      }
      found.push({ file, read });
    }
    return found;
  }

  @preDestroy()
  dispose(): void {
    this.changeEmitter.dispose();
  }
}

interface FoundSkill {
  readonly file: string;
  readonly read: ReadSkill;
}

/** The listing from the files found, in root order: the first of a name wins, later ones are reported. */
function assemble(roots: readonly string[], found: readonly FoundSkill[], rootDiagnostics: readonly SkillDiagnostic[]): SkillListing {
  const skills: Skill[] = [];
  const diagnostics: SkillDiagnostic[] = [...rootDiagnostics];
  const byName = new Map<string, Skill>();
  for (const { file, read } of found) {
    for (const problem of read.problems) diagnostics.push({ ...problem, path: file, ...(read.skill ? { skill: read.skill.name } : {}) });
    const skill = read.skill;
    if (!skill) continue;
    const first = byName.get(skill.name);
    if (first) {
      diagnostics.push({ severity: 'warning', path: file, skill: skill.name, message: `Duplicate skill "${skill.name}": ${first.file} comes first and is the one used; rename or remove this one.` });
      continue;
    }
    byName.set(skill.name, skill);
    skills.push(skill);
  }
  return { roots, skills, diagnostics };
}

function canonical(dir: string): string | undefined {
  try {
    return fs.realpathSync.native(dir);
  } catch {
    return undefined; // A root that does not exist holds no skills.
  }
}

function tooLarge(size: number): string {
  return `SKILL.md has ${formatCount(size)} bytes; skills are read up to ${formatCount(MAX_SKILL_FILE_BYTES)} bytes (${formatBytes(MAX_SKILL_FILE_BYTES)}). Move the long parts into files beside it that the body names.`;
}

function readSkillFile(file: string, folder: string, stat: fs.Stats, scope: SkillScope, signature: string): ReadSkill {
  if (!stat.isFile()) return { signature, problems: [{ severity: 'error', message: 'SKILL.md is not a regular file.' }] };
  if (stat.size > MAX_SKILL_FILE_BYTES) return { signature, problems: [{ severity: 'error', message: tooLarge(stat.size) }] };
  let text: string;
  let dir: string;
  try {
    text = readBounded(file);
    dir = fs.realpathSync.native(nodePath.dirname(file));
  } catch (error) {
    return { signature, problems: [{ severity: 'error', message: error instanceof SkillLoadError ? error.message : `SKILL.md cannot be read (${errorMessage(error)}).` }] };
  }
  const parsed = parseSkillFile(text);
  if (!parsed.fields) return { signature, problems: parsed.problems };
  const fields = checkSkillFields(parsed.fields, folder);
  const problems = [...parsed.problems, ...fields.problems];
  if (fields.name === undefined || fields.description === undefined) return { signature, problems };
  const skill: Skill = {
    name: fields.name,
    description: fields.description,
    scope,
    dir,
    file: nodePath.join(dir, SKILL_FILE_NAME),
    allowedTools: fields.allowedTools,
    disableModelInvocation: fields.disableModelInvocation,
    argumentNames: fields.argumentNames,
    hasScripts: isDirectory(nodePath.join(dir, 'scripts')),
    ...(fields.license !== undefined ? { license: fields.license } : {}),
    ...(fields.compatibility !== undefined ? { compatibility: fields.compatibility } : {}),
  };
  return { signature, skill, problems };
}

function isDirectory(path: string): boolean {
  return fs.statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

/** The file's text, refused past MAX_SKILL_FILE_BYTES: read through one descriptor, so a file that grows after its stat cannot slip past. */
function readBounded(file: string): string {
  const fd = fs.openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(MAX_SKILL_FILE_BYTES + 1);
    let length = 0;
    while (length < buffer.length) {
      const bytesRead = fs.readSync(fd, buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > MAX_SKILL_FILE_BYTES) throw new SkillLoadError(tooLarge(fs.fstatSync(fd).size));
    return buffer.toString('utf8', 0, length);
  } finally {
    fs.closeSync(fd);
  }
}

function sortFrom(items: string[], start: number): void {
  items.splice(start, items.length - start, ...items.slice(start).sort());
}

/** Relative paths of the files in a skill folder within the walk's bounds: the folder's own files first, then each level deeper, sorted within a level. */
async function listFiles(dir: string, maxFiles: number): Promise<{ files: string[]; more: boolean }> {
  const files: string[] = [];
  let visited = 0;
  let levelStart = 0;
  let stopped = false;
  let level: string[] = [''];
  for (let depth = 0; depth < MAX_SKILL_WALK_DEPTH && level.length > 0 && !stopped; depth++) {
    const next: string[] = [];
    for (const relative of level) {
      let entries: fs.Dirent[];
      try {
        entries = await fsp.readdir(nodePath.join(dir, relative), { withFileTypes: true });
      } catch {
        continue; // An unreadable subfolder lists nothing.
      }
      for (const entry of entries) {
        if (++visited > MAX_SKILL_WALK_ENTRIES) {
          stopped = true;
          break;
        }
        const path = relative === '' ? entry.name : `${relative}/${entry.name}`;
        if (entry.isDirectory()) {
          if (!SKIPPED_FOLDERS.has(entry.name)) next.push(path);
        } else if (path !== SKILL_FILE_NAME) files.push(path);
      }
      if (stopped) break;
    }
    if (depth === MAX_SKILL_WALK_DEPTH - 1 && next.length > 0) stopped = true;
    sortFrom(files, levelStart);
    levelStart = files.length;
    level = next.sort();
  }
  return { files: files.slice(0, maxFiles), more: stopped || files.length > maxFiles };
}
