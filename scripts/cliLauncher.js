#!/usr/bin/env node
// The toolhost command. It runs the bundled CLI (toolhost.bundle.js beside this file) with a V8
// code cache, so later start-ups skip parsing and compiling most of it. The cache lives in the
// user's own cache folder (never a shared one: a planted cache would be planted code), is checked
// to belong to this user, and is rewritten when V8 rejects it (a new bundle or a new Node).
// TOOLHOST_NO_COMPILE_CACHE=1 turns it off.
'use strict';
const fs = require('node:fs');
const Module = require('node:module');
const os = require('node:os');
const path = require('node:path');
const vm = require('node:vm');
const crypto = require('node:crypto');
const v8 = require('node:v8');

// For `run`: the old generation may grow to 1.75x what survived the last full collection before
// the next one, not V8's up to 4x; set before the bundle loads, so it applies from the first full
// collection on. A batch of thousands of calls promotes short-lived garbage at a steady rate, and
// with 4x the process held ~45 MiB of it on 10,000 Reads (`npm run bench -- executor`: peak RSS
// 193 -> 145-148 MiB, 242 -> 166-168 MiB on 30,000; CPU 0.96-1.06x of V8's own setting; 2x, the
// setting before, peaked at 150 and 175 MiB). The flag is process-wide, so a builtin Grep's
// workers follow it too (no change measured on the bench corpus). Not set when the user chose a
// value.
const nodeFlags = `${process.env.NODE_OPTIONS ?? ''} ${process.execArgv.join(' ')}`;
if (process.argv[2] === 'run' && !nodeFlags.includes('heap-growing-percent')) {
  v8.setFlagsFromString('--heap-growing-percent=75');
}
// For `run`: the young generation keeps its starting size (src/base/youngGeneration.ts says what
// that saves and costs); taken here, before the bundle is compiled, because V8's code cache
// records the flags it was compiled under (set later, every run rejected and rewrote its cache).
const youngGeneration = process.argv[2] === 'run' ? require('./runYoungGeneration.js') : undefined;
youngGeneration?.holdYoungGenerationForCommand(process.argv.slice(2), nodeFlags);

const bundle = path.join(__dirname, 'toolhost.bundle.js');
// Read as bytes, so only the wrapped source string below stays alive (the compiled script keeps
// it), not a second copy of the bundle's text. Stat-ed through the same descriptor: the cache key
// names this file as it was read (hashing its 3 MB instead cost 2 ms of every start-up; V8 itself
// checks only the source's length).
let bytes;
let bundleStat;
{
  const fd = fs.openSync(bundle, 'r');
  try {
    bundleStat = fs.fstatSync(fd, { bigint: true });
    bytes = fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function cacheFile() {
  if (process.env.TOOLHOST_NO_COMPILE_CACHE === '1' || typeof process.getuid !== 'function') return undefined;
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  const dir = path.join(base, 'toolhost');
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stat = fs.statSync(dir);
    if (stat.uid !== process.getuid() || (stat.mode & 0o022) !== 0) return undefined;
  } catch {
    return undefined;
  }
  // A rebuilt or reinstalled bundle is a new file with a new change time (npm gives every file it
  // installs the same mtime; the change time is the kernel's own). Not the device, which a
  // container's filesystem may renumber at each start.
  const version = `${bundleStat.ino}:${bundleStat.size}:${bundleStat.mtimeNs}:${bundleStat.ctimeNs}`;
  const key = crypto.createHash('sha256').update(`${process.version}\0${bundle}\0${version}`).digest('hex').slice(0, 16);
  // The install (the bundle's path) names its caches too, so two installs (a global one and a
  // project's) do not remove each other's on every run.
  const install = crypto.createHash('sha256').update(bundle).digest('hex').slice(0, 8);
  // One cache per command: each holds the functions its command compiled (mcp serve's differ from run's).
  // Only the CLI's own commands: a mistyped one must not leave a cache file behind.
  const command = ['run', 'tools', 'mcp'].includes(process.argv[2]) ? process.argv[2] : 'other';
  return path.join(dir, `cli-${install}-${key}-${command}.v8cache`);
}

function readCache(file) {
  if (!file) return undefined;
  try {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    try {
      const stat = fs.fstatSync(fd);
      if (!stat.isFile() || stat.uid !== process.getuid() || (stat.mode & 0o022) !== 0 || stat.size > 64 * 1024 * 1024) return undefined;
      return fs.readFileSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

const MONTH_MS = 30 * 24 * 60 * 60 * 1000;
/**
 * Other installs' caches kept at most, the most recently written: transient installs (each npx
 * version, each CI checkout) leave one of 2-3 MB per command, which the month alone let pile up.
 */
const OTHER_CACHES_KEPT = 8;

/**
 * Removes caches of no further use: this install's of earlier bundles or Node versions, those
 * of other installs not written for a month (the install may be gone; one still in use writes
 * its cache again on its next run) or beyond the OTHER_CACHES_KEPT newest, and those named
 * before caches named their install.
 */
function removeStaleCaches(dir, current) {
  const [, install, key] = /^cli-([0-9a-f]{8})-([0-9a-f]{16})-/.exec(current);
  const remove = (name) => fs.rmSync(path.join(dir, name), { force: true });
  const others = [];
  for (const name of fs.readdirSync(dir)) {
    if (/^cli-[0-9a-f]{16}(-[a-z-]+)?\.v8cache$/.test(name)) {
      remove(name);
      continue;
    }
    const named = /^cli-([0-9a-f]{8})-([0-9a-f]{16})-[a-z]+\.v8cache$/.exec(name);
    if (!named) continue;
    if (named[1] === install) {
      if (named[2] !== key) remove(name);
      continue;
    }
    const written = fs.statSync(path.join(dir, name), { throwIfNoEntry: false })?.mtimeMs;
    if (written === undefined) continue;
    if (Date.now() - written > MONTH_MS) remove(name);
    else others.push({ name, written });
  }
  others.sort((a, b) => b.written - a.written);
  for (const { name } of others.slice(OTHER_CACHES_KEPT)) remove(name);
}

/**
 * The bundle compiled with the cache in `file`, if there is one. The cache's bytes (2-3 MB) are
 * not needed once compiled: read in here, they are garbage when it returns, not held until the
 * command's synchronous part (most of a short command) is done.
 */
function compileBundle(file) {
  const cachedData = readCache(file);
  const script = new vm.Script(Module.wrap(bytes.toString('utf8').replace(/^#!.*/, '')), { filename: bundle, cachedData });
  return { script, hadCache: cachedData !== undefined };
}

const file = cacheFile();
const { script, hadCache } = compileBundle(file);
// The script keeps its own source.
bytes = undefined;
const mod = new Module(bundle, module);
mod.filename = bundle;
mod.paths = Module._nodeModulePaths(__dirname);
script.runInThisContext()(mod.exports, Module.createRequire(bundle), mod, bundle, __dirname);

if (file && (!hadCache || script.cachedDataRejected)) {
  // Written once the CLI is done, so the cache holds the functions this run compiled too.
  process.once('beforeExit', () => {
    const temporary = `${file}.${process.pid}.tmp`;
    try {
      // Under the flags the bundle was compiled with (a worker thread that started and did not
      // come online before the end leaves the hold undone), or the next start rejects it.
      youngGeneration?.reassertYoungGenerationHold();
      fs.writeFileSync(temporary, script.createCachedData(), { mode: 0o600, flag: 'wx' });
      fs.renameSync(temporary, file);
      removeStaleCaches(path.dirname(file), path.basename(file));
    } catch {
      fs.rmSync(temporary, { force: true });
    }
  });
}
