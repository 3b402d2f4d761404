import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import * as ts from 'typescript';

/**
 * The import graph of a source tree and the layer rule of docs/architecture.md:
 *
 *   base → tool, toolPolicy, di → services → tools/<family>, features/<name> → scopes → cli → index.ts
 *
 * Imports run downward only (type-only imports count), there are no cycles, and a tool family or
 * feature ("unit") imports another unit only through that unit's `contract.ts`.
 */

export interface ImportEdge {
  /** Importing and imported file, relative to the source root, with '/' separators. */
  readonly from: string;
  readonly to: string;
}

/** Every relative import, re-export, `import type`, dynamic import and require of the .ts files under `root`. */
export function readImportGraph(root: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of listTsFiles(root)) {
    const text = fs.readFileSync(file, 'utf8');
    const info = ts.preProcessFile(text, true, true);
    for (const ref of info.importedFiles) {
      if (!ref.fileName.startsWith('.')) continue;
      const target = resolveTs(nodePath.resolve(nodePath.dirname(file), ref.fileName));
      if (target) edges.push({ from: rel(root, file), to: rel(root, target) });
    }
  }
  return edges;
}

function listTsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = nodePath.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listTsFiles(full));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out.sort();
}

function resolveTs(base: string): string | undefined {
  for (const candidate of [base, `${base}.ts`, nodePath.join(base, 'index.ts')]) {
    if (candidate.endsWith('.ts') && fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

function rel(root: string, file: string): string {
  return nodePath.relative(root, file).split(nodePath.sep).join('/');
}

type Layer = 'base' | 'tool' | 'toolPolicy' | 'di' | 'services' | 'unit' | 'scopes' | 'cli' | 'root';

interface Place {
  readonly layer: Layer;
  /** For a unit: `tools/<family>` or `features/<name>`. */
  readonly unit?: string;
}

export function placeOf(file: string): Place {
  const parts = file.split('/');
  const top = parts[0]!;
  if (parts.length === 1) return { layer: 'root' };
  if ((top === 'tools' || top === 'features') && parts.length > 2) return { layer: 'unit', unit: `${top}/${parts[1]}` };
  if (['base', 'tool', 'toolPolicy', 'di', 'services', 'scopes', 'cli'].includes(top)) return { layer: top as Layer };
  // A file directly in tools/ or features/, or an unknown folder: not part of any layer.
  return { layer: 'root' };
}

/** What each layer may import besides itself (units: see `violationOf`). */
const ALLOWED: Record<Layer, readonly Layer[]> = {
  base: [],
  tool: ['base', 'di'],
  toolPolicy: ['base', 'tool'],
  di: ['base', 'tool'],
  services: ['base', 'tool', 'toolPolicy', 'di'],
  unit: ['base', 'tool', 'toolPolicy', 'di', 'services'],
  scopes: ['base', 'tool', 'toolPolicy', 'di', 'services', 'unit'],
  cli: ['base', 'tool', 'toolPolicy', 'di', 'services', 'unit', 'scopes'],
  root: ['base', 'tool', 'toolPolicy', 'di', 'services', 'unit', 'scopes', 'cli'],
};

/** Why an import breaks the rule, or undefined when it is allowed. */
export function violationOf(edge: ImportEdge): string | undefined {
  const from = placeOf(edge.from);
  const to = placeOf(edge.to);
  if (from.layer === 'unit' && to.layer === 'unit') {
    if (from.unit === to.unit) return undefined;
    if (edge.to === `${to.unit}/contract.ts`) return undefined;
    return `${edge.from} imports ${edge.to}: ${from.unit} may use ${to.unit} only through ${to.unit}/contract.ts`;
  }
  if (from.layer === to.layer) return undefined;
  if (ALLOWED[from.layer].includes(to.layer)) return undefined;
  const what = to.layer === 'unit' ? to.unit : `src/${to.layer}`;
  return `${edge.from} imports ${edge.to}: src/${from.layer === 'unit' ? from.unit : from.layer} must not import ${what}`;
}

/** Each import cycle once, as the files of one strongly connected component (Tarjan). */
export function findCycles(edges: readonly ImportEdge[]): string[][] {
  const graph = new Map<string, string[]>();
  for (const { from, to } of edges) {
    if (!graph.has(from)) graph.set(from, []);
    if (!graph.has(to)) graph.set(to, []);
    graph.get(from)!.push(to);
  }
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  // Iterative, so a long chain of imports cannot overflow the call stack.
  for (const start of [...graph.keys()].sort()) {
    if (indices.has(start)) continue;
    const work: Array<{ node: string; next: number }> = [{ node: start, next: 0 }];
    indices.set(start, index);
    low.set(start, index++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const targets = graph.get(frame.node)!;
      if (frame.next < targets.length) {
        const target = targets[frame.next++]!;
        if (!indices.has(target)) {
          indices.set(target, index);
          low.set(target, index++);
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, next: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, indices.get(target)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === indices.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        const selfLoop = graph.get(frame.node)!.includes(frame.node);
        if (component.length > 1 || selfLoop) cycles.push(component.sort());
      }
    }
  }
  return cycles;
}

/** Every breach of the layer rule under `root`, as sentences naming the import. */
export function layerViolations(root: string): string[] {
  const edges = readImportGraph(root);
  const problems = edges.map(violationOf).filter((v): v is string => v !== undefined);
  for (const cycle of findCycles(edges)) problems.push(`import cycle: ${cycle.join(' → ')}`);
  return problems;
}
