import { z } from 'zod';
import { iso } from '../common/schemas.js';
import type { ActionRow, RunRow } from './automations.repository.js';
import { triggerEvents, type ActionStep, type TriggerEvent } from './automations.schema.js';

const stepJsonSchema = z.object({ type: z.string(), params: z.record(z.string(), z.unknown()) });

/** An automated action as the API answers it (the specification's AutomatedAction). */
export const automatedActionJsonSchema = z.object({
  _id: z.string(),
  name: z.string(),
  description: z.string(),
  enabled: z.boolean(),
  trigger: z.object({
    event: z.enum(triggerEvents),
    threshold: z.number().optional(),
    conditions: z.record(z.string(), z.unknown()).optional(),
  }),
  actions: z.array(stepJsonSchema),
  executionCount: z.number().int(),
  lastExecutedAt: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

// A type, not an interface: the audit log stores it as a plain record.
export type AutomatedAction = {
  _id: string;
  name: string;
  description: string;
  enabled: boolean;
  trigger: { event: TriggerEvent; threshold?: number; conditions?: Record<string, unknown> };
  actions: ActionStep[];
  executionCount: number;
  lastExecutedAt: string | null;
  createdAt: string;
  updatedAt: string;
};

export function automatedActionJson(row: ActionRow): AutomatedAction {
  return {
    _id: row.id,
    name: row.name,
    description: row.description,
    enabled: row.enabled,
    trigger: row.trigger,
    actions: row.actions,
    executionCount: row.execution_count,
    lastExecutedAt: iso(row.last_executed_at),
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}

export const automationRunJsonSchema = z.object({
  _id: z.string(),
  triggerEvent: z.string(),
  context: z.record(z.string(), z.unknown()),
  success: z.boolean(),
  results: z.array(z.unknown()),
  createdAt: z.iso.datetime(),
});

export const automationRunJson = (row: RunRow) => ({
  _id: row.id,
  triggerEvent: row.trigger_event,
  context: row.context,
  success: row.success,
  results: row.results,
  createdAt: iso(row.created_at)!,
});

/** What a run's steps did: the answer of "run now". */
export const runResultJsonSchema = z.object({
  success: z.boolean(),
  results: z.array(z.object({ action: z.string(), success: z.boolean(), message: z.string() })),
});
