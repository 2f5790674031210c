import type { RequestHandler } from 'express';
import { notFoundData } from './layout.js';

/**
 * 404 with an HTML page for every unknown path outside `/api` (any method; HEAD gets the headers
 * only), instead of Express's "Cannot GET". Mount after every router and after `apiNotFound`.
 */
export const pageNotFound: RequestHandler = (req, res) => {
  res.status(404).set('Cache-Control', 'no-store').render('errors/not-found', notFoundData(req.user?.username));
};
