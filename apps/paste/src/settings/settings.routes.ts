import { defineRoute, type AnyRoute } from '@app/http';
import type { SettingsStore } from '@app/settings';
import type { PasteGuards } from '../access/guards.js';
import { errorSchema, messageSchema } from '../common/responses.js';
import {
  advancedSettingsSchema,
  generalSettingsSchema,
  pasteSettingsSchema,
  securitySettingsSchema,
  type PasteSettings,
} from './settings.schema.js';

export function settingsRoutes(deps: { settings: SettingsStore<PasteSettings>; guards: PasteGuards }): AnyRoute[] {
  const { settings, guards } = deps;
  const tags = ['owner'];
  const answers = {
    200: { description: 'Saved', schema: messageSchema },
    400: { description: 'Invalid values', schema: errorSchema },
    403: { description: 'Not the owner, or no CSRF token', schema: errorSchema },
  };
  // Unknown fields are ignored and undefined leaves a setting as it is.
  const save = (patch: Partial<PasteSettings>, message: string) =>
    settings.update(patch).then(() => ({ success: true, message }));
  return [
    defineRoute({
      method: 'get',
      path: '/api/settings',
      summary: "The site's settings",
      tags,
      guard: guards.ownerSettings,
      responses: { 200: { description: 'Every setting', schema: pasteSettingsSchema }, 403: answers[403] },
      handler: ({ res }) => {
        res.set('Cache-Control', 'no-store');
        return settings.get();
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/settings/general',
      summary: 'Name, description, colours',
      tags,
      guard: guards.ownerWrite,
      body: generalSettingsSchema,
      responses: answers,
      handler: ({ body }) => save(body, 'General settings updated successfully'),
    }),
    // Under the fixed owner-settings limit: a limit set too low never locks the owner out of
    // raising it again. Saving fires the store's onChange, which rebuilds the limiters before we answer.
    defineRoute({
      method: 'post',
      path: '/api/settings/security',
      summary: 'Rate limits, paste size, API access',
      tags,
      guard: guards.ownerSettingsWrite,
      body: securitySettingsSchema,
      responses: answers,
      handler: ({ body }) => save(body, 'Security settings updated successfully'),
    }),
    defineRoute({
      method: 'post',
      path: '/api/settings/advanced',
      summary: 'Auto-delete, highlighting, slugs',
      tags,
      guard: guards.ownerWrite,
      body: advancedSettingsSchema,
      responses: answers,
      handler: ({ body }) => save(body, 'Advanced settings updated successfully'),
    }),
  ];
}
