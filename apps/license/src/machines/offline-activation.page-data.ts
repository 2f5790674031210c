import type { LicenseFile } from '../licenses/license-file.js';
import type { MachineJson } from './machines.presenter.js';
import { utcTime } from '../console/utc-time.js';

// The result page of an air-gapped activation, in the console and in the portal: the file as a
// QR code (drawn here, as SVG: the file is not secret to its owner) and as a download.

/** qrcode (57 files with pngjs) loads at the first QR code, not at every start (docs/performance.md). */
const loadQrCode = () => import('qrcode');

/**
 * The QR code of `text` as inline SVG, or null when it does not fit one code even at the lowest
 * error correction. Dark on white in both themes: scanners need the contrast.
 */
export async function fileQrSvg(text: string, label: string): Promise<string | null> {
  const { default: QRCode } = await loadQrCode();
  for (const errorCorrectionLevel of ['M', 'L'] as const) {
    try {
      const svg = await QRCode.toString(text, {
        type: 'svg',
        errorCorrectionLevel,
        margin: 2,
        color: { dark: '#000000', light: '#ffffff' },
      });
      const safeLabel = label.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
      return svg.replace('<svg ', `<svg class="qr-code" role="img" aria-label="${safeLabel}" `);
    } catch {
      // Too much data for this level: try the next, then give up (the page offers the download).
    }
  }
  return null;
}

export interface OfflineResult {
  created: boolean;
  machine: MachineJson;
  file: LicenseFile;
}

/** What the result partial shows: the machine, the file's dates, its QR code (or null) and its download. */
export async function offlineResultData(key: string, result: OfflineResult) {
  const text = JSON.stringify(result.file);
  const payload = JSON.parse(Buffer.from(result.file.payload, 'base64').toString('utf8')) as {
    validUntil: string;
    borrowedUntil?: string;
  };
  return {
    created: result.created,
    machine: result.machine.name ?? result.machine.fingerprint,
    fingerprint: result.machine.fingerprint,
    validUntil: utcTime(payload.validUntil),
    borrowedUntil: payload.borrowedUntil ? utcTime(payload.borrowedUntil) : null,
    qrSvg: await fileQrSvg(text, 'QR code of the license file'),
    bytes: Buffer.byteLength(text),
    fileText: text,
    fileName: `${key.replace(/[^A-Za-z0-9._-]/g, '_')}.lic.json`,
    downloadHref: `data:application/json;base64,${Buffer.from(text, 'utf8').toString('base64')}`,
  };
}
export type OfflineResultData = Awaited<ReturnType<typeof offlineResultData>>;
