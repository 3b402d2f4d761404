import { z } from 'zod';

/**
 * What a UI or an approval prompt shows for a tool call. Defined once, here, with zod; the
 * TypeScript type is inferred from it.
 */
export const ToolInputDisplaySchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('command'),
    command: z.string(),
    cwd: z.string().optional(),
    description: z.string().optional(),
    language: z.literal('bash').optional(),
  }),
  z.object({
    kind: z.literal('file_io'),
    operation: z.enum(['read', 'write', 'edit', 'glob', 'grep']),
    path: z.string(),
    detail: z.string().optional(),
    content: z.string().optional(),
    before: z.string().optional(),
    after: z.string().optional(),
  }),
  z.object({
    kind: z.literal('diff'),
    path: z.string(),
    before: z.string(),
    after: z.string(),
    hunks: z.number().int().nonnegative().optional(),
  }),
  z.object({ kind: z.literal('search'), query: z.string(), scope: z.string().optional() }),
  z.object({ kind: z.literal('url_fetch'), url: z.string(), method: z.string().optional() }),
  z.object({
    kind: z.literal('agent_call'),
    agent_name: z.string(),
    prompt: z.string(),
    background: z.boolean().optional(),
  }),
  z.object({ kind: z.literal('skill_call'), skill_name: z.string(), args: z.string().optional() }),
  z.object({
    kind: z.literal('todo_list'),
    items: z.array(z.object({ title: z.string(), status: z.enum(['pending', 'in_progress', 'done', 'cancelled']) })),
  }),
  z.object({
    kind: z.literal('task'),
    task_id: z.string(),
    status: z.string(),
    description: z.string(),
    task_kind: z.string().optional(),
  }),
  z.object({ kind: z.literal('task_stop'), task_id: z.string(), task_description: z.string() }),
  z.object({
    kind: z.literal('plan_review'),
    // Absent when the plan is only read as the call runs (ExitPlanMode: resolving does no I/O); its
    // `plan_review` interaction then carries the text.
    plan: z.string().optional(),
    path: z.string().optional(),
    options: z.array(z.object({ label: z.string(), description: z.string() })).optional(),
  }),
  z.object({
    kind: z.literal('goal_start'),
    objective: z.string(),
    completionCriterion: z.string().optional(),
    mode: z.enum(['manual', 'yolo']),
  }),
  z.object({ kind: z.literal('generic'), summary: z.string(), detail: z.unknown().optional() }),
]);

export type ToolInputDisplay = z.infer<typeof ToolInputDisplaySchema>;
export type ToolInputDisplayKind = ToolInputDisplay['kind'];

export const TOOL_INPUT_DISPLAY_KINDS: readonly ToolInputDisplayKind[] = ToolInputDisplaySchema.options.map(
  (option) => option.shape.kind.value,
);
