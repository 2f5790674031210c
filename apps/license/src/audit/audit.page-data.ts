import { utcTime } from '../console/utc-time.js';
import { adminLayout } from '../console/layout.js';
import { isUuid } from '../common/schemas.js';
import { automationHref, endpointHref } from '../console/addresses.js';
import type { AuditLogJson } from './audit.presenter.js';
import type { AuditSubjects } from './audit.service.js';
import type { AuditQuery } from './audit.schema.js';
import { auditActions, auditResourceTypes, type AuditAction, type AuditResourceType } from './audit.table.js';
import { pageCount, pageSlice } from '../console/paging.js';

// What the audit log pages (views/audit) receive: plain data, texts unescaped (the views escape
// them), numbers and times formatted. Times are shown in UTC.

export const auditPageSize = 25;
/** The list counts matching entries up to this many (400 pages); past it the page says "10,000+". */
export const auditCountLimit = 10_000;
const day = 86_400_000;
const number = (value: number) => value.toLocaleString('en-US');

/** The list's filters as the address carries them (what cannot be read is left out). */
export interface AuditListFilters {
  action?: AuditAction;
  type?: AuditResourceType;
  admin?: string;
  /** `YYYY-MM-DD`, UTC days, both included. */
  from?: string;
  to?: string;
  success?: 'yes' | 'no';
  page: number;
}

/** The list page's address with its filters and `page` (1 is left out). */
export function auditListAddress(filters: AuditListFilters, page = 1): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries({ ...filters, page })) {
    if (value === undefined || value === '' || (name === 'page' && value === 1)) continue;
    params.set(name, String(value));
  }
  const query = params.toString();
  return `/audit-log${query ? `?${query}` : ''}`;
}

/** The audit service's query for the filters: `to` is the whole of that day. */
export function auditQueryOf(filters: AuditListFilters): AuditQuery {
  return {
    action: filters.action,
    resourceType: filters.type,
    userId: filters.admin,
    resourceId: undefined,
    startDate: filters.from ? new Date(`${filters.from}T00:00:00.000Z`) : undefined,
    endDate: filters.to ? new Date(Date.parse(`${filters.to}T00:00:00.000Z`) + day - 1) : undefined,
    success: filters.success === undefined ? undefined : filters.success === 'yes',
    ...pageSlice(filters.page, auditPageSize),
  };
}

export const auditEntryHref = (id: string) => `/audit-log/${encodeURIComponent(id)}`;

/** The admin console page of the resource an entry is about, when it has one. */
function resourceHref(entry: AuditLogJson): string | null {
  if (!isUuid(entry.resourceId)) return null;
  const id = encodeURIComponent(entry.resourceId);
  switch (entry.resourceType) {
    case 'license':
      return `/licenses/${id}`;
    case 'product':
      return `/products/${id}`;
    case 'policy':
      return `/policies/${id}`;
    case 'entitlement':
      return `/entitlements/${id}`;
    case 'customer':
      return `/customers/${id}`;
    default:
      return null;
  }
}

/** The fields an entry changed, for the list: at most three names, and how many more. */
function changedFields(entry: AuditLogJson) {
  const { before, after } = entry.changes;
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
    (field) => field !== 'updatedAt' && JSON.stringify(before[field]) !== JSON.stringify(after[field]),
  );
  return fields.length > 3 ? `${fields.slice(0, 3).join(', ')} and ${fields.length - 3} more` : fields.join(', ');
}

const notificationChannels = ['email', 'sms', 'telegram'];
/** A name recorded in the entry itself (a deleted resource is no longer there to look up). */
const recorded = (entry: AuditLogJson, field: string) => {
  const value = entry.changes.after[field] ?? entry.changes.before[field];
  return typeof value === 'string' && value ? value : null;
};

/**
 * What an entry is about, in words: the spec keeps `system` and `notification` as resource
 * types, and the console says which automation, webhook endpoint or channel they stand for.
 */
function subjectOf(entry: AuditLogJson, subjects: AuditSubjects): { label: string; href: string | null } {
  const found = subjects.get(entry.resourceId);
  if (entry.resourceType === 'system') {
    if (entry.resourceId === 'config') return { label: 'Settings', href: '/settings' };
    if (entry.resourceId === 'signing-keys') return { label: 'Signing keys', href: '/settings/signing-keys' };
    if (isUuid(entry.resourceId)) {
      const name = found?.kind === 'automation' ? found.label : recorded(entry, 'name');
      return { label: `Automation: ${name ?? 'deleted'}`, href: found ? automationHref(entry.resourceId) : null };
    }
  }
  if (entry.resourceType === 'notification') {
    const channel = entry.resourceId.replace(/:test$/, '');
    if (notificationChannels.includes(channel)) {
      return {
        label: `Notification channel: ${channel}${entry.resourceId.endsWith(':test') ? ' (test message)' : ''}`,
        href: '/webhooks/channels',
      };
    }
    if (found?.kind === 'delivery') return { label: 'Webhook delivery', href: null };
    if (isUuid(entry.resourceId)) {
      const url = found?.kind === 'endpoint' ? found.label : recorded(entry, 'url');
      return { label: `Webhook endpoint: ${url ?? 'deleted'}`, href: found ? endpointHref(entry.resourceId) : null };
    }
  }
  return { label: entry.resourceType, href: resourceHref(entry) };
}

function rowView(entry: AuditLogJson, subjects: AuditSubjects) {
  const subject = subjectOf(entry, subjects);
  return {
    subject: subject.label,
    subjectHref: subject.href,
    /** Only for the generic types, whose id the subject's words already stand for. */
    showId: subject.label === entry.resourceType,
    id: entry._id,
    href: auditEntryHref(entry._id),
    time: utcTime(entry.createdAt),
    iso: entry.createdAt,
    userId: entry.userId,
    action: entry.action,
    resourceType: entry.resourceType,
    resourceId: entry.resourceId,
    resourceHref: resourceHref(entry),
    success: entry.success,
    changed: changedFields(entry),
  };
}

const option = (value: string) => ({ value, label: value });

export function auditListData(
  username: string,
  list: { auditLogs: AuditLogJson[]; total: number },
  filters: AuditListFilters,
  subjects: AuditSubjects = new Map(),
) {
  const capped = list.total >= auditCountLimit;
  const pages = pageCount(list.total, auditPageSize);
  const filtered = Boolean(
    filters.action || filters.type || filters.admin || filters.from || filters.to || filters.success,
  );
  const count = `${number(list.total)}${capped ? '+' : ''} ${list.total === 1 ? 'entry' : 'entries'}`;
  return {
    ...adminLayout('Audit log', username, 'audit'),
    filters: {
      action: filters.action ?? '',
      type: filters.type ?? '',
      admin: filters.admin ?? '',
      from: filters.from ?? '',
      to: filters.to ?? '',
      success: filters.success ?? '',
    },
    filtered,
    actions: [{ value: '', label: 'Any action' }, ...auditActions.map(option)],
    types: [{ value: '', label: 'Any resource' }, ...auditResourceTypes.map(option)],
    outcomes: [
      { value: '', label: 'Any' },
      { value: 'yes', label: 'Succeeded' },
      { value: 'no', label: 'Failed' },
    ],
    entries: list.auditLogs.map((entry) => rowView(entry, subjects)),
    count: filtered ? `${count} ${list.total === 1 ? 'matches' : 'match'} the filters` : count,
    empty: list.total === 0,
    pagination: { page: Math.min(filters.page, pages), pages, href: (page: number) => auditListAddress(filters, page) },
  };
}

/** A change as readable JSON (two-space indents), or null when there is nothing to show. */
const prettyJson = (value: Record<string, unknown>) =>
  Object.keys(value).length ? JSON.stringify(value, null, 2) : null;

export function auditEntryData(username: string, entry: AuditLogJson, subjects: AuditSubjects = new Map()) {
  const view = rowView(entry, subjects);
  return {
    ...adminLayout(`Audit entry: ${entry.action} ${view.subject}`, username, 'audit'),
    entry: {
      ...view,
      ip: entry.ip,
      userAgent: entry.userAgent,
      // Failed writes record their error in `after` ({ status, error }).
      error: !entry.success && typeof entry.changes.after.error === 'string' ? entry.changes.after.error : null,
      status: !entry.success && typeof entry.changes.after.status === 'number' ? entry.changes.after.status : null,
      before: prettyJson(entry.changes.before),
      after: prettyJson(entry.changes.after),
    },
  };
}
