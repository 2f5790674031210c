export { auditPage, findViolations, WCAG_TAGS, THEMES, type Theme, type Violation } from './axe.js';
export { focused, tabTo, type Focused } from './keyboard.js';
