import type { Request } from 'express';

/**
 * Link-preview and crawler agents (decisions.md, "Link previews never use up a paste"): a GET
 * whose User-Agent contains one of these, in any case, gets the preview page and counts no view.
 */
export const PREVIEW_AGENTS = [
  'Slackbot', 'Slack-ImgProxy', 'Twitterbot', 'facebookexternalhit', 'Discordbot', 'WhatsApp', 'TelegramBot',
  'LinkedInBot', 'SkypeUriPreview', 'Teams', 'Googlebot', 'bingbot', 'redditbot', 'Applebot',
  'Mattermost', 'Iframely', 'Embedly', 'Signal',
] as const;

const pattern = new RegExp(PREVIEW_AGENTS.map((agent) => agent.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')).join('|'), 'i');

export function isPreviewAgent(req: Request): boolean {
  const agent = req.headers['user-agent'];
  return typeof agent === 'string' && pattern.test(agent);
}
