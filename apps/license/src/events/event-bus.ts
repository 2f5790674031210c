import type { Logger } from '@app/http';

/** The events the specification names; webhooks, automations and notifications subscribe to them. */
export type LicenseEventName =
  | 'LICENSE_CREATED'
  | 'LICENSE_REVOKED'
  | 'LICENSE_EXPIRED'
  | 'NEW_REQUEST_BLOCKED'
  | 'ANOMALY_DETECTED'
  | 'AUTOMATED_ACTION'
  | 'MACHINE_ACTIVATED'
  | 'MACHINE_DEACTIVATED'
  | 'MACHINE_LEASE_EXPIRED'
  | 'LICENSE_SHARING_SUSPECTED';

export const licenseEventNames: readonly LicenseEventName[] = [
  'LICENSE_CREATED',
  'LICENSE_REVOKED',
  'LICENSE_EXPIRED',
  'NEW_REQUEST_BLOCKED',
  'ANOMALY_DETECTED',
  'AUTOMATED_ACTION',
  'MACHINE_ACTIVATED',
  'MACHINE_DEACTIVATED',
  'MACHINE_LEASE_EXPIRED',
  'LICENSE_SHARING_SUSPECTED',
];

export type EventHandler = (data: Record<string, unknown>, event: LicenseEventName) => Promise<void> | void;

export interface EventBus {
  /** Runs every handler of the event, one after another; a failing handler is logged, never thrown. */
  emit(event: LicenseEventName, data: Record<string, unknown>): Promise<void>;
  on(event: LicenseEventName, handler: EventHandler): void;
}

/**
 * In-process bus. Durable work (webhook deliveries, notifications) is queued by the handlers
 * themselves, so the bus only has to call them; the caller of `emit` (e.g. a validation) is
 * never failed by a subscriber.
 */
export function createEventBus(logger: Pick<Logger, 'error'>): EventBus {
  const handlers = new Map<LicenseEventName, EventHandler[]>();
  return {
    on(event, handler) {
      handlers.set(event, [...(handlers.get(event) ?? []), handler]);
    },
    async emit(event, data) {
      for (const handler of handlers.get(event) ?? []) {
        try {
          await handler(data, event);
        } catch (error) {
          logger.error({ err: error, event }, 'event handler failed');
        }
      }
    },
  };
}
