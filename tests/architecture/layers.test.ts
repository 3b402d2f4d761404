import * as nodePath from 'node:path';
import { useTempDir, writeFiles } from '../helpers/tempDir';
import { findCycles, layerViolations } from './importGraph';

const SRC = nodePath.resolve(__dirname, '../../src');

describe('the layer rule of src/', () => {
  test('holds: imports run downward, no cycles, units meet only through contract files', () => {
    expect(layerViolations(SRC)).toEqual([]);
  });
});

describe('the layer check itself', () => {
  const dir = useTempDir();

  test('names each planted violation', () => {
    writeFiles(dir.path, {
      'base/a.ts': "import type { X } from '../services/x/x';\nexport const a = 1;\n",
      'services/x/x.ts': "export interface X { y: number }\nimport '../../tools/os/osFeature';\n",
      'tool/t.ts': "export { s } from '../scopes/app';\n",
      'scopes/app.ts': "export const s = 1;\n",
      'tools/os/osFeature.ts': "import { helper } from '../task/agentTaskService';\nimport { ITask } from '../task/contract';\nexport const o = [helper, ITask];\n",
      'tools/task/agentTaskService.ts': 'export const helper = 1;\n',
      'tools/task/contract.ts': "export const ITask = Symbol();\nimport('../os/osFeature');\n",
      'features/plan/planFeature.ts': "const cli = require('../../cli/main');\n",
      'cli/main.ts': 'export {};\n',
    });
    expect(layerViolations(dir.path)).toEqual([
      'base/a.ts imports services/x/x.ts: src/base must not import src/services',
      'features/plan/planFeature.ts imports cli/main.ts: src/features/plan must not import src/cli',
      'services/x/x.ts imports tools/os/osFeature.ts: src/services must not import tools/os',
      'tool/t.ts imports scopes/app.ts: src/tool must not import src/scopes',
      'tools/os/osFeature.ts imports tools/task/agentTaskService.ts: tools/os may use tools/task only through tools/task/contract.ts',
      'tools/task/contract.ts imports tools/os/osFeature.ts: tools/task may use tools/os only through tools/os/contract.ts',
      'import cycle: tools/os/osFeature.ts → tools/task/contract.ts',
    ]);
  });

  test('finds cycles of type-only imports and self-imports', () => {
    writeFiles(dir.path, {
      'services/a/a.ts': "import type { B } from '../b/b';\nexport type A = B;\n",
      'services/b/b.ts': "import type { A } from '../a/a';\nexport type B = A | 1;\n",
      'services/c/c.ts': "import type { C } from './c';\nexport type C = 1;\n",
    });
    expect(layerViolations(dir.path)).toEqual(['import cycle: services/a/a.ts → services/b/b.ts', 'import cycle: services/c/c.ts']);
    expect(findCycles([{ from: 'a', to: 'b' }])).toEqual([]);
  });
});
