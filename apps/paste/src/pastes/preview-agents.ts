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

/**
 * The device part of an Android browser's platform comment: `(Linux; Android 13; CUBOT P40
 * Build/…; wv)`, `(Linux; U; Android 8.1.0; en-us; CUBOT NOTE 7 Build/…)`. Makers name their phones
 * as they like (CUBOT, KINGKONG, …), so a model may hold a word of the list ("bot"); no preview
 * agent names itself there (Googlebot's and Bingbot's smartphone agents, which copy an Android
 * browser's comment, name themselves in a comment of their own), so it is left out of the match.
 */
const ANDROID_DEVICE = /(\(Linux;(?: U;)? Android[^;)]*)[^)]*/gi;

/** Whether the request comes from a link-preview agent or a crawler (then it counts no view). */
export function isPreviewAgent(req: Pick<Request, 'headers'>): boolean {
  const agent = req.headers['user-agent'];
  return typeof agent === 'string' && pattern.test(agent.replace(ANDROID_DEVICE, '$1'));
}
