// Builds dist/ when it is missing or older than src/, so end-to-end tests run the real CLI.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

module.exports = async function globalSetup() {
  const root = path.resolve(__dirname, '..');
  const bin = path.join(root, 'dist', 'cli', 'main.js');
  const built = fs.existsSync(bin) ? fs.statSync(bin).mtimeMs : 0;
  const sources = Math.max(newestMtime(path.join(root, 'src')), fs.statSync(path.join(root, 'package.json')).mtimeMs);
  if (built < sources) execFileSync(process.execPath, [path.join(root, 'scripts', 'build.js')], { cwd: root, stdio: 'inherit' });
};
