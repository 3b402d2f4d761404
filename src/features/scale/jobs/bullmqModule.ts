/** BullMQ, required on first use so the core library never loads it (or ioredis) unless a queue is configured. */
export function loadBullmq(): typeof import('bullmq') {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('bullmq') as typeof import('bullmq');
  } catch (error) {
    throw new Error(`A BullMQ queue is configured (a scale.jobs key set to "queue", or toolhost worker), but the optional package bullmq could not be loaded (${(error as Error).message}). Install it next to toolhost: npm install ioredis bullmq`, { cause: error });
  }
}
