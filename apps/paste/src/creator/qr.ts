/** qrcode (57 files with pngjs) loads at the first QR code, not at every start (docs/performance.md). */
const loadQrCode = () => import('qrcode');

/**
 * A QR code of `text` as inline SVG markup (the CSP allows no inline scripts, but inline SVG
 * is plain markup). Only path data comes from the text, so the markup is safe to insert.
 * Always dark on white, also in the dark theme: scanners need the contrast.
 */
export async function qrCodeSvg(text: string, label: string): Promise<string> {
  const { default: QRCode } = await loadQrCode();
  const svg = await QRCode.toString(text, {
    type: 'svg',
    errorCorrectionLevel: 'M',
    margin: 2,
    color: { dark: '#000000', light: '#ffffff' },
  });
  const safeLabel = label.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
  return svg.replace('<svg ', `<svg class="qr-code" role="img" aria-label="${safeLabel}" `);
}
