import { Command, InvalidArgumentError } from 'commander';
import { errorMessage } from '../../base/errors';
import { TaskWorker } from '../../features/scale/jobs/taskWorker';
import { parseRedisUrl } from '../../features/scale/redisConnection';
import { scaleConfig } from '../../features/scale/scaleConfig';
import { type AppConfigInput, createApp } from '../../scopes/appScope';
import { builtinFeatures } from '../../scopes/builtinFeatures';
import { bashConfig } from '../../tools/os/contract';
import { createCliFeature, loadConfiguredFeatures } from '../configFeatures';
import { addWorkspaceOptions, resolveWorkspace, type WorkspaceFlags } from '../commonOptions';
import { type CliIo, stopSignalOf, UsageError } from '../io';

interface WorkerFlags extends WorkspaceFlags {
  readonly redis?: string;
  readonly concurrency: number;
  readonly shutdownTimeout: number;
}

function positiveInteger(name: string, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1 || n > max) throw new InvalidArgumentError(`${name} must be a whole number from 1 to ${max}; got "${value}".`);
    return n;
  };
}

async function work(flags: WorkerFlags, io: CliIo): Promise<void> {
  const workspace = resolveWorkspace(flags, io);
  // The same configuration as the agents that queue the tasks: its scale and bash sections apply here.
  const modules = loadConfiguredFeatures(workspace.configInput, workspace.configFile, workspace.configSource, io.library);
  const app = createApp({
    features: [...builtinFeatures(), createCliFeature(), ...modules.flatMap((m) => m.features)],
    config: workspace.configInput as AppConfigInput,
    configSource: workspace.configSource,
  });
  const scale = app.config.section(scaleConfig);
  const bash = app.config.section(bashConfig);
  await app.dispose();
  if (flags.redis !== undefined) {
    const parsed = parseRedisUrl(flags.redis);
    if (!parsed.ok) throw new UsageError(`--redis: ${parsed.message}`);
  }
  const redisUrl = flags.redis ?? scale.redis.url;
  if (redisUrl === undefined) throw new UsageError(`No Redis server to take jobs from: set scale.redis.url in ${workspace.configSource}, or pass --redis redis://host:port (or unix:///path/to/redis.sock).`);
  let worker: TaskWorker;
  try {
    worker = await TaskWorker.start({
      redisUrl,
      keyPrefix: scale.redis.keyPrefix,
      concurrency: flags.concurrency,
      lockDurationMs: scale.jobs.lockDurationMs,
      stalledIntervalMs: scale.jobs.stalledIntervalMs,
      outputMaxBytes: scale.jobs.outputMaxBytes,
      keepEndedS: scale.jobs.keepEndedTasksS,
      drainMs: bash.drainMs,
      killGraceMs: bash.killGraceMs,
      warn: (message) => io.stderr.write(`warning: ${message}\n`),
    });
  } catch (error) {
    // Redis unreachable, or ioredis/bullmq missing: the message says what to do.
    throw new UsageError(errorMessage(error));
  }
  io.stderr.write(`toolhost worker ${worker.id}: taking background tasks from ${redisUrl} (queue ${scale.redis.keyPrefix}bull:tasks, concurrency ${flags.concurrency})\n`);
  const stopped = new Promise<string>((resolve) => {
    const onInterrupt = () => resolve(stopSignalOf(io.interrupt) ?? 'interrupted');
    if (io.interrupt?.aborted) onInterrupt();
    io.interrupt?.addEventListener('abort', onInterrupt, { once: true });
  });
  const why = await stopped;
  io.stderr.write(`toolhost worker ${worker.id}: ${why}: taking no new jobs; waiting up to ${flags.shutdownTimeout} s for ${worker.runningCount} running\n`);
  await worker.close(flags.shutdownTimeout * 1000, `The worker running it shut down (${why}) before it ended`);
  io.stderr.write(`toolhost worker ${worker.id}: stopped\n`);
}

export function workerCommand(io: CliIo): Command {
  const command = new Command('worker')
    .description(
      'run background Bash tasks queued by agents with scale.jobs.backgroundTasks "queue": takes BullMQ jobs from scale.redis.url, ' +
        'runs each command in its own process group and streams its output into Redis. SIGTERM: takes no new jobs, lets running ones finish ' +
        '(killing them after --shutdown-timeout); jobs not taken stay queued for other workers.',
    )
    .option('--redis <url>', 'the Redis server (default: scale.redis.url of the config)')
    .option('--concurrency <n>', 'jobs run at once', positiveInteger('--concurrency', 1000), 4)
    .option('--shutdown-timeout <seconds>', 'on SIGTERM, how long running jobs may take before they are killed', positiveInteger('--shutdown-timeout', 86_400), 60);
  addWorkspaceOptions(command);
  command.action((flags: WorkerFlags) => work(flags, io));
  return command;
}
