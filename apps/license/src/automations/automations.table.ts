import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import type { ActionStep, TriggerEvent } from './automations.schema.js';

/** The trigger and steps are stored as the API shows them; `trigger_event` is copied out so the engine finds its actions by index. */
export const automatedActions = pgTable(
  'automated_actions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    enabled: boolean('enabled').notNull().default(true),
    triggerEvent: text('trigger_event').$type<TriggerEvent>().notNull(),
    trigger: jsonb('trigger')
      .$type<{ event: TriggerEvent; threshold?: number; conditions?: Record<string, unknown> }>()
      .notNull(),
    actions: jsonb('actions').$type<ActionStep[]>().notNull(),
    executionCount: integer('execution_count').notNull().default(0),
    lastExecutedAt: timestamp('last_executed_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    updatedAt: timestamp('updated_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (table) => [index('automated_actions_trigger_idx').on(table.triggerEvent, table.enabled)],
);

/** Every run with each step's outcome, so a failed step is kept with its message. */
export const automatedActionRuns = pgTable(
  'automated_action_runs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    actionId: uuid('action_id')
      .notNull()
      .references(() => automatedActions.id, { onDelete: 'cascade' }),
    triggerEvent: text('trigger_event').notNull(),
    context: jsonb('context').$type<Record<string, unknown>>().notNull().default({}),
    success: boolean('success').notNull(),
    results: jsonb('results').$type<Array<Record<string, unknown>>>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (table) => [index('automated_action_runs_action_idx').on(table.actionId, table.createdAt)],
);

/**
 * Claims of one-time triggers (e.g. a license crossing a violation threshold): the primary key
 * makes the claim atomic, so concurrent events or instances fire an action once.
 */
export const automatedActionFirings = pgTable(
  'automated_action_firings',
  {
    actionId: uuid('action_id')
      .notNull()
      .references(() => automatedActions.id, { onDelete: 'cascade' }),
    fireKey: text('fire_key').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (table) => [primaryKey({ columns: [table.actionId, table.fireKey] })],
);
