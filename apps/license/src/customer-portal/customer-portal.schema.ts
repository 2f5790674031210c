import { z } from 'zod';
import type { LicenseBinding } from '../licenses/licenses.service.js';
import { fingerprintSchema } from '../common/fingerprint.js';

/** `{ ip }` or `{ hwid }`: exactly one, as the license recorded it. */
export const releaseBodySchema = z
  .strictObject({
    ip: z.string().trim().min(1).max(100).optional(),
    hwid: fingerprintSchema.optional(),
  })
  .superRefine((body, context) => {
    if ((body.ip === undefined) === (body.hwid === undefined)) {
      context.addIssue({ code: 'custom', path: ['ip'], message: 'Give exactly one of ip and hwid' });
    }
  })
  .transform((body): LicenseBinding => (body.ip !== undefined ? { ip: body.ip } : { hwid: body.hwid ?? '' }));
