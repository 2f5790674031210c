import type { Config } from '@app/config';
import type { Notifier, WorkQueue } from '@app/events';
import type { Logger } from '@app/http';
import type { FeatureModule } from '../common/feature-module.js';
import type { EventBus } from '../events/event-bus.js';
import { createLicenseNotifier, subscribeNotifications } from './notifications.service.js';

/** Mail, SMS and Telegram notifications of the events the specification lists; other features notify through `notifier`. */
export function notificationsModule(needs: { config: Config; queue: WorkQueue; logger: Logger; events: EventBus }): FeatureModule & { notifier: Notifier } {
  const notifier = createLicenseNotifier(needs.config, needs.queue, needs.logger);
  return {
    name: 'notifications',
    routes: [],
    notifier,
    eventHandlers: () => subscribeNotifications(needs.events, notifier),
    jobs: () => notifier.start(),
  };
}
