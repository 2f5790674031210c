import type { Request } from 'express';

/**
 * Link-preview and crawler agents (decisions.md, "Link previews", wave 3): a GET whose
 * User-Agent contains one of these, in any case, gets the preview page and counts no view.
 * The named agents come first; the words after them catch the many fetchers that unfurl a link
 * without one of those names (Mastodon's http.rb, Synapse, Bluesky's Cardyb, Discourse's Onebox,
 * Outlook for iOS, Snap's URL Preview Service, ...). None of them occurs in the User-Agent of an
 * ordinary browser, curl, Wget or a common HTTP library, which still count views.
 */
export const PREVIEW_AGENTS = [
  // Named agents.
  'Slackbot',
  'Slack-ImgProxy',
  'Twitterbot',
  'facebookexternalhit',
  'Discordbot',
  'WhatsApp',
  'TelegramBot',
  'LinkedInBot',
  'SkypeUriPreview',
  'Teams',
  'Googlebot',
  'bingbot',
  'redditbot',
  'Applebot',
  'Mattermost',
  'Iframely',
  'Embedly',
  'Signal',
  // Words and services any other preview fetcher is known by.
  'bot',
  'crawler',
  'spider',
  'preview',
  'externalhit',
  'fetcher',
  'unfurl',
  'embed',
  'Mastodon',
  'Matrix',
  'Bluesky',
  'Cardyb',
  'Viber',
  'Pinterest',
  'Zalo',
  'Discourse',
  'Zulip',
  'Outlook',
  'MicrosoftPreview',
  'Google-PageRenderer',
  'Snap',
  'vkShare',
] as const;

const pattern = new RegExp(PREVIEW_AGENTS.map((agent) => agent.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')).join('|'), 'i');

export function isPreviewAgent(req: Request): boolean {
  const agent = req.headers['user-agent'];
  return typeof agent === 'string' && pattern.test(agent);
}
