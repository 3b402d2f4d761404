import { runCliProcess } from '../../../helpers/cliProcess';
import { useTempDir, writeFiles } from '../../../helpers/tempDir';
import { HOW_TO_ENABLE_WEB_SEARCH } from '../../../../src/tools/web/search/webSearchService';

// The built CLI: `toolhost tools --all` says why WebSearch is inactive and how to enable it.
const dir = useTempDir();
const noKeys = { BRAVE_API_KEY: '', TAVILY_API_KEY: '', EXA_API_KEY: '' };

describe('toolhost tools and WebSearch', () => {
  test('with no provider, --all lists it inactive with how to enable it', async () => {
    const run = await runCliProcess(['tools', '--all'], { cwd: dir.path, env: noKeys });
    expect(run.code).toBe(0);
    const reason = HOW_TO_ENABLE_WEB_SEARCH.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    expect(run.stdout).toMatch(new RegExp(`\\nWebSearch +builtin +\\(inactive\\) +${reason}\\n`));
  });

  test('a provider whose key is missing names the variable; with a SearXNG URL it is active', async () => {
    writeFiles(dir.path, { 'toolhost.json': JSON.stringify({ webSearch: { provider: 'brave' } }), 'searx.json': JSON.stringify({ webSearch: { provider: 'searxng', searxng: { baseUrl: 'http://localhost:8080' } } }) });
    const keyless = await runCliProcess(['tools', '--all'], { cwd: dir.path, env: noKeys });
    expect(keyless.stdout).toMatch(/\nWebSearch +builtin +\(inactive\) +webSearch\.provider is "brave" but the environment variable BRAVE_API_KEY \(webSearch\.brave\.apiKeyEnv\) is not set: put the API key there\n/);
    const searx = await runCliProcess(['tools', '--json', '--config', 'searx.json'], { cwd: dir.path, env: noKeys });
    expect((JSON.parse(searx.stdout) as { name: string }[]).map((t) => t.name)).toContain('WebSearch');
  });
});
