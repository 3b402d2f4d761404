import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import * as ts from 'typescript';

/**
 * Pins the public names of every entry point: the package root, `toolhost/internals` and each
 * tool family's and feature's subpath (`toolhost/tools/<family>`, `toolhost/features/<name>`).
 * A change to them must be deliberate: run `TOOLHOST_UPDATE_API=1 npx jest tests/api` and
 * commit the pin files it rewrites.
 */
const ROOT = nodePath.resolve(__dirname, '../..');

interface Entry {
  readonly module: string;
  readonly pin: string;
}

function units(): Entry[] {
  const found: Entry[] = [];
  for (const top of ['tools', 'features']) {
    for (const name of fs.readdirSync(nodePath.join(ROOT, 'src', top)).sort()) {
      if (!fs.statSync(nodePath.join(ROOT, 'src', top, name)).isDirectory()) continue;
      found.push({ module: `src/${top}/${name}/index.ts`, pin: `tests/${top}/${name}/api.txt` });
    }
  }
  return found;
}

const ENTRIES: Entry[] = [{ module: 'src/index.ts', pin: 'tests/api/root.api.txt' }, { module: 'src/internals.ts', pin: 'tests/api/internals.api.txt' }, ...units()];

/** `name: value|type` for each export of each module, sorted. */
function exportedNames(modules: readonly string[]): Map<string, string[]> {
  const program = ts.createProgram(
    modules.map((m) => nodePath.join(ROOT, m)),
    { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, experimentalDecorators: true, skipLibCheck: true, noEmit: true, types: [] },
  );
  const checker = program.getTypeChecker();
  const result = new Map<string, string[]>();
  for (const module of modules) {
    const source = program.getSourceFile(nodePath.join(ROOT, module));
    if (!source) throw new Error(`${module} is missing`);
    const symbol = checker.getSymbolAtLocation(source)!;
    const names = checker.getExportsOfModule(symbol).map((s) => {
      const target = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
      return `${s.name}: ${target.flags & ts.SymbolFlags.Value ? 'value' : 'type'}`;
    });
    result.set(module, names.sort());
  }
  return result;
}

describe('the public API', () => {
  test('every tool family and feature folder has an index.ts, its public surface', () => {
    expect(units().filter((u) => !fs.existsSync(nodePath.join(ROOT, u.module))).map((u) => u.module)).toEqual([]);
  });

  test('the exported names of each entry point are the pinned ones', () => {
    const actual = exportedNames(ENTRIES.map((e) => e.module));
    const update = process.env['TOOLHOST_UPDATE_API'] === '1';
    for (const entry of ENTRIES) {
      const names = actual.get(entry.module)!;
      const pinFile = nodePath.join(ROOT, entry.pin);
      if (update) {
        fs.mkdirSync(nodePath.dirname(pinFile), { recursive: true });
        fs.writeFileSync(pinFile, `${names.join('\n')}\n`);
        continue;
      }
      const pinned = fs.existsSync(pinFile) ? fs.readFileSync(pinFile, 'utf8').split('\n').filter(Boolean) : [];
      const added = names.filter((n) => !pinned.includes(n));
      const removed = pinned.filter((n) => !names.includes(n));
      expect({ entry: entry.module, pin: entry.pin, added, removed }).toEqual({ entry: entry.module, pin: entry.pin, added: [], removed: [] });
    }
  });

  test('the root leaves the internals to their subpaths', () => {
    const root = exportedNames(['src/index.ts']).get('src/index.ts')!;
    for (const internal of ['ToolScheduler', 'coerceArgs', 'AgentTaskService', 'AccessGate', 'fnv1a32Hex', 'normalizeToolResult', 'IAgentToolContribution']) {
      expect(root.filter((n) => n.startsWith(`${internal}:`))).toEqual([]);
    }
  });
});
