import express, { type RequestHandler } from 'express';
import { isQuickJsonType, jsonBody } from '@app/http';
import type { SettingsStore } from '@app/settings';
import type { PasteSettings } from '../settings/settings.schema.js';
import { tooLong } from './pastes.service.js';
import { isPlainTextPost, plainTextFields } from './plain-text.js';

const MB = 1024 * 1024;

/**
 * The body parsers of POST /api/paste (JSON, forms, and plain text from the command line), sized from maxPasteSize (up to 100 MB) instead of the
 * site-wide body limit. JSON escaping can make the body several times longer than the content
 * (a control character becomes `\u0001`), so the parser allows 6x plus room for the other
 * fields; the service then measures the content itself. A body over even that limit is still
 * content that is too long: 400 with the same message, not 413.
 */
export function pasteBodyParser(settings: SettingsStore<PasteSettings>): RequestHandler {
  const parsers = new Map<number, RequestHandler[]>();
  const parsersFor = (maxPasteSize: number) => {
    let found = parsers.get(maxPasteSize);
    if (!found) {
      const limit = Math.ceil(maxPasteSize * MB * 6 + 64 * 1024);
      found = [
        jsonBody({ limit }),
        express.urlencoded({ extended: false, limit }),
        express.text({ limit, type: 'text/plain' }),
      ];
      parsers.clear();
      parsers.set(maxPasteSize, found);
    }
    return found;
  };
  return (req, res, next) => {
    const { maxPasteSize } = settings.get();
    const [json, form, text] = parsersFor(maxPasteSize) as [RequestHandler, RequestHandler, RequestHandler];
    const done = (error?: unknown) => {
      if ((error as { type?: string } | undefined)?.type === 'entity.too.large') return next(tooLong(maxPasteSize));
      next(error);
    };
    // Nearly every create sends UTF-8 JSON: the JSON parser alone reads it (the form parser would
    // find the body read, and asking for plain text parses the Content-Type again).
    const type = req.headers['content-type'];
    if (type !== undefined && isQuickJsonType(type)) return json(req, res, done);
    if (isPlainTextPost(req)) {
      // From the command line: the body is the content; answers and errors are plain text.
      res.locals.plainText = true;
      text(req, res, (error?: unknown) => {
        if (error) return done(error);
        req.body = plainTextFields(req, typeof req.body === 'string' ? req.body : '');
        done();
      });
      return;
    }
    json(req, res, (error?: unknown) => (error ? done(error) : form(req, res, done)));
  };
}
