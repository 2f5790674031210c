// The addresses of console pages that pages of other features link to (the audit log links each
// entry to its subject): here, so that a link needs no import of the feature it points at.

export const automationHref = (id: string) => `/automations/${encodeURIComponent(id)}`;
export const endpointHref = (id: string) => `/webhooks/endpoints/${encodeURIComponent(id)}`;
