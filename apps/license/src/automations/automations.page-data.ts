import { automationHref } from '../console/addresses.js';
import { utcTime } from '../console/utc-time.js';
import type { FlashMessage } from '../console/admin-pages.js';
import { adminLayout, licenseTypeLabel } from '../console/layout.js';
import { licenseTypes } from '../licenses/licenses.table.js';
import {
  actionChoice,
  actionChoices,
  actionLabel,
  fieldName,
  runNeedsLicense,
  triggerChoices,
  triggerLabel,
} from './automations.catalogue.js';
import type { AutomationFormState } from './automations.form.js';
import type { AutomatedAction } from './automations.presenter.js';
import type { createAutomationsService } from './automations.service.js';
import { pageCount } from '../console/paging.js';

// What the automation pages' views (views/automations) receive: plain data, texts unescaped
// (the views escape them), numbers and times formatted (UTC).

export const automationsPageSize = 20;
const number = (value: number) => value.toLocaleString('en-US');

export { automationHref };
const listAddress = (page: number) => (page > 1 ? `/automations?page=${page}` : '/automations');

type Service = ReturnType<typeof createAutomationsService>;
type ListPage = Awaited<ReturnType<Service['page']>>;
type Run = Awaited<ReturnType<Service['runs']>>[number];

const triggerText = (trigger: AutomatedAction['trigger']) =>
  trigger.event === 'violation_threshold' && trigger.threshold !== undefined
    ? `A license reaches ${number(trigger.threshold)} blocked validation${trigger.threshold === 1 ? '' : 's'}`
    : triggerLabel(trigger.event);
const stepsText = (action: AutomatedAction) =>
  `${actionLabel(action.actions[0]?.type ?? '')}${action.actions.length > 1 ? ` (+${action.actions.length - 1} more)` : ''}`;
const runTrigger = (event: string) => (event === 'manual' ? 'Run by hand' : triggerLabel(event));

/** `/automations`: a page of automations with their latest run. */
export function automationsListData(username: string, list: ListPage, page: number, messages: FlashMessage[]) {
  return {
    ...adminLayout('Automations', username, 'automations'),
    messages,
    total: number(list.total),
    count: list.total,
    automations: list.actions.map((action) => ({
      id: action._id,
      name: action.name,
      href: automationHref(action._id),
      trigger: triggerText(action.trigger),
      action: stepsText(action),
      enabled: action.enabled,
      lastRun: action.lastRun
        ? {
            time: utcTime(action.lastRun.at),
            iso: action.lastRun.at,
            success: action.lastRun.success,
            via: runTrigger(action.lastRun.triggerEvent),
          }
        : null,
    })),
    pagination: { page, pages: pageCount(list.total, automationsPageSize), href: listAddress },
  };
}

const paramText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** A `custom` trigger never fires by itself: such an automation only runs by hand. */
export const runsOnlyByHand = (action: Pick<AutomatedAction, 'trigger'>) => action.trigger.event === 'custom';

/** What "enabled" means for this automation, said the way its trigger works. */
function stateWords(action: AutomatedAction) {
  if (runsOnlyByHand(action)) {
    return {
      stateText: action.enabled
        ? 'Enabled: runs only by hand (“Run now” or the API)'
        : 'Disabled: runs only with “Run now”',
      switchHint: action.enabled
        ? 'Mark it disabled; “Run now” still works.'
        : 'Mark it enabled; it still runs only by hand.',
    };
  }
  return {
    stateText: action.enabled
      ? 'Enabled: runs by itself when its trigger happens'
      : 'Disabled: runs only with “Run now”',
    switchHint: action.enabled
      ? 'Stop it from running by itself; “Run now” still works.'
      : 'Let it run by itself when its trigger happens.',
  };
}

/** `/automations/:id`: its settings, the "Run now" form, the switches and its latest runs. */
export function automationDetailData(
  username: string,
  action: AutomatedAction,
  runs: Run[],
  extras: { messages: FlashMessage[]; csrfToken: string },
) {
  const href = automationHref(action._id);
  const trigger = triggerChoices.find((choice) => choice.value === action.trigger.event);
  return {
    ...adminLayout(action.name, username, 'automations'),
    messages: extras.messages,
    csrfToken: extras.csrfToken,
    automation: {
      id: action._id,
      name: action.name,
      description: action.description,
      enabled: action.enabled,
      ...stateWords(action),
      href,
      trigger: { label: triggerText(action.trigger), description: trigger?.description ?? '' },
      conditions:
        action.trigger.conditions && Object.keys(action.trigger.conditions).length
          ? Object.entries(action.trigger.conditions).map(([field, value]) => `${field} = ${paramText(value)}`)
          : [],
      steps: action.actions.map((step) => {
        const choice = actionChoice(step.type);
        const labelOf = (param: string) => choice?.fields.find((field) => field.param === param)?.label ?? param;
        return {
          label: actionLabel(step.type),
          description: choice?.description ?? '',
          params: Object.entries(step.params).map(([param, value]) => ({
            label: labelOf(param),
            value: paramText(value),
          })),
        };
      }),
      executions: number(action.executionCount),
      lastExecutedAt: action.lastExecutedAt ? utcTime(action.lastExecutedAt) : null,
      createdAt: utcTime(action.createdAt),
      updatedAt: utcTime(action.updatedAt),
    },
    /** "Run now" asks for a license when a step acts on "the license the trigger is about". */
    runNeedsLicense: runNeedsLicense(action),
    runs: runs.map((run) => ({
      id: run._id,
      time: utcTime(run.createdAt),
      iso: run.createdAt,
      via: runTrigger(run.triggerEvent),
      success: run.success,
      license: typeof run.context.licenseKey === 'string' ? run.context.licenseKey : null,
      steps: run.results.map((step) => ({
        label: actionLabel(typeof step.action === 'string' ? step.action : ''),
        success: step.success === true,
        message: typeof step.message === 'string' ? step.message : '',
      })),
    })),
    deleteQuestion: `Delete the automation “${action.name}”? Its run history goes with it. This cannot be undone.`,
    urls: {
      edit: `${href}/edit`,
      run: `${href}/run`,
      enable: `${href}/enable`,
      disable: `${href}/disable`,
      delete: `${href}/delete`,
    },
  };
}

/** `/automations/new` and `/automations/:id/edit`: the form, each choice explained. */
export function automationFormData(
  username: string,
  form: AutomationFormState,
  extras: { csrfToken: string; products: Array<{ id: string; name: string }>; editing?: AutomatedAction },
) {
  const { values } = form;
  const { editing } = extras;
  const title = editing ? `Edit “${editing.name}”` : 'New automation';
  return {
    ...adminLayout(title, username, 'automations'),
    title,
    csrfToken: extras.csrfToken,
    errors: form.errors,
    values: {
      name: values.name ?? '',
      description: values.description ?? '',
      enabled: Boolean(values.enabled),
      threshold: values.threshold ?? '',
    },
    action: editing ? automationHref(editing._id) : '/automations',
    cancel: editing ? automationHref(editing._id) : '/automations',
    submit: editing ? 'Save automation' : 'Create automation',
    breadcrumb: editing ? { label: editing.name, href: automationHref(editing._id) } : null,
    extraSteps: editing ? editing.actions.length - 1 : 0,
    conditions: editing?.trigger.conditions ? Object.keys(editing.trigger.conditions).length : 0,
    triggers: triggerChoices.map((choice) => ({ ...choice, checked: choice.value === values.trigger })),
    actions: actionChoices.map((choice) => ({
      value: choice.value,
      label: choice.label,
      description: choice.description,
      checked: choice.value === values.action,
      fields: choice.fields.map((field) => ({
        ...field,
        name: fieldName(choice.value, field.param),
        value: values[fieldName(choice.value, field.param)] ?? '',
        options:
          field.kind === 'product'
            ? [
                { value: '', label: 'The trigger’s product' },
                ...extras.products.map((product) => ({ value: product.id, label: product.name })),
              ]
            : field.kind === 'licenseType'
              ? [
                  { value: '', label: 'Default (Fixed)' },
                  ...licenseTypes.map((type) => ({ value: type, label: licenseTypeLabel(type) })),
                ]
              : [],
      })),
    })),
  };
}
