// The AskUserQuestion family's public surface (`toolhost/tools/askUser`).
export { createAskUserFeature } from './askUserFeature';
export { AskUserQuestionTool, IAskUserQuestionTool, askUserQuestionTool, QUESTION_STATE_KEY } from './askUserQuestionTool';
export {
  AskUserQuestionInputSchema,
  type AskUserQuestionInput,
  type AskUserQuestionOutput,
  type AnsweredQuestion,
  ASK_USER_QUESTION_NAME,
  HEADER_MAX_CHARS,
  QuestionsConfigSchema,
  questionsConfig,
} from './askUser';
