import type { ActionType, TriggerEvent } from './automations.schema.js';

// The admin console's words for the triggers and actions of automated actions: a label and a
// plain explanation per choice, and the fields each action's form needs (its step's params).

export interface Choice<T extends string> {
  value: T;
  label: string;
  description: string;
}

export const triggerChoices: Array<Choice<TriggerEvent>> = [
  {
    value: 'license_created',
    label: 'A license is created',
    description:
      'Runs each time a license is issued: by an admin, through the API, by a purchase or by another automation.',
  },
  {
    value: 'license_expired',
    label: 'A license expires',
    description: 'Runs when the daily expiry check finds a license past its end date.',
  },
  {
    value: 'license_revoked',
    label: 'A license is revoked',
    description: 'Runs when an admin, the API or another automation revokes a license.',
  },
  {
    value: 'violation_threshold',
    label: 'A license reaches a number of blocked validations',
    description:
      'Runs once per license when its blocked validations (another computer, too many IP addresses…) reach the number you set.',
  },
  {
    value: 'anomaly_detected',
    label: 'Unusual use is detected',
    description:
      'Runs when the usage check (every 5 minutes) sees a license used from many IP addresses, or an address failing many validations.',
  },
  {
    value: 'transaction_completed',
    label: 'A payment is completed',
    description: 'Runs when a Stripe payment completes and its license is issued or renewed.',
  },
  {
    value: 'machine_activated',
    label: 'A machine is activated',
    description: 'Runs when a new device takes a seat of a license: by activation or by its first validation.',
  },
  {
    value: 'machine_deactivated',
    label: 'A machine is deactivated',
    description: 'Runs when a device gives its seat back: by the application, an admin or the customer.',
  },
  {
    value: 'machine_lease_expired',
    label: 'A floating seat lapses',
    description: 'Runs when a device of a license with floating seats stops sending heartbeats and loses its seat.',
  },
  {
    value: 'license_sharing_suspected',
    label: 'A license looks shared',
    description:
      'Runs once a day per license when it is validated from more distinct addresses in a UTC day than its sharing limit.',
  },
  {
    value: 'custom',
    label: 'Only when run by hand',
    description:
      'Never runs by itself: use “Run now” on its page, or the API (POST /api/automated-actions/:id/execute).',
  },
];

/** One field of an action's form: the step's param it fills. */
export interface ParamField {
  param: string;
  label: string;
  hint?: string;
  kind: 'text' | 'textarea' | 'whole' | 'url' | 'product' | 'licenseType';
}

const licenseKeyField: ParamField = {
  param: 'licenseKey',
  label: 'License key',
  kind: 'text',
  hint: 'Leave empty to act on the license the trigger is about (for “Run now”, the key you give there).',
};
const reasonField: ParamField = {
  param: 'reason',
  label: 'Reason',
  kind: 'text',
  hint: 'Recorded with the license. Empty: Automated action "its name".',
};
const placeholders =
  "You can use {{licenseKey}}, {{productId}} and {{customerId}}: they are replaced by the trigger's values.";
const subjectField: ParamField = {
  param: 'subject',
  label: 'Subject',
  kind: 'text',
  hint: 'Empty: Automated action: its name.',
};
const messageField: ParamField = {
  param: 'message',
  label: 'Message',
  kind: 'textarea',
  hint: `Empty: a sentence naming the automation and the license. ${placeholders}`,
};

export const actionChoices: Array<Choice<ActionType> & { fields: ParamField[] }> = [
  {
    value: 'suspend_license',
    label: 'Suspend the license',
    description: 'The license stops validating until an admin reactivates it.',
    fields: [licenseKeyField, reasonField],
  },
  {
    value: 'revoke_license',
    label: 'Revoke the license',
    description: 'The license never validates again; this cannot be undone.',
    fields: [licenseKeyField, reasonField],
  },
  {
    value: 'update_license',
    label: 'Change the license',
    description: 'Extends its expiry or changes how many IP addresses and computers it allows.',
    fields: [
      licenseKeyField,
      {
        param: 'extendDays',
        label: 'Extend by (days)',
        kind: 'whole',
        hint: 'Added to its expiry date (or to today, when it has already expired).',
      },
      { param: 'ipLimit', label: 'New IP limit', kind: 'whole', hint: '0 means unlimited. Empty: unchanged.' },
      { param: 'hwidLimit', label: 'New hardware limit', kind: 'whole', hint: '0 means unlimited. Empty: unchanged.' },
    ],
  },
  {
    value: 'create_license',
    label: 'Create a license',
    description: 'Issues a new license, for example a trial of another product after a purchase.',
    fields: [
      { param: 'productId', label: 'Product', kind: 'product', hint: 'Empty: the product the trigger is about.' },
      { param: 'licenseType', label: 'License type', kind: 'licenseType' },
      {
        param: 'durationDays',
        label: 'Valid for (days)',
        kind: 'whole',
        hint: 'Empty: no end (a trial ends after 14 days).',
      },
    ],
  },
  {
    value: 'send_notification',
    label: 'Notify the team',
    description:
      'Sends a message through the notification channels the service is configured with (email, SMS, Telegram).',
    fields: [
      {
        param: 'channels',
        label: 'Channels',
        kind: 'text',
        hint: 'email, sms, telegram, separated by commas. Empty: the channels configured for custom notifications.',
      },
      subjectField,
      messageField,
    ],
  },
  {
    value: 'send_email',
    label: 'Send an email',
    description: "Sends an email through the service's mail server.",
    fields: [
      {
        param: 'to',
        label: 'Recipients',
        kind: 'text',
        hint: 'Email addresses separated by commas. Empty: the addresses the email channel is configured with.',
      },
      subjectField,
      messageField,
    ],
  },
  {
    value: 'send_sms',
    label: 'Send an SMS',
    description: 'Sends a text message through the configured SMS provider.',
    fields: [
      {
        param: 'to',
        label: 'Phone numbers',
        kind: 'text',
        hint: 'International format (+15551234567), separated by commas. Empty: the numbers the SMS channel is configured with.',
      },
      messageField,
    ],
  },
  {
    value: 'send_telegram',
    label: 'Send a Telegram message',
    description: 'Posts a message with the configured Telegram bot.',
    fields: [
      {
        param: 'chatId',
        label: 'Chat ids',
        kind: 'text',
        hint: 'Separated by commas. Empty: the chat the Telegram channel is configured with.',
      },
      messageField,
    ],
  },
  {
    value: 'webhook',
    label: 'Call a webhook',
    description: 'POSTs the event (signed, retried when it fails) to an address of yours.',
    fields: [
      {
        param: 'url',
        label: 'Webhook URL',
        kind: 'url',
        hint: 'An http or https address on the internet (not a local or private one).',
      },
      { param: 'event', label: 'Event name', kind: 'text', hint: "Sent as the event's name. Empty: AUTOMATED_ACTION." },
    ],
  },
  {
    value: 'custom',
    label: 'Only record it',
    description: 'Does nothing itself: each run is recorded with your note, for a person or program to act on.',
    fields: [{ param: 'note', label: 'Note', kind: 'textarea', hint: 'Kept with every run.' }],
  },
];

const triggerByValue = new Map(triggerChoices.map((choice) => [choice.value as string, choice]));
const actionByValue = new Map(actionChoices.map((choice) => [choice.value as string, choice]));

export const triggerLabel = (event: string) => triggerByValue.get(event)?.label ?? event;
export const actionLabel = (type: string) => actionByValue.get(type)?.label ?? type;
export const actionChoice = (type: string) => actionByValue.get(type);

/** Actions that act on "the license the trigger is about" when no key is given: "Run now" asks for one. */
export const needsLicense = (type: string, params: Record<string, unknown>) =>
  ['suspend_license', 'revoke_license', 'update_license'].includes(type) && !params.licenseKey && !params.licenseId;

/** Whether "Run now" needs a license key: a step acts on "the license the trigger is about". */
export const runNeedsLicense = (action: { actions: Array<{ type: string; params: Record<string, unknown> }> }) =>
  action.actions.some((step) => needsLicense(step.type, step.params));

/** The name of an action's form field: its type and param, so every action's fields can be sent together. */
export const fieldName = (type: string, param: string) => `${type}.${param}`;
