import { Command, InvalidArgumentError } from 'commander';
import { errorMessage } from '../../base/errors';
import { TaskWorker } from '../../features/scale/jobs/taskWorker';
import { parseRedisUrl } from '../../features/scale/redisConnection';
import { scaleConfig } from '../../features/scale/scaleConfig';
import { type App, type AppConfigInput, createApp } from '../../scopes/appScope';
import { ISubagentJobHost } from '../../tools/agent/contract';
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
  // The App stays for the worker's life: queued subagents run in it (ISubagentJobHost), with its runner.
  try {
    await takeJobs(app, flags, workspace.configSource, io);
  } finally {
    await app.dispose();
  }
}

async function takeJobs(app: App, flags: WorkerFlags, configSource: string, io: CliIo): Promise<void> {
  const scale = app.config.section(scaleConfig);
  const bash = app.config.section(bashConfig);
  if (flags.redis !== undefined) {
    const parsed = parseRedisUrl(flags.redis);
    if (!parsed.ok) throw new UsageError(`--redis: ${parsed.message}`);
  }
  const redisUrl = flags.redis ?? scale.redis.url;
  if (redisUrl === undefined) throw new UsageError(`No Redis server to take jobs from: set scale.redis.url in ${configSource}, or pass --redis redis://host:port (or unix:///path/to/redis.sock).`);
  if (flags.redis !== undefined && flags.redis !== scale.redis.url && scale.jobs.subagents === 'queue') {
    // The subagents it runs keep their state (plan mode, todos) in scale.redis.url, as their parents do.
    throw new UsageError(`--redis ${flags.redis} differs from scale.redis.url in ${configSource}: a worker that runs subagents (scale.jobs.subagents "queue") needs the agents' Redis in its config; set scale.redis.url there instead.`);
  }
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
      sandbox: app.config.config.sandbox,
      subagents: app.get(ISubagentJobHost),
      warn: (message) => io.stderr.write(`warning: ${message}\n`),
    });
  } catch (error) {
    // Redis unreachable, or ioredis/bullmq missing: the message says what to do.
    throw new UsageError(errorMessage(error));
  }
  const sandboxed = app.config.config.sandbox.mode === 'bwrap' ? ', Bash under bubblewrap' : '';
  io.stderr.write(`toolhost worker ${worker.id}: taking background tasks and subagents from ${redisUrl} (queue ${scale.redis.keyPrefix}bull:tasks, concurrency ${flags.concurrency}${sandboxed})\n`);
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
      'run background Bash tasks and subagents queued by agents with scale.jobs.backgroundTasks / scale.jobs.subagents "queue": takes BullMQ jobs from scale.redis.url, ' +
        'runs each command in its own process group (under bubblewrap with sandbox "bwrap") and each subagent with the subagentRunner of the config, and streams the output into Redis. SIGTERM: takes no new jobs, lets running ones finish ' +
        '(killing them after --shutdown-timeout); jobs not taken stay queued for other workers.',
    )
    .option('--redis <url>', 'the Redis server (default: scale.redis.url of the config)')
    .option('--concurrency <n>', 'jobs run at once', positiveInteger('--concurrency', 1000), 4)
    .option('--shutdown-timeout <seconds>', 'on SIGTERM, how long running jobs may take before they are killed', positiveInteger('--shutdown-timeout', 86_400), 60);
  addWorkspaceOptions(command);
  command.action((flags: WorkerFlags) => work(flags, io));
  return command;
}
