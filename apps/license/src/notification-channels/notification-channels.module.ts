import type { Request } from 'express';
import type pg from 'pg';
import type { Config } from '@app/config';
import type { ChannelName, NotificationChannel, OutgoingLookup } from '@app/events';
import type { Guard, Logger } from '@app/http';
import { createSettingsStore } from '@app/settings';
import { recordFailedWrite } from '../audit/audit-failures.js';
import type { FeatureModule } from '@app/http';
import { routingFromConfig } from '../notifications/notifications.service.js';
import { settingsTableName } from '../runtime-config/settings.table.js';
import { notificationChannelPages } from './notification-channels.pages.js';
import { channelSettingsNamespace, channelSettingsSchema } from './notification-channels.schema.js';
import { createNotificationChannelsService, type TestEmailTiming } from './notification-channels.service.js';

/**
 * The notification channels an admin configures at run time (settings namespace
 * `notification-channels`, the environment's values until saved) and their page; `channels`
 * gives the notifier the channels in force at each send.
 */
export async function notificationChannelsModule(needs: {
  config: Config;
  pool: pg.Pool;
  now: () => Date;
  logger: Logger;
  admin: Guard;
  adminPage: Guard;
  csrfToken: (req: Request) => string;
  refreshMs?: number;
  /** DNS for SMTP hosts (tests inject their own). */
  lookup?: OutgoingLookup;
  /** The test email's pace (TEST_EMAIL_TIMING unless given). */
  testEmailTiming?: TestEmailTiming;
}): Promise<FeatureModule & { channels: () => Partial<Record<ChannelName, NotificationChannel>> }> {
  const store = await createSettingsStore({
    pool: needs.pool,
    table: settingsTableName,
    namespace: channelSettingsNamespace,
    schema: channelSettingsSchema,
    refreshMs: needs.refreshMs,
  });
  const service = createNotificationChannelsService({
    pool: needs.pool,
    store,
    config: needs.config,
    now: needs.now,
    logger: needs.logger,
    lookup: needs.lookup,
    testEmailTiming: needs.testEmailTiming,
  });
  return {
    name: 'notification-channels',
    routes: notificationChannelPages({
      service,
      stored: store.get,
      routing: routingFromConfig(needs.config),
      adminPage: needs.adminPage,
      csrfToken: needs.csrfToken,
      auditFailure: (req, target, error) => recordFailedWrite(needs.pool, req, target, error),
    }),
    channels: service.channels,
    close: () => store.close(),
  };
}
