import { fnv1a32Hex, mcpServerToolPrefix, qualifyMcpToolName, sanitizeMcpNamePart } from '../../../../src/features/mcp/client/toolNaming';
import { qualifyMcpToolName as fromRoot } from '../../../../src/index';

/** FNV-1a, 32 bits, over UTF-8 bytes, written independently of the implementation (BigInt arithmetic). */
function referenceFnv1a(text: string): string {
  let hash = 0x811c9dc5n;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= BigInt(byte);
    hash = (hash * 0x01000193n) % 0x100000000n;
  }
  return hash.toString(16).padStart(8, '0');
}

describe('fnv1a32Hex', () => {
  test.each([
    // Published FNV-1a 32-bit test vectors.
    ['', '811c9dc5'],
    ['a', 'e40c292c'],
    ['b', 'e70c2de5'],
    ['foobar', 'bf9cf968'],
  ])('FNV-1a(%j) = %s', (text, hex) => {
    expect(fnv1a32Hex(text)).toBe(hex);
    expect(referenceFnv1a(text)).toBe(hex);
  });

  test('is always 8 lowercase hex digits, unsigned, and matches the reference', () => {
    for (const text of ['mcp__x__y', 'hello world', 'ü', '\u{1F600}', 'x'.repeat(200), 'mcp__server__tool_with_a_long_name_0123456789']) {
      const hex = fnv1a32Hex(text);
      expect(hex).toMatch(/^[0-9a-f]{8}$/);
      expect(hex).toBe(referenceFnv1a(text));
    }
  });
});

describe('sanitizeMcpNamePart', () => {
  test.each([
    ['github', 'github'],
    ['my server', 'my_server'],
    ['my.server', 'my_server'],
    ['a--b', 'a--b'],
    ['__a__b__', 'a_b'],
    ['a!!!b', 'a_b'],
    ['a _ b', 'a_b'],
    ['Ünïcode', 'n_code'],
    ['!!!', ''],
    ['-x-', '-x-'],
  ])('%j → %j', (part, expected) => {
    expect(sanitizeMcpNamePart(part)).toBe(expected);
  });
});

describe('qualifyMcpToolName', () => {
  test.each([
    ['github', 'create_issue', 'mcp__github__create_issue'],
    ['My Server', 'do.thing', 'mcp__My_Server__do_thing'],
    ['my_server_', '_tool', 'mcp__my_server__tool'],
    ['a', 'b/c d', 'mcp__a__b_c_d'],
    ['fs', 'read-file', 'mcp__fs__read-file'],
    // The reference's ambiguous case: each part is trimmed, so the boundary stays "__".
    ['My_Server_', '_a_b_c', 'mcp__My_Server__a_b_c'],
  ])('(%j, %j) → %j', (server, tool, expected) => {
    expect(qualifyMcpToolName(server, tool)).toBe(expected);
  });

  test('a name of exactly 64 characters is kept', () => {
    const tool = 't'.repeat(64 - 'mcp__s__'.length);
    expect(qualifyMcpToolName('s', tool)).toBe(`mcp__s__${tool}`);
    expect(qualifyMcpToolName('s', tool)).toHaveLength(64);
  });

  test.each([
    ['s', 't'.repeat(57)],
    ['a-very-long-server-name-for-testing', 'and_an_equally_long_tool_name_that_overflows'],
    ['srv', 'x'.repeat(500)],
    ['weird server!!', 'tool.with.dots.and spaces and more and more and more text'],
  ])('a longer name becomes its first 55 characters, "_" and the FNV-1a of the full name (%#)', (server, tool) => {
    const full = `mcp__${sanitizeMcpNamePart(server)}__${sanitizeMcpNamePart(tool)}`;
    expect(full.length).toBeGreaterThan(64);
    const name = qualifyMcpToolName(server, tool);
    expect(name).toHaveLength(64);
    expect(name).toBe(`${full.slice(0, 55)}_${referenceFnv1a(full)}`);
    expect(name).toMatch(/^[A-Za-z0-9_-]{64}$/);
  });

  test.each([
    // Values computed outside this code base (a Python FNV-1a over the UTF-8 bytes).
    ['server', 'a'.repeat(60), `mcp__server__${'a'.repeat(42)}_aebd3860`],
    ['github', 'create_issue_with_a_very_long_descriptive_name_for_testing', 'mcp__github__create_issue_with_a_very_long_descriptive__8c8219f5'],
  ])('known value: (%j, %j) → %j', (server, tool, expected) => {
    expect(qualifyMcpToolName(server, tool)).toBe(expected);
  });

  test('two long names that share their first 55 characters stay distinct', () => {
    const name = qualifyMcpToolName('server', 'a'.repeat(60));
    // Two long names that share their first 55 characters stay distinct.
    expect(qualifyMcpToolName('server', 'a'.repeat(61))).not.toBe(name);
  });

  test('is exported from the package root', () => {
    expect(fromRoot('a', 'b')).toBe('mcp__a__b');
  });

  test('mcpServerToolPrefix is the start of every tool name of the server', () => {
    expect(mcpServerToolPrefix('My Server')).toBe('mcp__My_Server__');
    expect(qualifyMcpToolName('My Server', 'x'.repeat(100)).startsWith(mcpServerToolPrefix('My Server'))).toBe(true);
  });
});
