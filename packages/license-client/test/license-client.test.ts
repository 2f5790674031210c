import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  hasEntitlement,
  keyIdOf,
  verifyLicenseFile,
  verifySignedValidation,
  type LicenseFilePayload,
} from '../src/index.js';

const pair = () => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return { privateKey, publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
};
const service = pair();
const stranger = pair();

const payload: LicenseFilePayload = {
  key: 'TEST-AAAA-BBBB',
  product: { _id: 'p1', name: 'Suite' },
  licenseType: 'fixed',
  expiresAt: '2030-01-01T00:00:00.000Z',
  ipLimit: 2,
  hwidLimit: 2,
  usedHwids: ['pc-1'],
  entitlements: ['EXPORT', 'SSO'],
  issuedAt: '2026-01-01T00:00:00.000Z',
  validUntil: '2026-01-31T00:00:00.000Z',
};
const inside = new Date('2026-01-15T00:00:00Z');

/** A file as the service makes it: the signature covers the JSON bytes the payload encodes. */
function fileOf(content: unknown, signer: { privateKey: KeyObject; publicKeyPem: string } = service) {
  const bytes = Buffer.from(JSON.stringify(content), 'utf8');
  return {
    format: 'license-file/1',
    payload: bytes.toString('base64'),
    signature: sign(null, bytes, signer.privateKey).toString('base64'),
    keyId: keyIdOf(signer.publicKeyPem),
  };
}

describe('verifyLicenseFile', () => {
  it('accepts a file signed by the key, as an object or as its text, and answers the license', () => {
    const file = fileOf(payload);
    const good = { valid: true, license: payload, inGrace: false, expired: false };
    expect(verifyLicenseFile(file, service.publicKeyPem, { now: inside })).toEqual(good);
    expect(verifyLicenseFile(JSON.stringify(file), service.publicKeyPem, { now: inside, hwid: 'pc-1' })).toEqual(good);
  });

  it('refuses a payload with one byte changed, and a changed signature', () => {
    const file = fileOf(payload);
    const bytes = Buffer.from(file.payload, 'base64');
    const at = bytes.indexOf('Suite');
    bytes[at] = 'T'.charCodeAt(0);
    expect(
      verifyLicenseFile({ ...file, payload: bytes.toString('base64') }, service.publicKeyPem, { now: inside }),
    ).toEqual({ valid: false, reason: 'bad-signature' });
    const signature = Buffer.from(file.signature, 'base64');
    signature[0] = signature[0]! ^ 1;
    expect(
      verifyLicenseFile({ ...file, signature: signature.toString('base64') }, service.publicKeyPem, { now: inside }),
    ).toEqual({ valid: false, reason: 'bad-signature' });
  });

  it('refuses a file signed by another key, whatever keyId it claims', () => {
    const forged = fileOf(payload, stranger);
    expect(verifyLicenseFile(forged, service.publicKeyPem, { now: inside })).toEqual({
      valid: false,
      reason: 'unknown-key',
    });
    expect(
      verifyLicenseFile({ ...forged, keyId: keyIdOf(service.publicKeyPem) }, service.publicKeyPem, { now: inside }),
    ).toEqual({ valid: false, reason: 'bad-signature' });
  });

  it('refuses a file past validUntil', () => {
    expect(verifyLicenseFile(fileOf(payload), service.publicKeyPem, { now: new Date(payload.validUntil) })).toEqual({
      valid: false,
      reason: 'expired',
    });
    // Without `now`, the clock: this payload's validUntil is in the past.
    expect(
      verifyLicenseFile(fileOf({ ...payload, validUntil: '2020-01-01T00:00:00.000Z' }), service.publicKeyPem),
    ).toEqual({ valid: false, reason: 'expired' });
  });

  it('refuses a hardware id the license does not list', () => {
    expect(verifyLicenseFile(fileOf(payload), service.publicKeyPem, { now: inside, hwid: 'pc-2' })).toEqual({
      valid: false,
      reason: 'hwid-not-allowed',
    });
  });

  it('refuses other formats and malformed files', () => {
    const file = fileOf(payload);
    expect(verifyLicenseFile({ ...file, format: 'license-file/2' }, service.publicKeyPem, { now: inside })).toEqual({
      valid: false,
      reason: 'unsupported-format',
    });
    for (const bad of [null, 'not json', 42, [], { ...file, payload: 5 }, { ...file, payload: `${file.payload}!` }]) {
      expect(verifyLicenseFile(bad, service.publicKeyPem, { now: inside })).toEqual({
        valid: false,
        reason: 'malformed',
      });
    }
    // Signed, but not the payload the format promises.
    expect(verifyLicenseFile(fileOf({ key: 'x' }), service.publicKeyPem, { now: inside })).toEqual({
      valid: false,
      reason: 'malformed',
    });
  });
});

describe('verifySignedValidation', () => {
  const answer = (body: object) => {
    const bytes = Buffer.from(JSON.stringify(body));
    return { bytes, signature: sign(null, bytes, service.privateKey).toString('base64') };
  };

  it('accepts an authentic valid answer with the nonce sent', () => {
    const { bytes, signature } = answer({ success: true, valid: true, license: { key: 'K' }, nonce: 'n-1' });
    expect(verifySignedValidation(bytes, signature, service.publicKeyPem, { nonce: 'n-1' })).toEqual({
      valid: true,
      body: { success: true, valid: true, license: { key: 'K' }, nonce: 'n-1' },
      inGrace: false,
      expired: false,
    });
    expect(verifySignedValidation(bytes.toString(), signature, service.publicKeyPem).valid).toBe(true);
  });

  it('refuses changed bodies, missing or foreign signatures, and replays', () => {
    const { bytes, signature } = answer({ success: true, valid: true, license: { key: 'K' }, nonce: 'n-1' });
    const changed = Buffer.from(bytes);
    changed[changed.length - 3] = changed[changed.length - 3]! ^ 1;
    expect(verifySignedValidation(changed, signature, service.publicKeyPem)).toEqual({
      valid: false,
      reason: 'bad-signature',
    });
    expect(verifySignedValidation(bytes, undefined, service.publicKeyPem)).toEqual({
      valid: false,
      reason: 'missing-signature',
    });
    expect(verifySignedValidation(bytes, signature, stranger.publicKeyPem)).toEqual({
      valid: false,
      reason: 'bad-signature',
    });
    expect(verifySignedValidation(bytes, signature, service.publicKeyPem, { nonce: 'n-2' })).toMatchObject({
      valid: false,
      reason: 'nonce-mismatch',
    });
  });

  it('answers license-invalid with the error for an authentic refusal', () => {
    const { bytes, signature } = answer({ success: false, valid: false, error: 'License expired' });
    expect(verifySignedValidation(bytes, signature, service.publicKeyPem)).toEqual({
      valid: false,
      reason: 'license-invalid',
      error: 'License expired',
      body: { success: false, valid: false, error: 'License expired' },
    });
  });

  it("gives the admin's suspend reason as suspendReason", () => {
    const body = { success: false, valid: false, error: 'License suspended', reason: 'Invoice unpaid' };
    const { bytes, signature } = answer(body);
    expect(verifySignedValidation(bytes, signature, service.publicKeyPem)).toEqual({
      valid: false,
      reason: 'license-invalid',
      error: 'License suspended',
      suspendReason: 'Invoice unpaid',
      body,
    });
  });
});

describe('hasEntitlement', () => {
  it('reads the entitlements of a checked file, its payload, a checked answer and an answer body', () => {
    const checkedFile = verifyLicenseFile(fileOf(payload), service.publicKeyPem, { now: inside });
    const bytes = Buffer.from(
      JSON.stringify({ success: true, valid: true, license: { key: 'K', entitlements: ['SSO'] } }),
    );
    const checkedAnswer = verifySignedValidation(
      bytes,
      sign(null, bytes, service.privateKey).toString('base64'),
      service.publicKeyPem,
    );
    for (const source of [checkedFile, payload, checkedAnswer, JSON.parse(bytes.toString())]) {
      expect(hasEntitlement(source, 'SSO')).toBe(true);
      expect(hasEntitlement(source, 'sso')).toBe(false);
      expect(hasEntitlement(source, 'PRO')).toBe(false);
    }
    expect(hasEntitlement(checkedFile, 'EXPORT')).toBe(true);
  });

  it('grants nothing from a refused file or answer, a file without entitlements, or nothing at all', () => {
    const expired = verifyLicenseFile(fileOf(payload), service.publicKeyPem, { now: new Date('2027-01-01T00:00:00Z') });
    expect(expired.valid).toBe(false);
    expect(hasEntitlement(expired, 'SSO')).toBe(false);
    const bytes = Buffer.from(
      JSON.stringify({ success: false, valid: false, error: 'Entitlement missing', details: { missing: ['SSO'] } }),
    );
    expect(
      hasEntitlement(
        verifySignedValidation(bytes, sign(null, bytes, service.privateKey).toString('base64'), service.publicKeyPem),
        'SSO',
      ),
    ).toBe(false);
    expect(hasEntitlement(verifySignedValidation(bytes, 'forged', service.publicKeyPem), 'SSO')).toBe(false);
    const { entitlements: _none, ...older } = payload;
    const oldFile = verifyLicenseFile(fileOf(older), service.publicKeyPem, { now: inside });
    expect(oldFile).toEqual({ valid: true, license: { ...older, entitlements: [] }, inGrace: false, expired: false });
    expect(hasEntitlement(oldFile, 'SSO')).toBe(false);
    expect(hasEntitlement(undefined, 'SSO')).toBe(false);
    expect(hasEntitlement(null, 'SSO')).toBe(false);
  });
});
