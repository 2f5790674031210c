import type { Config } from '@app/config';
import type { ChannelName, NotificationChannel, Notifier, WorkQueue } from '@app/events';
import type { Logger } from '@app/http';
import type { FeatureModule } from '@app/http';
import type { EventBus } from '../events/event-bus.js';
import { channelsFromConfig, createLicenseNotifier, subscribeNotifications } from './notifications.service.js';

/**
 * Mail, SMS and Telegram notifications of the events the specification lists; other features notify through `notifier`.
 * `channels` gives the channels in force at each send (the admin console's settings); without it, the environment's.
 */
export function notificationsModule(needs: {
  config: Config;
  queue: WorkQueue;
  logger: Logger;
  events: EventBus;
  channels?: () => Partial<Record<ChannelName, NotificationChannel>>;
}): FeatureModule & { notifier: Notifier } {
  const notifier = createLicenseNotifier(
    needs.config,
    needs.queue,
    needs.logger,
    needs.channels ?? channelsFromConfig(needs.config),
  );
  return {
    name: 'notifications',
    routes: [],
    notifier,
    eventHandlers: () => subscribeNotifications(needs.events, notifier),
    jobs: () => notifier.start(),
  };
}
