// The notify feature's public surface (`toolhost/features/notify`): NotifyUser and its limits.
export { createNotifyFeature } from './notifyFeature';
export { NotifyUserTool, INotifyUserTool, notifyUserTool, type NotifyUserOutput } from './notifyUserTool';
export { INotificationLimiter, type NotificationIdentity, type NotificationVerdict } from './notificationLimiter';
export { NotifyUserInputSchema, type NotifyUserInput, NotifyConfigSchema, notifyConfig, type NotifyConfig, NOTIFY_USER_NAME } from './notify';
