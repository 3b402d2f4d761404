import { expandEnvReferences, expandOrThrow } from '../../../../src/features/mcp/client/envExpansion';

const env = { TOKEN: 'abc', EMPTY: '', HOME: '/home/u' };

describe('expandEnvReferences', () => {
  test.each([
    ['no references', 'plain', { ok: true, value: 'plain' }],
    ['one reference', 'Bearer ${TOKEN}', { ok: true, value: 'Bearer abc' }],
    ['two references', '${HOME}/x/${TOKEN}', { ok: true, value: '/home/u/x/abc' }],
    ['a default for an unset variable', '${NOPE:-fallback}', { ok: true, value: 'fallback' }],
    ['a default for an empty variable', '${EMPTY:-fallback}', { ok: true, value: 'fallback' }],
    ['an empty default', '${NOPE:-}', { ok: true, value: '' }],
    ['a set variable ignores its default', '${TOKEN:-x}', { ok: true, value: 'abc' }],
    ['an empty variable without a default', 'a${EMPTY}b', { ok: true, value: 'ab' }],
    ['an unset variable', 'Bearer ${NOPE}', { ok: false, missing: 'NOPE' }],
    ['$NAME without braces is left alone', '$TOKEN', { ok: true, value: '$TOKEN' }],
    ['an invalid name is left alone', '${1X}', { ok: true, value: '${1X}' }],
  ])('%s', (_name, text, expected) => {
    expect(expandEnvReferences(text, env)).toEqual(expected);
  });

  test('expandOrThrow names the key and the variable', () => {
    expect(() => expandOrThrow('${GITHUB_TOKEN}', {}, 'mcpServers.github.headers.Authorization')).toThrow(
      'mcpServers.github.headers.Authorization uses ${GITHUB_TOKEN}, but the environment variable GITHUB_TOKEN is not set',
    );
  });
});
