import type { z } from 'zod';

/**
 * Messages for people from zod's issues, naming the field: "maxViews must be a whole number of
 * at least 1" instead of zod's "Too small: expected number to be >=1". Used as the per-parse
 * error map (`schema.safeParse(input, { error: readableIssue })`), which ranks below a message
 * the schema sets itself, so deliberate texts (the specifications') are kept as written.
 */
export const readableIssue: z.core.$ZodErrorMap = (issue) => {
  const path = issue.path ?? [];
  return describe(issue, path.length ? path.map(String).join('.') : 'The input');
};

type Issue = z.core.$ZodRawIssue;
type Bound = { value: number; inclusive: boolean };

const formats: Record<string, string> = {
  email: 'an email address',
  url: 'a URL',
  uuid: 'a UUID',
  uuidv4: 'a UUID',
  uuidv6: 'a UUID',
  uuidv7: 'a UUID',
  guid: 'a GUID',
  datetime: 'a date and time in ISO 8601 format (e.g. 2025-01-31T12:00:00Z)',
  date: 'a date in YYYY-MM-DD format',
  time: 'a time in HH:MM:SS format',
  duration: 'an ISO 8601 duration (e.g. P1D)',
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
  cidrv4: 'an IPv4 range',
  cidrv6: 'an IPv6 range',
  mac: 'a MAC address',
  base64: 'base64-encoded text',
  base64url: 'base64url-encoded text',
  json_string: 'JSON text',
  jwt: 'a JWT',
  e164: 'a phone number in E.164 format (e.g. +14155550100)',
  emoji: 'an emoji',
};

const kinds: Record<string, string> = {
  string: 'text',
  boolean: 'true or false',
  array: 'a list',
  tuple: 'a list',
  object: 'an object',
  record: 'an object',
  map: 'an object',
  set: 'a list',
  date: 'a date',
  null: 'null',
  bigint: 'a whole number',
  file: 'a file',
  nan: 'NaN',
};

function describe(issue: Issue, field: string): string {
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.input === undefined || issue.expected === 'nonoptional') return `${field} is required`;
      if (issue.expected === 'never') return `${field} is not allowed`;
      if (issue.expected === 'number' || issue.expected === 'int') return `${field} must be ${numberPhrase(issue)}`;
      return `${field} must be ${kinds[issue.expected] ?? issue.expected}`;
    }
    case 'too_small':
    case 'too_big':
      return `${field} ${sizePhrase(issue)}`;
    case 'invalid_format':
      return `${field} ${formatPhrase(issue)}`;
    case 'not_multiple_of':
      return `${field} must be a multiple of ${show(issue.divisor)}`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `${field} must be ${literal(issue.values[0])}`
        : `${field} must be one of ${issue.values.map(literal).join(', ')}`;
    case 'unrecognized_keys':
      return issue.keys.length === 1
        ? `${issue.keys[0]} is not a known field`
        : `${issue.keys.join(', ')} are not known fields`;
    case 'invalid_union': {
      if (issue.input === undefined) return `${field} is required`;
      const expected = unionExpectations(issue);
      return expected ? `${field} must be ${expected}` : `${field} is not valid`;
    }
    case 'invalid_key':
      return `${field} has a key that is not allowed`;
    case 'invalid_element':
      return `${field} has a value that is not allowed`;
    default:
      return `${field} is not valid`;
  }
}

const show = (value: number | bigint) =>
  typeof value === 'number' && Number.isInteger(value) && Math.abs(value) >= 10_000
    ? value.toLocaleString('en-US')
    : String(value);

const literal = (value: unknown) => (typeof value === 'string' ? `"${value}"` : String(value));

/** The number checks of the schema that raised the issue: whole or not, and its bounds. */
function numberRules(issue: Issue): { whole: boolean; low?: Bound; high?: Bound } {
  const schema = (issue.schema ?? issue.inst) as
    { _zod?: { def?: { format?: string; checks?: Array<{ _zod: { def: Record<string, unknown> } }> } } } | undefined;
  const def = schema?._zod?.def;
  const rules: { whole: boolean; low?: Bound; high?: Bound } = { whole: isWholeFormat(def?.format) };
  for (const check of def?.checks ?? []) {
    const { check: kind, value, inclusive, format } = check._zod.def;
    if (kind === 'number_format' && isWholeFormat(format)) rules.whole = true;
    if (typeof value !== 'number') continue;
    if (kind === 'greater_than') rules.low = { value, inclusive: inclusive === true };
    if (kind === 'less_than') rules.high = { value, inclusive: inclusive === true };
  }
  return rules;
}

const isWholeFormat = (format: unknown) => typeof format === 'string' && /int/.test(format);

/** "a whole number of at least 1", "a number from 0 to 100", "a whole number less than 10". */
function numberPhrase(issue: Issue): string {
  const { whole, low, high } = numberRules(issue);
  // The issue's own bound covers limits the checks do not list (those of a safe integer).
  const lowBound =
    low ??
    (issue.code === 'too_small' ? { value: Number(issue.minimum), inclusive: issue.inclusive !== false } : undefined);
  const highBound =
    high ??
    (issue.code === 'too_big' ? { value: Number(issue.maximum), inclusive: issue.inclusive !== false } : undefined);
  const kind = whole ? 'a whole number' : 'a number';
  // For whole numbers "greater than 0" reads better as "at least 1".
  const lower =
    lowBound &&
    (whole && !lowBound.inclusive && Number.isInteger(lowBound.value)
      ? { value: lowBound.value + 1, inclusive: true }
      : lowBound);
  const upper =
    highBound &&
    (whole && !highBound.inclusive && Number.isInteger(highBound.value)
      ? { value: highBound.value - 1, inclusive: true }
      : highBound);
  if (lower && upper) {
    if (lower.inclusive && upper.inclusive) return `${kind} from ${show(lower.value)} to ${show(upper.value)}`;
    return `${kind} ${lower.inclusive ? 'of at least' : 'greater than'} ${show(lower.value)} and ${upper.inclusive ? 'at most' : 'less than'} ${show(upper.value)}`;
  }
  if (lower) return `${kind} ${lower.inclusive ? 'of at least' : 'greater than'} ${show(lower.value)}`;
  if (upper) return `${kind} ${upper.inclusive ? 'of at most' : 'less than'} ${show(upper.value)}`;
  return kind;
}

const units: Record<string, [string, string]> = {
  string: ['character', 'characters'],
  array: ['item', 'items'],
  set: ['item', 'items'],
  map: ['entry', 'entries'],
  file: ['byte', 'bytes'],
};

function sizePhrase(issue: Extract<Issue, { code: 'too_small' | 'too_big' }>): string {
  const small = issue.code === 'too_small';
  const limit = small ? issue.minimum : issue.maximum;
  if (issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint')
    return `must be ${numberPhrase(issue)}`;
  if (issue.origin === 'date') {
    const at = new Date(Number(limit)).toISOString();
    return small
      ? `must be ${issue.inclusive === false ? 'after' : 'on or after'} ${at}`
      : `must be ${issue.inclusive === false ? 'before' : 'on or before'} ${at}`;
  }
  const unit = units[issue.origin];
  if (!unit) return small ? `is too small` : `is too large`;
  const count = `${show(limit)} ${Number(limit) === 1 ? unit[0] : unit[1]}`;
  if (issue.origin === 'string') {
    if (issue.exact) return `must be exactly ${count} long`;
    if (small && Number(limit) === 1 && issue.inclusive !== false) return 'must not be empty';
    return small ? `must be at least ${count} long` : `must be at most ${count} long`;
  }
  if (issue.exact) return `must have exactly ${count}`;
  if (small && Number(limit) === 1 && issue.inclusive !== false) return 'must not be empty';
  return small ? `must have at least ${count}` : `must have at most ${count}`;
}

function formatPhrase(issue: Extract<Issue, { code: 'invalid_format' }>): string {
  const details = issue as { prefix?: string; suffix?: string; includes?: string };
  switch (issue.format) {
    case 'starts_with':
      return `must start with "${details.prefix}"`;
    case 'ends_with':
      return `must end with "${details.suffix}"`;
    case 'includes':
      return `must contain "${details.includes}"`;
    case 'regex':
      return 'is not in the expected format';
    default:
      return `must be ${formats[issue.format] ?? `a valid ${issue.format}`}`;
  }
}

/** "a number or null" when every option of a union failed only on its type. */
function unionExpectations(issue: Extract<Issue, { code: 'invalid_union' }>): string | undefined {
  if (!('errors' in issue) || !issue.errors.length) return undefined;
  const expected: string[] = [];
  for (const option of issue.errors) {
    const [first] = option;
    if (option.length !== 1 || first?.code !== 'invalid_type' || first.path.length) return undefined;
    const noun =
      first.expected === 'number' || first.expected === 'int'
        ? first.expected === 'int'
          ? 'a whole number'
          : 'a number'
        : (kinds[first.expected] ?? first.expected);
    if (!expected.includes(noun)) expected.push(noun);
  }
  return expected.length > 1 ? `${expected.slice(0, -1).join(', ')} or ${expected.at(-1)}` : expected[0];
}
