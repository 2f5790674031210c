/** `2026-11-25 14:03 UTC`: how every console and portal page shows a time. */
export const utcTime = (value: Date | string) => `${new Date(value).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
