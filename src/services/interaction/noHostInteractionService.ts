import { injectable } from 'inversify';
import { type ISessionInteractionService, type InteractionKind, NoInteractionHostError } from './interaction';

/** The default: nobody to ask. Approvals are then denied, never granted silently. */
@injectable()
export class NoHostInteractionService implements ISessionInteractionService {
  canRequest(_kind: InteractionKind): boolean {
    return false;
  }

  request(): Promise<never> {
    return Promise.reject(new NoInteractionHostError('There is no host to answer this request.'));
  }
}
