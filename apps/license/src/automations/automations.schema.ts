import { z } from 'zod';

export const triggerEvents = [
  'license_created',
  'license_expired',
  'license_revoked',
  'violation_threshold',
  'anomaly_detected',
  'transaction_completed',
  'machine_activated',
  'machine_deactivated',
  'machine_lease_expired',
  'license_sharing_suspected',
  'custom',
] as const;
export type TriggerEvent = (typeof triggerEvents)[number];

export const actionTypes = [
  'revoke_license',
  'suspend_license',
  'send_notification',
  'send_email',
  'send_sms',
  'send_telegram',
  'create_license',
  'update_license',
  'webhook',
  'custom',
] as const;
export type ActionType = (typeof actionTypes)[number];

export const triggerSchema = z
  .object({
    event: z.enum(triggerEvents),
    /** violation_threshold: the number of blocked validations of a license that fires the action. */
    threshold: z.number().int().min(1).max(1_000_000).optional(),
    /** Context fields that must match (a value, or a list of accepted values), e.g. `{ licenseType: 'trial' }`. */
    conditions: z.record(z.string(), z.unknown()).optional(),
  })
  .superRefine((trigger, ctx) => {
    if (trigger.event === 'violation_threshold' && trigger.threshold === undefined) {
      ctx.addIssue({ code: 'custom', path: ['threshold'], message: 'threshold is required for violation_threshold' });
    }
  });

const params = z.record(z.string(), z.unknown()).default({});

export const actionStepSchema = z.object({ type: z.enum(actionTypes), params }).superRefine((step, ctx) => {
  const url = step.params.url;
  // Only the shape here; which URLs may be called (http or https, public addresses) is the
  // service's check, answered 400 `Webhook URL not allowed`.
  if (step.type === 'webhook' && (typeof url !== 'string' || !URL.canParse(url))) {
    ctx.addIssue({ code: 'custom', path: ['params', 'url'], message: 'webhook needs params.url (http or https URL)' });
  }
});
export type ActionStep = z.infer<typeof actionStepSchema>;

const fields = {
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2000),
  enabled: z.boolean(),
  trigger: triggerSchema,
  actions: z.array(actionStepSchema).min(1).max(50),
};

export const createActionSchema = z.object({
  ...fields,
  description: fields.description.default(''),
  enabled: fields.enabled.default(true),
});
export type CreateAction = z.infer<typeof createActionSchema>;

export const updateActionSchema = z.object({
  name: fields.name.optional(),
  description: fields.description.optional(),
  enabled: fields.enabled.optional(),
  trigger: fields.trigger.optional(),
  actions: fields.actions.optional(),
});
export type UpdateAction = z.infer<typeof updateActionSchema>;

export const executeSchema = z.object({ context: z.record(z.string(), z.unknown()).default({}) });
