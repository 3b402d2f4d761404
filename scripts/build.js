#!/usr/bin/env node
// Compiles src/ to dist/ and copies the tools' .md description templates next to their classes.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
fs.rmSync(path.join(root, 'dist'), { recursive: true, force: true });
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')], {
  stdio: 'inherit',
});

function copyAssets(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const from = path.join(dir, entry.name);
    if (entry.isDirectory()) copyAssets(from);
    else if (entry.name.endsWith('.md') || entry.name.endsWith('.json')) {
      const to = path.join(root, 'dist', path.relative(path.join(root, 'src'), from));
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.copyFileSync(from, to);
    }
  }
}
copyAssets(path.join(root, 'src'));
const bin = path.join(root, 'dist', 'cli', 'main.js');
if (fs.existsSync(bin)) fs.chmodSync(bin, 0o755);
