// Imported first by bench/grepChild.ts: with HOLD_YOUNG_GENERATION_ENV set, the process holds V8's
// young generation before the library loads, as `toolhost run` does (src/base/youngGeneration.ts):
// the figure of a host that does the same.
import { holdYoungGenerationSize } from '../src/base/youngGeneration';

export const HOLD_YOUNG_GENERATION_ENV = 'TOOLHOST_BENCH_HOLD_YOUNG_GENERATION';

if (process.env[HOLD_YOUNG_GENERATION_ENV] === '1') holdYoungGenerationSize();
