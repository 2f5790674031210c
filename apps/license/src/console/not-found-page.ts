import type { RequestHandler } from 'express';
import type { RefusalAnswer } from '@app/http';
import { notFoundData } from './layout.js';

/**
 * 404 with an HTML page for every unknown path outside `/api` (any method; HEAD gets the headers
 * only), instead of Express's "Cannot GET". Mount after every router and after `apiNotFound`.
 */
export const pageNotFound: RequestHandler = (req, res) => {
  res.status(404).set('Cache-Control', 'no-store').render('errors/not-found', notFoundData(req.user?.username));
};

/**
 * The refusal answer of the console's and the portal's pages and form posts (answer kinds `page`
 * and `redirect`): a thing that is not there (404) is the not-found page, whatever the request
 * accepts; any other refusal goes on to the error page.
 */
export const missingAsNotFoundPage: RefusalAnswer = {
  when: (error) => error.status === 404,
  render: (_error, { req, res }) => {
    res.status(404).render('errors/not-found', notFoundData(req.user?.username));
  },
};
