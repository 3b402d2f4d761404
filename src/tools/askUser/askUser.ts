import { z } from 'zod';
import { defineConfigSection } from '../../di/configSection';
import type { QuestionAnswer, QuestionRequest, QuestionResponse, UserQuestion } from '../../services/interaction/interaction';

export const ASK_USER_QUESTION_NAME = 'AskUserQuestion';

/** The most characters of a question header; the schema enforces it (`maxLength`). */
export const HEADER_MAX_CHARS = 12;

const OptionSchema = z.strictObject({
  label: z.string().min(1).max(60).describe('What the person picks, 1–60 characters. Suffix the one you recommend with " (Recommended)".'),
  description: z.string().max(200).optional().describe('What picking it means, at most 200 characters.'),
});

const QuestionSchema = z.strictObject({
  question: z.string().min(1).max(500).describe('The full question, ending with "?".'),
  header: z.string().min(1).max(HEADER_MAX_CHARS).describe(`A short tag shown beside the question, at most ${HEADER_MAX_CHARS} characters, e.g. "Database".`),
  options: z.array(OptionSchema).min(2).max(4).describe('2–4 distinct choices; the person can always type another answer ("Other").'),
  multi_select: z.boolean().optional().describe('true: the person may pick several options (default false).'),
});

export const AskUserQuestionInputSchema = z.strictObject({
  questions: z.array(QuestionSchema).min(1).max(4).describe('1–4 questions, asked together; each question text distinct.'),
});
export type AskUserQuestionInput = z.infer<typeof AskUserQuestionInputSchema>;

export const QuestionsConfigSchema = z.strictObject({
  timeoutS: z
    .number()
    .int()
    .min(1)
    .max(86_400)
    .default(600)
    .describe('How long AskUserQuestion waits for an answer, in seconds, before it gives up with an error.'),
});
export const questionsConfig = defineConfigSection('questions', QuestionsConfigSchema.prefault({}));

/** Sample inputs for the conformance suite (tests/tools/conformance.test.ts): valid, resolved without I/O. */
export const ASK_USER_QUESTION_SAMPLES: readonly unknown[] = [
  { questions: [{ question: 'Which database should the service use?', header: 'Database', options: [{ label: 'PostgreSQL (Recommended)' }, { label: 'SQLite' }] }] },
  {
    questions: [
      { question: 'Which checks should run?', header: 'Checks', multi_select: true, options: [{ label: 'lint' }, { label: 'tests', description: 'the unit tests' }, { label: 'types' }] },
      { question: 'Where should it deploy?', header: 'Target', options: [{ label: 'staging' }, { label: 'production' }] },
    ],
  },
];

/** Why the questions cannot be asked as given (duplicates the schema cannot express), or undefined. */
export function questionsProblem(input: AskUserQuestionInput): string | undefined {
  const texts = new Set<string>();
  for (const q of input.questions) {
    if (texts.has(q.question)) return `Invalid questions: two questions have the text ${JSON.stringify(q.question)}. Ask each question once.`;
    texts.add(q.question);
    const labels = new Set<string>();
    for (const option of q.options) {
      if (labels.has(option.label)) {
        return `Invalid questions: the question ${JSON.stringify(q.question)} has the option ${JSON.stringify(option.label)} twice. Give each option a distinct label.`;
      }
      labels.add(option.label);
    }
  }
  return undefined;
}

/** The request for the host, from the model's input. */
export function questionRequest(input: AskUserQuestionInput, toolCallId: string): QuestionRequest {
  const questions: UserQuestion[] = input.questions.map((q) => ({
    question: q.question,
    header: q.header,
    options: q.options.map((o) => (o.description !== undefined ? { label: o.label, description: o.description } : { label: o.label })),
    multiSelect: q.multi_select === true,
  }));
  return { kind: 'question', toolCallId, questions };
}

/** One answer as the model sees it: the question, the labels picked, the "Other" text or null. */
export interface AnsweredQuestion {
  readonly question: string;
  readonly selected: readonly string[];
  readonly other: string | null;
}

export type AskUserQuestionOutput =
  | { readonly status: 'answered'; readonly answers: readonly AnsweredQuestion[] }
  | { readonly status: 'dismissed'; readonly answers: readonly [] };

export const DISMISSED_TEXT = 'The user closed the questions without answering. Do not assume an answer: ask in plain text, or stop and wait.';

/**
 * Checks the host's answer against the questions: one answer per question, labels among the
 * options, a single label where only one may be picked. A host that answers otherwise is broken.
 */
export function answerOutput(request: QuestionRequest, response: QuestionResponse): AskUserQuestionOutput {
  if (response.status === 'dismissed') return { status: 'dismissed', answers: [] };
  if (response.status !== 'answered' || !Array.isArray(response.answers)) {
    throw new Error(`the host answered with status ${JSON.stringify((response as { status?: unknown }).status)}, not "answered" or "dismissed"`);
  }
  if (response.answers.length !== request.questions.length) {
    throw new Error(`the host gave ${response.answers.length} answers to ${request.questions.length} questions`);
  }
  return {
    status: 'answered',
    answers: request.questions.map((q, i) => {
      const answer: QuestionAnswer = response.answers[i]!;
      const labels = new Set(q.options.map((o) => o.label));
      const unknown = answer.selected.find((label) => !labels.has(label));
      if (unknown !== undefined) throw new Error(`the host answered ${JSON.stringify(q.question)} with ${JSON.stringify(unknown)}, which is not one of its options`);
      if (!q.multiSelect && answer.selected.length > 1) throw new Error(`the host picked ${answer.selected.length} options for ${JSON.stringify(q.question)}, which allows one`);
      const other = answer.other?.trim() ? answer.other.trim() : null;
      if (answer.selected.length === 0 && other === null) throw new Error(`the host gave no answer to ${JSON.stringify(q.question)}`);
      return { question: q.question, selected: [...answer.selected], other };
    }),
  };
}
