import { PagePrefix } from '../../../src/tools/os/grep/grepWorker';

describe('PagePrefix', () => {
  test.each([
    // [page end, files offered in order as [path, matching lines], wanted when offered, dropped by each add]
    [2, [['b', 1], ['a', 1], ['c', 1]], [true, true, false], [[], [], undefined]],
    [2, [['c', 1], ['b', 1], ['a', 1]], [true, true, true], [[], [], ['c']]],
    [3, [['c', 5], ['a', 1], ['b', 1], ['d', 1]], [true, true, true, false], [[], [], [], undefined]],
    [3, [['c', 5], ['a', 2], ['b', 1]], [true, true, true], [[], [], ['c']]],
    // One file holding more than the page keeps it, and only it.
    [2, [['m', 10], ['z', 1], ['a', 1]], [true, false, true], [[], undefined, []]],
    // Paths compare as the tool sorts them: by UTF-16 code units, so 'B' < 'a' and 'a/b' < 'a0'.
    [1, [['a0', 1], ['a/b', 1], ['B', 1], ['a', 1]], [true, true, true, false], [[], ['a0'], ['a/b'], undefined]],
  ] as Array<[number, Array<[string, number]>, boolean[], Array<string[] | undefined>]>)('page end %i, offers %j', (pageEnd, offers, wanted, dropped) => {
    const prefix = new PagePrefix(pageEnd);
    offers.forEach(([path, count], i) => {
      expect([path, prefix.wants(path)]).toEqual([path, wanted[i]]);
      if (wanted[i]) expect(prefix.add(path, count)).toEqual(dropped[i]);
    });
  });

  test('against sorting everything: the files kept are those that hold the first lines of the page (generated offers)', () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 500; round++) {
      const pageEnd = 1 + random(12);
      const files = new Map<string, number>();
      const count = random(30);
      while (files.size < count) files.set(`${'abc/'.slice(0, random(4))}${String.fromCharCode(65 + random(58))}${random(5)}`, 1 + random(4));
      const prefix = new PagePrefix(pageEnd);
      const kept = new Set<string>();
      for (const [path, lines] of files) {
        if (!prefix.wants(path)) continue;
        kept.add(path);
        for (const gone of prefix.add(path, lines)) kept.delete(gone);
      }
      // The oracle: all files in path order, taken until they hold the page's lines.
      const expected: string[] = [];
      let lines = 0;
      for (const path of [...files.keys()].sort()) {
        if (lines >= pageEnd) break;
        expected.push(path);
        lines += files.get(path)!;
      }
      expect([...kept].sort()).toEqual(expected);
    }
  });
});
