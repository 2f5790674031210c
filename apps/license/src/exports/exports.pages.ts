import { defineRoute, type AnyRoute, type Guard } from '@app/http';
import { consoleAdminName } from '../console/admin-pages.js';
import { exportsPageData, type ExportChoices } from './exports.page-data.js';

// The admin console's exports page: a GET form per export, submitted straight to the export
// route (same session, same admin guard), so the browser downloads the file.

const tags = ['pages'];

export function exportPages(deps: { choices: () => Promise<ExportChoices>; adminPage: Guard }): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/exports',
      summary: 'The exports page',
      tags,
      guard: deps.adminPage,
      answer: 'page',
      description:
        'Admins: the four exports (licenses as CSV and PDF, transactions as CSV, the summary PDF), each with the form of its filters.',
      responses: {
        200: { description: 'The page', contentType: 'text/html' },
        303: { description: 'Not signed in or two-factor pending: to `/`' },
        403: { description: 'Not an admin', contentType: 'text/html' },
      },
      handler: async ({ req, res }) => {
        const username = consoleAdminName(req);
        res.render('exports/index', exportsPageData(username, await deps.choices()));
      },
    }),
  ];
}
