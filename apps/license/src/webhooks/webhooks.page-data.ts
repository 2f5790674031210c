import { endpointHref } from '../console/addresses.js';
import { utcTime } from '../console/utc-time.js';
import type { FlashMessage } from '../console/admin-pages.js';
import { adminLayout } from '../console/layout.js';
import type { WebhookEndpoint } from './webhook-endpoints.presenter.js';
import { endpointEventNames, WEBHOOK_TEST_EVENT } from './webhook-endpoints.schema.js';
import type { WebhookDelivery } from './webhooks.presenter.js';
import { pageCount } from '../console/paging.js';

// What the webhook pages' views (views/webhooks) receive: plain data, texts unescaped (the views
// escape them), times formatted.

export const deliveriesPageSize = 25;
export const webhooksHref = '/webhooks';
export const deliveriesHref = '/webhooks/deliveries';
export { endpointHref };

/** What each event means, as the form's checkboxes and the lists say it. */
export const eventLabels: Record<string, string> = {
  LICENSE_CREATED: 'License created',
  LICENSE_REVOKED: 'License revoked',
  LICENSE_EXPIRED: 'License expired',
  NEW_REQUEST_BLOCKED: 'Validation blocked (IP or device limit)',
  ANOMALY_DETECTED: 'Anomaly detected',
  MACHINE_ACTIVATED: 'Machine activated',
  MACHINE_DEACTIVATED: 'Machine deactivated',
  MACHINE_LEASE_EXPIRED: 'Floating seat lapsed',
  LICENSE_SHARING_SUSPECTED: 'Key sharing suspected',
  AUTOMATED_ACTION: 'Automated action ran',
  [WEBHOOK_TEST_EVENT]: 'Test delivery',
};

/** The Webhooks section's sub-navigation, on its pages and on the notification channels' page. */
export const webhooksSubnav = (current: 'endpoints' | 'deliveries' | 'channels') => [
  { href: webhooksHref, label: 'Endpoints', current: current === 'endpoints' },
  { href: deliveriesHref, label: 'Delivery log', current: current === 'deliveries' },
  { href: '/webhooks/channels', label: 'Notification channels', current: current === 'channels' },
];
const subnav = webhooksSubnav;

const statusBadge: Record<string, string> = {
  delivered: 'badge-success',
  failed: 'badge-danger',
  pending: 'badge-warning',
};

export interface EndpointFormState {
  values: { url: string; events: string[] };
  errors: string[];
}
export const emptyEndpointForm = (): EndpointFormState => ({ values: { url: '', events: [] }, errors: [] });

interface PageExtras {
  messages: FlashMessage[];
  csrfToken: string;
}

/** `/webhooks`: every endpoint with its events, state and latest delivery, and its actions. */
export function endpointsPageData(username: string, endpoints: WebhookEndpoint[], extras: PageExtras) {
  return {
    ...adminLayout('Webhooks', username, 'webhooks'),
    ...extras,
    subnav: subnav('endpoints'),
    endpoints: endpoints.map((endpoint) => ({
      id: endpoint._id,
      url: endpoint.url,
      href: endpointHref(endpoint._id),
      events:
        endpoint.events.length === 0
          ? 'All events'
          : endpoint.events.map((event) => eventLabels[event] ?? event).join(', '),
      enabled: endpoint.enabled,
      signed: endpoint.signed,
      lastDelivery: endpoint.lastDelivery && {
        status: endpoint.lastDelivery.status,
        badge: statusBadge[endpoint.lastDelivery.status] ?? 'badge-info',
        responseCode: endpoint.lastDelivery.responseCode,
        at: utcTime(endpoint.lastDelivery.createdAt),
      },
      deleteQuestion: `Delete the endpoint ${endpoint.url}? It gets no more events; its pending deliveries are kept as failed.`,
      rotateQuestion: `Make a new secret for ${endpoint.url}? The current one stops working at once: update the receiver with the new one.`,
    })),
  };
}

/** `/webhooks/new`: the form of a new endpoint. */
export function newEndpointPageData(username: string, form: EndpointFormState, extras: PageExtras) {
  return {
    ...adminLayout('Add webhook endpoint', username, 'webhooks'),
    ...extras,
    subnav: subnav('endpoints'),
    form,
    events: endpointEventNames.map((event) => ({
      name: event,
      label: eventLabels[event] ?? event,
      checked: form.values.events.includes(event),
    })),
  };
}

/** `/webhooks/endpoints/:id/secret`: the secret just made, once (`secret` undefined: already shown). */
export function secretPageData(
  username: string,
  endpoint: WebhookEndpoint,
  secret: string | undefined,
  extras: PageExtras,
) {
  return {
    ...adminLayout('Endpoint secret', username, 'webhooks', true),
    ...extras,
    subnav: subnav('endpoints'),
    endpoint: { url: endpoint.url, href: endpointHref(endpoint._id) },
    secret,
  };
}

/** The delivery log's address with its filter and page. */
export const deliveriesAddress = (status: string | undefined, page: number) => {
  const params = new URLSearchParams();
  if (status) params.set('status', status);
  if (page > 1) params.set('page', String(page));
  const query = params.toString();
  return `${deliveriesHref}${query ? `?${query}` : ''}`;
};

/** `/webhooks/deliveries`: a page of deliveries, newest first, filtered by status. */
export function deliveriesPageData(
  username: string,
  list: { deliveries: WebhookDelivery[]; total: number; status?: string; page: number; endpoints: Map<string, string> },
  extras: PageExtras,
) {
  const pages = pageCount(list.total, deliveriesPageSize);
  return {
    ...adminLayout('Webhook delivery log', username, 'webhooks'),
    ...extras,
    subnav: subnav('deliveries'),
    status: list.status ?? '',
    statuses: [
      { value: '', label: 'All' },
      { value: 'pending', label: 'Pending' },
      { value: 'delivered', label: 'Delivered' },
      { value: 'failed', label: 'Failed' },
    ],
    total: list.total.toLocaleString('en-US'),
    count: list.total,
    deliveries: list.deliveries.map((delivery) => ({
      id: delivery._id,
      event: eventLabels[delivery.event] ? `${eventLabels[delivery.event]} (${delivery.event})` : delivery.event,
      endpoint: delivery.url,
      endpointKnown: delivery.endpointId ? list.endpoints.has(delivery.endpointId) : false,
      status: delivery.status,
      badge: statusBadge[delivery.status] ?? 'badge-info',
      attempts: delivery.attempts,
      responseCode: delivery.lastResponseCode === null ? '—' : String(delivery.lastResponseCode),
      lastError: delivery.lastError ?? '',
      nextRetry: delivery.nextRetryAt ? utcTime(delivery.nextRetryAt) : '—',
      createdAt: utcTime(delivery.createdAt),
      redeliverable: delivery.status !== 'pending',
      // Back to the same filter and page afterwards.
      redeliverHref: `${deliveriesHref}/${encodeURIComponent(delivery._id)}/redeliver${deliveriesAddress(list.status, list.page).slice(deliveriesHref.length)}`,
    })),
    pagination: { page: list.page, pages, href: (page: number) => deliveriesAddress(list.status, page) },
  };
}
