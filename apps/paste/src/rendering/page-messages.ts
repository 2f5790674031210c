/**
 * The messages of refusals that pages show (an error page's text, a password form's error), by
 * the spec's English text: their keys in the locales files. The API answers the English text
 * itself (decisions.md); a page says it in the visitor's language. A message not listed is shown
 * as it is.
 */
const PAGE_MESSAGE_KEYS: Record<string, string> = {
  'Page not found': 'errors.messages.pageNotFound',
  'Paste not found': 'errors.messages.pasteNotFound',
  'Paste expired': 'errors.messages.pasteExpired',
  'Incorrect password': 'errors.messages.incorrectPassword',
  'Password is required': 'errors.messages.passwordRequired',
  'Too many attempts': 'errors.messages.tooManyAttempts',
  'Wrong key': 'errors.messages.wrongKey',
  'Invalid delete token': 'errors.messages.invalidDeleteToken',
  Forbidden: 'errors.messages.forbidden',
};

export function pageMessageKey(message: string | undefined): string | undefined {
  return message !== undefined && Object.hasOwn(PAGE_MESSAGE_KEYS, message) ? PAGE_MESSAGE_KEYS[message] : undefined;
}
