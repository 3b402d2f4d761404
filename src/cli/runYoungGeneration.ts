import { holdYoungGenerationSize } from '../base/youngGeneration';

// For the launcher, which writes the code cache under the flags the bundle was compiled with.
export { reassertYoungGenerationHold } from '../base/youngGeneration';

/**
 * Whether `toolhost <argv>` holds V8's young generation at its starting size for the life of the
 * process (base/youngGeneration.ts: what that saves and costs): `run` does, a one-shot batch whose
 * peak memory is what a host sees; not the long-lived `mcp serve`; not when the user gave V8 a
 * semi-space setting of their own (`nodeFlags`: NODE_OPTIONS and node's own arguments).
 */
export function runHoldsYoungGeneration(argv: readonly string[], nodeFlags: string): boolean {
  return argv[0] === 'run' && !/--(max|min)[-_]semi[-_]space[-_]size|--semi[-_]space[-_]growth[-_]factor/.test(nodeFlags);
}

/**
 * Takes the hold when `argv` asks for it, never released (the process ends with the command).
 * The launcher (scripts/cliLauncher.js) calls this before it compiles the bundle: V8's code cache
 * records the flags it was made under, and a cache written under a flag set later would be
 * rejected at every start. The bundle's own copy of base/youngGeneration.ts sees the hold.
 */
export function holdYoungGenerationForCommand(argv: readonly string[], nodeFlags: string): void {
  if (runHoldsYoungGeneration(argv, nodeFlags)) holdYoungGenerationSize();
}
