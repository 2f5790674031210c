import type { Queryable } from '@app/db';
import { pasteAggregates } from './stats.repository.js';

export interface Statistics {
  totalPastes: number;
  totalViews: number;
  last30Days: number;
  apiUsage: number;
  avgPasteSize: string;
  mostViewed: number;
  avgViews: number;
  storageUsed: string;
}

/**
 * The owner's dashboard: the specification's figures, and how many of the pastes are end-to-end
 * encrypted. GET /api/stats keeps exactly the specification's fields.
 */
export interface DashboardStatistics extends Statistics {
  encryptedPastes: number;
  /** Bytes of the files of readable pastes (also counted in storageUsed). */
  attachmentBytes: number;
}

const units = ['B', 'KB', 'MB', 'GB'] as const;

/** `"512 B"`, `"12.4 KB"`, `"3.0 MB"`: binary units, one decimal above bytes. */
export function humanBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** `db` is where the figures are read: the replica when there is one. */
export function createStatsService(deps: { db: Queryable }) {
  const dashboard = async (): Promise<DashboardStatistics> => {
    const a = await pasteAggregates(deps.db);
    return {
      totalPastes: a.totalPastes,
      totalViews: a.totalViews,
      last30Days: a.last30Days,
      apiUsage: a.apiUsage,
      avgPasteSize: `${a.avgChars} characters`,
      mostViewed: a.mostViewed,
      avgViews: a.totalPastes === 0 ? 0 : Math.round((a.totalViews / a.totalPastes) * 100) / 100,
      // The pastes' text and their files.
      storageUsed: humanBytes(a.bytes + a.attachmentBytes),
      encryptedPastes: a.encrypted,
      attachmentBytes: a.attachmentBytes,
    };
  };
  return {
    /** GET /api/stats: the specification's figures. */
    async get(): Promise<Statistics> {
      const { encryptedPastes: _encrypted, attachmentBytes: _files, ...statistics } = await dashboard();
      return statistics;
    },
    dashboard,
  };
}

export type StatsService = ReturnType<typeof createStatsService>;
