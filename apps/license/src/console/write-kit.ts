import type { Request, Response } from 'express';
import { isHttpError, type HttpError } from '@app/http';
import type { AuditTarget } from '../common/audit-target.js';
import { redirectWithFlash, type FlashMessage } from './flash.js';
import { notFoundData } from './layout.js';

// The console's form posts in one shape (post, redirect, get): write, keep the outcome's message
// for the next page, redirect there; a refused write is audited, as the API audits its refused
// writes, and shown as an error message on the page the form came from.

/** Records a form's write that failed (as the API records its failed writes), with the error it showed. */
export type AuditFailure = (req: Request, target: AuditTarget, error: unknown) => Promise<void>;

/** Where a console form's write leads: the page shown next, and the message it shows once. */
export interface WriteOutcome {
  to: string;
  message: FlashMessage;
}

/** A form post's write and what a refusal of it means. */
export interface ConsoleWrite {
  /** The write; answers where to go next and what to say there. */
  write: () => Promise<WriteOutcome>;
  /** What the audit log records when the write is refused (nothing when absent). */
  audit?: AuditTarget;
  /** The page a refused write goes back to, with the refusal as its message. */
  back: string;
  /** The refusals this write answers (default: every 4xx); any other goes on to the error handler. */
  when?: (error: HttpError) => boolean;
  /** The refusal as the page says it (default: its text as a sentence). */
  say?: (error: HttpError) => string;
  /** False when a 404 is a refusal like the others (an admin id not found), not a missing page. */
  notFoundPage?: boolean;
}

/** A refusal's text as a sentence: with a full stop unless it ends with one already. */
export const sentenceOf = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);

/**
 * The console's write kit, made once per page file with how it audits: `writeThenRedirect` runs
 * the write and redirects (303) with its outcome's message. A refusal (a 4xx) is recorded in
 * the audit log; a thing that is not there (404) is answered with the not-found page, any other
 * refusal with its text on the `back` page. What is not a refusal (a 5xx) goes on to the error
 * handler.
 */
export function consoleWrites(auditFailure: AuditFailure) {
  async function writeThenRedirect(req: Request, res: Response, form: ConsoleWrite): Promise<void> {
    let outcome: WriteOutcome;
    try {
      outcome = await form.write();
    } catch (error) {
      if (!isHttpError(error) || error.status >= 500 || form.when?.(error) === false) throw error;
      if (form.audit) await auditFailure(req, form.audit, error);
      if (error.status === 404 && form.notFoundPage !== false) {
        res.status(404).render('errors/not-found', notFoundData(req.user?.username));
        return;
      }
      outcome = {
        to: form.back,
        message: { type: 'error', text: (form.say ?? ((e) => sentenceOf(e.message)))(error) },
      };
    }
    await redirectWithFlash(req, res, outcome.to, outcome.message);
  }
  return { writeThenRedirect };
}
