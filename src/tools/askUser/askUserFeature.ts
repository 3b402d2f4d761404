import { Feature } from '../../di/feature';
import { questionsConfig } from './askUser';
import { askUserQuestionTool } from './askUserQuestionTool';

/** AskUserQuestion: multiple-choice questions to the person, active only while a host can answer them. */
export function createAskUserFeature(): Feature {
  return new Feature('askUser').contributeConfig(questionsConfig).contributeTool(askUserQuestionTool);
}
