import { actionChoice, actionChoices, fieldName } from './automations.catalogue.js';
import type { AutomatedAction } from './automations.presenter.js';
import { createActionSchema, type CreateAction } from './automations.schema.js';

// The automation form (new and edit) as the browser sends it, and its translation into the
// API's input, checked by the API's own schema. The form edits one step (the first); the steps
// an action created through the API has after it are kept as they are.

/** The form's fields by name: name, description, enabled ('on' when ticked), trigger, threshold, action, and `<action>.<param>`. */
export type FormValues = Record<string, string>;
export interface AutomationFormState {
  values: FormValues;
  errors: string[];
}

export const emptyAutomationForm = (): AutomationFormState => ({
  values: {
    name: '',
    description: '',
    enabled: 'on',
    trigger: 'license_created',
    threshold: '',
    action: 'send_notification',
  },
  errors: [],
});

const paramText = (value: unknown): string => {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(String).join(', ');
  // The parameters are JSON: what is neither text, a list, an object nor null is a number or a boolean.
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
};

/** The stored action as the form shows it. */
export function automationFormOf(action: AutomatedAction): AutomationFormState {
  const step = action.actions[0];
  const values: FormValues = {
    name: action.name,
    description: action.description,
    enabled: action.enabled ? 'on' : '',
    trigger: action.trigger.event,
    threshold: action.trigger.threshold === undefined ? '' : String(action.trigger.threshold),
    action: step?.type ?? 'custom',
  };
  for (const field of (step && actionChoice(step.type)?.fields) ?? [])
    values[fieldName(step!.type, field.param)] = paramText(step!.params[field.param]);
  return { values, errors: [] };
}

/** Each wrong field once, in words naming its label. */
const messages: Array<[RegExp, string]> = [
  [/^name/, 'Name: enter 1 to 200 characters.'],
  [/^description/, 'Description: at most 2,000 characters.'],
  [/^trigger\.threshold/, 'How many blocked validations: enter a whole number from 1 to 1,000,000.'],
  [/^trigger/, 'Trigger: choose when it runs.'],
  [/^actions\.0\.params\.url/, 'Webhook URL: enter an http or https address, like https://example.com/hook.'],
  [/^actions\.0\.type/, 'Action: choose what it does.'],
];

const whole = (text: string | undefined) =>
  text === undefined || text.trim() === ''
    ? undefined
    : /^\d{1,9}$/.test(text.trim())
      ? Number(text.trim())
      : Number.NaN;

/**
 * The API's input made from the form, checked with its schema; the errors in words otherwise.
 * `existing`: the action being edited, whose trigger conditions, the params the form does not
 * show (when the action's type is unchanged) and further steps are kept.
 */
export function automationInputOf(
  values: FormValues,
  existing?: AutomatedAction,
): { data: CreateAction; errors?: undefined } | { data?: undefined; errors: string[] } {
  const errors: string[] = [];
  const event = values.trigger ?? '';
  const type = values.action ?? '';
  const choice = actionChoice(type);
  const previous = existing?.actions[0]?.type === type ? existing.actions[0].params : {};
  const shown = new Set(choice?.fields.map((field) => field.param));
  const params: Record<string, unknown> = Object.fromEntries(
    Object.entries(previous).filter(([param]) => !shown.has(param)),
  );
  for (const field of choice?.fields ?? []) {
    const text = values[fieldName(type, field.param)]?.trim() ?? '';
    if (text === '') continue;
    if (field.kind === 'whole') {
      const number = whole(text);
      if (Number.isNaN(number)) errors.push(`${field.label}: enter a whole number (0 or more).`);
      else params[field.param] = number;
    } else {
      params[field.param] = text;
    }
  }
  const threshold = event === 'violation_threshold' ? whole(values.threshold) : undefined;
  const parsed = createActionSchema.safeParse({
    name: values.name ?? '',
    description: values.description ?? '',
    enabled: values.enabled !== undefined && values.enabled !== '',
    trigger: {
      event,
      ...(threshold === undefined ? {} : { threshold }),
      ...(existing?.trigger.conditions ? { conditions: existing.trigger.conditions } : {}),
    },
    actions: [{ type, params }, ...(existing?.actions.slice(1) ?? [])],
  });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const path = issue.path.map(String).join('.');
      const message = messages.find(([pattern]) => pattern.test(path))?.[1] ?? `${path}: ${issue.message}`;
      if (!errors.includes(message)) errors.push(message);
    }
  }
  if (errors.length || !parsed.success) return { errors };
  return { data: parsed.data };
}

/** The form's field names (for the route's body schema and the fuzz table). */
export const formFieldNames = [
  'name',
  'description',
  'enabled',
  'trigger',
  'threshold',
  'action',
  ...actionChoices.flatMap((choice) => choice.fields.map((field) => fieldName(choice.value, field.param))),
];
