/**
 * The environment of a command run for a model: no colours, no pagers, no terminal prompts (stdin
 * is closed, so a prompt would only hang until the timeout).
 */
export function shellEnvironment(base: NodeJS.ProcessEnv = process.env, extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  // A host that forces colours would defeat NO_COLOR.
  delete env.FORCE_COLOR;
  delete env.CLICOLOR_FORCE;
  return {
    ...env,
    NO_COLOR: '1',
    TERM: 'dumb',
    GIT_TERMINAL_PROMPT: '0',
    PAGER: 'cat',
    GIT_PAGER: 'cat',
    ...extra,
  };
}
