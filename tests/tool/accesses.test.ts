import { conflict, isReadOnlyAccesses, ToolAccesses, type ToolAccesses as Accesses } from '../../src/tool/accesses';

const A = ToolAccesses;

describe('conflict()', () => {
  const cases: Array<[string, Accesses, Accesses, boolean]> = [
    ['two reads of one file', [A.readFile('/w/a.ts')], [A.readFile('/w/a.ts')], false],
    ['read and write of one file', [A.readFile('/w/a.ts')], [A.writeFile('/w/a.ts')], true],
    ['two writes of one file', [A.writeFile('/w/a.ts')], [A.writeFile('/w/a.ts')], true],
    ['writes of different files', [A.writeFile('/w/a.ts')], [A.writeFile('/w/b.ts')], false],
    ['a write under a recursive search', [A.searchTree('/w')], [A.writeFile('/w/src/a.ts')], true],
    ['a write beside a recursive search', [A.searchTree('/w/src')], [A.writeFile('/w/lib/a.ts')], false],
    ['a sibling with a shared prefix is not under it', [A.searchTree('/w/src')], [A.writeFile('/w/src2/a.ts')], false],
    ['a non-recursive access to a directory does not cover its files', [A.readFile('/w/src')], [A.writeFile('/w/src/a.ts')], false],
    ['a recursive write covers reads below it', [A.writeTree('/w/out')], [A.readFile('/w/out/x')], true],
    ['the root covers everything', [A.searchTree('/')], [A.writeFile('/etc/hosts')], true],
    ['a trailing slash does not matter', [A.writeFile('/w/a/')], [A.readFile('/w/a')], true],
    ['searches never write', [A.searchTree('/w')], [A.searchTree('/w')], false],
    ['all against a read', A.all(), [A.readFile('/w/a')], true],
    ['all against all', A.all(), A.all(), true],
    ['all against a process access', A.all(), [A.process()], true],
    ['all against nothing touches nothing', A.all(), A.none(), false],
    ['process accesses do not conflict with each other', [A.process()], [A.process()], false],
    ['network accesses do not conflict with each other', [A.network()], [A.network()], false],
    ['state reads share', [A.readState('tasks')], [A.readState('tasks')], false],
    ['state read and write conflict', [A.readState('tasks')], [A.writeState('tasks')], true],
    ['state keys nest like paths', [A.readState('tasks')], [A.writeState('tasks/7')], true],
    ['different state keys', [A.writeState('todo')], [A.writeState('tasks')], false],
    ['a file and a state key never conflict', [A.writeFile('/w/tasks')], [A.writeState('tasks')], false],
    ['one conflicting pair is enough', [A.readFile('/w/a'), A.readFile('/w/b')], [A.writeFile('/w/c'), A.writeFile('/w/b')], true],
  ];
  test.each(cases)('%s', (_name, left, right, expected) => {
    expect(conflict(left, right)).toBe(expected);
    expect(conflict(right, left)).toBe(expected);
  });

  if (process.platform === 'linux') {
    test('paths compare case-sensitively on Linux', () => {
      expect(conflict([A.writeFile('/w/A.ts')], [A.writeFile('/w/a.ts')])).toBe(false);
    });
  }
});

describe('isReadOnlyAccesses()', () => {
  test.each<[string, Accesses, boolean]>([
    ['nothing', A.none(), true],
    ['file read and search', [A.readFile('/a'), A.searchTree('/w')], true],
    ['state read', [A.readState('tasks')], true],
    ['a file write', [A.readFile('/a'), A.writeFile('/b')], false],
    ['a state write', [A.writeState('todo')], false],
    ['a process', [A.process()], false],
    ['the network', [A.network()], false],
    ['all', A.all(), false],
  ])('%s', (_name, accesses, expected) => {
    expect(isReadOnlyAccesses(accesses)).toBe(expected);
  });
});
