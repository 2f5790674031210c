import { z } from 'zod';
import { defineRoute, type AnyRoute } from '@app/http';
import type { SettingsStore } from '@app/settings';
import type { PasteGuards } from '../access/guards.js';
import type { PasteSettings } from '../settings/settings.schema.js';
import { homeData } from './pages.page-data.js';

const page = (description: string) => ({ description, contentType: 'text/html' });

/** The home page: the form that creates a paste. */
export function pageRoutes(deps: { settings: SettingsStore<PasteSettings>; guards: PasteGuards }): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/',
      summary: 'The home page: a form to create a paste',
      tags: ['pages'],
      guard: deps.guards.public,
      answer: 'page',
      // The identity provider's callback sends failed sign-ins here with a code.
      query: z.object({ error: z.string().optional().catch(undefined) }),
      responses: { 200: page('The page') },
      handler: ({ query, res }) => res.render('pastes/home', homeData(deps.settings.get(), query.error)),
    }),
  ];
}

/** `/favicon.ico`, which browsers ask for by themselves: the configured icon. */
export function faviconRoute(settings: SettingsStore<PasteSettings>): AnyRoute {
  return defineRoute({
    method: 'get',
    path: '/favicon.ico',
    summary: "The site's icon",
    tags: ['pages'],
    guard: { name: 'public', middleware: [] },
    answer: 'redirect',
    responses: { 302: { description: 'Redirect to the configured icon' } },
    handler: ({ res }) => res.redirect(302, settings.get().favIcon),
  });
}
