export {
  DEFAULT_LANGUAGE,
  LANGUAGE_COOKIE,
  LANGUAGE_NAMES,
  SUPPORTED,
  directionOf,
  fromAcceptLanguage,
  fromCookie,
  isSupported,
  negotiateLanguage,
  supportedLanguageOf,
  type Language,
} from './languages.js';
export { formatBytes, formatDate, formatNumber } from './format.js';
export { translationsFor, translator, uiLocalesDir, type Translate } from './messages.js';
export { LANGUAGE_CHOICES, isLocalPath, languageLocals, languages, type LanguagesOptions } from './middleware.js';
