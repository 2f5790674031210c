import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The links that hand out artifacts: `/api/license/downloads/:artifactId?expires=&signature=`,
 * an HMAC-SHA-256 of the artifact and the moment the link lapses (10 minutes after it was made).
 * The service checked the license when it made the link; following it counts the download and
 * redirects to the object store's own short-lived URL.
 */
export function downloadLinks(deps: { secret: string; publicUrl: string; now: () => Date; lifetimeSeconds?: number }) {
  const key = createHmac('sha256', deps.secret).update('release-artifact-downloads').digest();
  const lifetime = deps.lifetimeSeconds ?? 600;
  const sign = (artifactId: string, expires: number) =>
    createHmac('sha256', key).update(`${artifactId}.${expires}`).digest('base64url');
  const base = deps.publicUrl.replace(/\/+$/, '');
  return {
    lifetimeSeconds: lifetime,
    /** A link to the artifact that works for 10 minutes. */
    make(artifactId: string): string {
      const expires = Math.floor(deps.now().getTime() / 1000) + lifetime;
      return `${base}/api/license/downloads/${artifactId}?expires=${expires}&signature=${sign(artifactId, expires)}`;
    },
    /** 'ok', 'invalid' (altered or unsigned) or 'expired'. */
    check(
      artifactId: string,
      expires: string | undefined,
      signature: string | undefined,
    ): 'ok' | 'invalid' | 'expired' {
      if (!expires || !signature || !/^\d{1,12}$/.test(expires)) return 'invalid';
      const expected = Buffer.from(sign(artifactId, Number(expires)));
      const given = Buffer.from(signature);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'invalid';
      return Number(expires) * 1000 < deps.now().getTime() ? 'expired' : 'ok';
    },
  };
}
export type DownloadLinks = ReturnType<typeof downloadLinks>;
