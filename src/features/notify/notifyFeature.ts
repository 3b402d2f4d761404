import { Feature } from '../../di/feature';
import { INotificationLimiter, NotificationLimiter } from './notificationLimiter';
import { notifyConfig } from './notify';
import { notifyUserTool } from './notifyUserTool';

/**
 * NotifyUser: a notice from the model to the person, sent as a `notification` interaction to the
 * agent's host (the CLI prints it on stderr, `mcp serve` sends an MCP log message). Active only
 * while the host takes notifications; de-duplicated and rate-limited by an App-wide limiter.
 */
export function createNotifyFeature(): Feature {
  return new Feature('notify')
    .contributeConfig(notifyConfig)
    .bindApp(({ bind }) => bind(INotificationLimiter).to(NotificationLimiter).inSingletonScope(), [INotificationLimiter])
    .contributeTool(notifyUserTool);
}
