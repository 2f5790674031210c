import { randomInt } from 'node:crypto';

/** What the rehearsal sends, and what it counts of the answers. */
export type Action = 'create' | 'view' | 'validate' | 'activate' | 'admin read';

export interface Targets {
  pasteUrl: string;
  licenseUrl: string;
  ownerCookie: string;
  adminToken: string;
  limitedSlugs: string[];
  ipLicenseKey: string;
  machineLicenseKey: string;
}

export interface Tally {
  /** Answers by phase and status ('error' when no answer came), and how many were unexpected. */
  byPhase: Map<string, { statuses: Map<string, number>; unexpected: number; total: number }>;
  createdSlugs: string[];
  viewsAnswered: Map<string, number>;
  /** Views whose answer was lost (no answer, or a 5xx), which may or may not have counted. */
  viewsLost: Map<string, number>;
  acceptedIps: Set<string>;
  activatedFingerprints: Set<string>;
}

export const newTally = (): Tally => ({
  byPhase: new Map(),
  createdSlugs: [],
  viewsAnswered: new Map(),
  viewsLost: new Map(),
  acceptedIps: new Set(),
  activatedFingerprints: new Set(),
});

const randomIp = () => `10.${randomInt(1, 250)}.${randomInt(1, 250)}.${randomInt(1, 250)}`;
const weights: [Action, number][] = [
  ['create', 30],
  ['view', 25],
  ['validate', 20],
  ['activate', 10],
  ['admin read', 15],
];
const expected: Record<Action, number[]> = {
  create: [200],
  view: [200, 404, 410],
  validate: [200, 403],
  activate: [200, 201, 403],
  'admin read': [200],
};
const ownerReads = ['/api/pastes', '/api/stats', '/admin'];
const exportReads = ['/api/export/licenses/csv', '/api/export/summary/pdf'];
/**
 * The paste owner is one person, held to 300 requests per 15 minutes on their own pages
 * (OWNER_SETTINGS_LIMIT): a fast machine would reach that within the run and be answered 429,
 * the limit doing its job. The rehearsal keeps the owner under it and reads exports after that.
 */
const ownerReadBudget = 250;
let ownerReadsSent = 0;

function pick(): Action {
  let roll = randomInt(100);
  for (const [action, weight] of weights) {
    if (roll < weight) return action;
    roll -= weight;
  }
  return 'create';
}

/** One request of a random kind; records its answer under the phase it started in. */
export async function sendOne(targets: Targets, tally: Tally, phase: string): Promise<void> {
  const action = pick();
  let status: number | 'error';
  let add = () => {};
  let lost = () => {};
  try {
    const json = (url: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': randomIp(), ...headers },
        body: JSON.stringify(body),
      });
    if (action === 'create') {
      const response = await json(`${targets.pasteUrl}/api/paste`, {
        content: `rehearsal ${Date.now()} ${randomInt(1e9)}`,
      });
      status = response.status;
      if (status === 200) {
        const slug = ((await response.json()) as { slug: string }).slug;
        add = () => tally.createdSlugs.push(slug);
      }
    } else if (action === 'view') {
      const slug = targets.limitedSlugs[randomInt(targets.limitedSlugs.length)]!;
      lost = () => tally.viewsLost.set(slug, (tally.viewsLost.get(slug) ?? 0) + 1);
      const response = await fetch(`${targets.pasteUrl}/paste/${slug}/raw`, {
        headers: { 'X-Forwarded-For': randomIp() },
      });
      status = response.status;
      await response.arrayBuffer();
      if (status === 200) add = () => tally.viewsAnswered.set(slug, (tally.viewsAnswered.get(slug) ?? 0) + 1);
    } else if (action === 'validate') {
      const ip = `192.0.2.${randomInt(1, 11)}`;
      const response = await json(`${targets.licenseUrl}/api/license/validate`, { key: targets.ipLicenseKey, ip });
      status = response.status;
      await response.arrayBuffer();
      if (status === 200) add = () => tally.acceptedIps.add(ip);
    } else if (action === 'activate') {
      const fingerprint = `machine-${randomInt(30)}`;
      const response = await json(`${targets.licenseUrl}/api/license/machines/activate`, {
        key: targets.machineLicenseKey,
        fingerprint,
      });
      status = response.status;
      await response.arrayBuffer();
      if (status === 200 || status === 201) add = () => tally.activatedFingerprints.add(fingerprint);
    } else {
      const choices = ownerReadsSent < ownerReadBudget ? [...ownerReads, ...exportReads] : exportReads;
      const path = choices[randomInt(choices.length)]!;
      if (ownerReads.includes(path)) ownerReadsSent += 1;
      const paste = !path.startsWith('/api/export');
      const response = await fetch(`${paste ? targets.pasteUrl : targets.licenseUrl}${path}`, {
        headers: paste
          ? { Cookie: targets.ownerCookie, 'X-Forwarded-For': '198.51.100.7' }
          : { Authorization: `Bearer ${targets.adminToken}` },
      });
      status = response.status;
      await response.arrayBuffer();
    }
  } catch {
    status = 'error';
  }
  const ok = typeof status === 'number' && expected[action].includes(status);
  if (ok) add();
  else lost();
  const entry = tally.byPhase.get(phase) ?? { statuses: new Map(), unexpected: 0, total: 0 };
  const label = `${action} ${status}`;
  entry.statuses.set(label, (entry.statuses.get(label) ?? 0) + 1);
  entry.total += 1;
  if (!ok) entry.unexpected += 1;
  tally.byPhase.set(phase, entry);
}
