/**
 * Semantic versions (semver.org 2.0.0): parsing and precedence, for choosing the newest release.
 * A leading `v` is accepted when reading an application's version (Tauri sends either).
 */
export interface SemVer {
  major: number;
  minor: number;
  patch: number;
  prerelease: string[];
}

const PATTERN =
  /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

export function parseSemVer(value: string): SemVer | undefined {
  const match = PATTERN.exec(value);
  if (!match) return undefined;
  const [major, minor, patch] = [match[1], match[2], match[3]].map(Number) as [number, number, number];
  if (![major, minor, patch].every(Number.isSafeInteger)) return undefined;
  return { major, minor, patch, prerelease: match[4] ? match[4].split('.') : [] };
}

/** A release's version as stored: semver without a leading `v`, at most 100 characters. */
export const isReleaseVersion = (value: string) =>
  value.length <= 100 && !value.startsWith('v') && !!parseSemVer(value);

const numeric = (identifier: string) => /^\d+$/.test(identifier);

/** Negative when `a` comes before `b`, by semver precedence (build metadata ignored). */
export function compareSemVer(a: SemVer, b: SemVer): number {
  for (const key of ['major', 'minor', 'patch'] as const) if (a[key] !== b[key]) return a[key] - b[key];
  // A version without pre-release identifiers is above one with them.
  if (!a.prerelease.length || !b.prerelease.length) return b.prerelease.length - a.prerelease.length;
  for (let i = 0; i < Math.max(a.prerelease.length, b.prerelease.length); i += 1) {
    const x = a.prerelease[i];
    const y = b.prerelease[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (x === y) continue;
    if (numeric(x) && numeric(y)) return Number(x) - Number(y);
    if (numeric(x)) return -1;
    if (numeric(y)) return 1;
    return x < y ? -1 : 1;
  }
  return 0;
}
