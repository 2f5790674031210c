import { execFile, spawnSync } from 'node:child_process';
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
// The license service as its own tests build it: a real server on a test database.
import { buildTestApp, type TestApp } from '../../../apps/license/test/helpers.js';

// What an application gets: the tarball `npm pack` makes, installed with npm into a folder of its
// own, used from plain `node` (ESM and CommonJS) and from TypeScript. The scripts are this
// package's README examples, taken from its code blocks marked `file=NAME`.

const packageDir = path.resolve(import.meta.dirname, '..');
const packageName = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')).name as string;
const hwid = 'pc-1234'; // the hardware id the README examples send and expect in the file

const npm = spawnSync('npm', ['--version'], { encoding: 'utf8' });
const hasNpm = npm.status === 0;
if (!hasNpm)
  console.log('SKIP license-client package test: npm is not installed, so the tarball cannot be packed and installed');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end without blocking this process, which serves the license service. */
function run(file: string, args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      {
        cwd: options.cwd,
        // The examples keep the clock's latest issuedAt in ~/.license-client: here, in the folder they run in.
        env: { ...process.env, ...(file === 'node' ? { HOME: options.cwd } : {}), ...options.env },
        timeout: 120_000,
      },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

async function succeeds(
  file: string,
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<string> {
  const result = await run(file, args, options);
  if (result.code !== 0)
    throw new Error(`${file} ${args.join(' ')} exited ${result.code}\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

// Files parsed once for both type checks below (editors share them between projects the same way):
// Node's types are most of the work.
const parsedFiles = new Map<string, ts.SourceFile | undefined>();

/** `tsc --noEmit` of a consumer's files against the installed package: the errors, as tsc prints them. */
function typeErrors(resolution: Pick<ts.CompilerOptions, 'module' | 'moduleResolution'>, files: string[]): string[] {
  const options: ts.CompilerOptions = {
    ...resolution,
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts'],
    skipLibCheck: true,
    types: ['node'],
    typeRoots: [path.join(packageDir, 'node_modules/@types')],
  };
  const host = ts.createCompilerHost(options);
  const parse = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, ...rest) => {
    const key = `${fileName} ${typeof languageVersion === 'object' ? languageVersion.impliedNodeFormat : ''}`;
    if (!parsedFiles.has(key)) parsedFiles.set(key, parse(fileName, languageVersion, ...rest));
    return parsedFiles.get(key);
  };
  const program = ts.createProgram(files, options, host);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.formatDiagnostic(diagnostic, host));
}

/** The README's code blocks marked ```lang file=NAME, by name. */
function readmeExamples(): Map<string, string> {
  const readme = readFileSync(path.join(packageDir, 'README.md'), 'utf8');
  return new Map([...readme.matchAll(/^```\w+ file=(\S+)\n([\s\S]*?)^```$/gm)].map((match) => [match[1]!, match[2]!]));
}

describe.skipIf(!hasNpm)('the package installed from its npm tarball', () => {
  let t: TestApp;
  let consumer: string;
  let packed: { filename: string; files: { path: string }[] };
  let license: Awaited<ReturnType<TestApp['createLicense']>>;
  let product: { _id: string };
  let fakeServer: http.Server | undefined;

  beforeAll(async () => {
    consumer = mkdtempSync(path.join(os.tmpdir(), 'license-client-consumer-'));
    // Packing runs prepack, which builds dist/: in parallel with starting the service.
    const [app, packOutput] = await Promise.all([
      buildTestApp({ env: { STORAGE_URL: pathToFileURL(path.join(consumer, 'objects')).href } }),
      succeeds('npm', ['pack', '--json', '--pack-destination', consumer], { cwd: packageDir }),
    ]);
    t = app;
    // npm prints the prepack script's output before the JSON.
    [packed] = JSON.parse(packOutput.slice(packOutput.indexOf('[\n')));

    writeFileSync(
      path.join(consumer, 'package.json'),
      JSON.stringify({ name: 'license-client-consumer', private: true, type: 'module' }),
    );
    // Offline: the package has no dependencies, so npm needs nothing but the tarball.
    await succeeds('npm', ['install', '--offline', '--no-audit', '--no-fund', path.join(consumer, packed.filename)], {
      cwd: consumer,
      env: { npm_config_cache: path.join(consumer, '.npm-cache') },
    });
    for (const [name, code] of readmeExamples()) writeFileSync(path.join(consumer, name), code);

    product = await t.createProduct({ name: 'Acme Editor' });
    const admin = await t.admin();
    await t.http
      .post('/api/entitlements')
      .set(admin.headers)
      .send({ code: 'EXPORT', name: 'Export to PDF' })
      .expect(201);
    license = await t.createLicense({ product: product._id, hwidLimit: 2, entitlements: ['EXPORT'] });
    const { publicKey } = (await t.http.get('/api/license/public-key').expect(200)).body;
    writeFileSync(path.join(consumer, 'license-public-key.pem'), publicKey);
    // The README's own steps: validated once from this machine, so the license file lists its hardware id.
    // (The test signs in with the admin's session cookie where the README uses a bearer token.)
    await succeeds('bash', ['get-license-file.sh'], {
      cwd: consumer,
      env: {
        LICENSE_URL: t.baseUrl,
        LICENSE_KEY: license.key,
        LICENSE_ID: license._id,
        AUTH: `Cookie: ${admin.cookie}`,
      },
    });
  }, 180_000);

  afterAll(async () => {
    await t?.close();
    await new Promise((resolve) => (fakeServer ? fakeServer.close(resolve) : resolve(undefined)));
    if (consumer) rmSync(consumer, { recursive: true, force: true });
  });

  it('packs the built JavaScript with its declarations, every file the manifest points at, and no TypeScript source', () => {
    const files = packed.files.map((file) => file.path);
    expect(files.filter((file) => !/^(README\.md|package\.json|dist\/.+\.(js|d\.ts|json))$/.test(file))).toEqual([]);
    const manifest = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
    const targets = [
      manifest.main,
      manifest.module,
      manifest.types,
      ...JSON.stringify(manifest.exports).match(/\.\/dist\/[^"]+/g)!,
    ];
    for (const target of targets) expect(files, target).toContain(path.normalize(target));
    expect(files).toContain('dist/cjs/package.json'); // what makes dist/cjs CommonJS in a "type": "module" package
    const installed = JSON.parse(
      readFileSync(path.join(consumer, 'node_modules', packageName, 'package.json'), 'utf8'),
    );
    expect(installed).not.toHaveProperty('dependencies');
  });

  it('verifies the offline license file with plain node, imported as ESM and required as CommonJS', async () => {
    for (const script of ['verify-file.mjs', 'verify-file.cjs']) {
      const result = await run('node', [script], { cwd: consumer });
      expect(result, script).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toMatch(
        new RegExp(`^Licensed offline: Acme Editor, key ${license.key}, until \\d{4}-\\d\\d-\\d\\dT`),
      );
    }
  });

  it('refuses a license file whose payload was changed, from both module systems', async () => {
    const tampered = path.join(consumer, 'tampered');
    mkdirSync(tampered);
    const file = JSON.parse(readFileSync(path.join(consumer, 'license.lic.json'), 'utf8'));
    const payload = Buffer.from(file.payload, 'base64').toString('utf8').replace('"hwidLimit":2', '"hwidLimit":9');
    writeFileSync(
      path.join(tampered, 'license.lic.json'),
      JSON.stringify({ ...file, payload: Buffer.from(payload).toString('base64') }),
    );
    writeFileSync(
      path.join(tampered, 'license-public-key.pem'),
      readFileSync(path.join(consumer, 'license-public-key.pem')),
    );
    for (const script of ['verify-file.mjs', 'verify-file.cjs']) {
      const result = await run('node', [path.join(consumer, script)], { cwd: tampered });
      expect(result, script).toMatchObject({ code: 1, stdout: '', stderr: 'License file refused: bad-signature\n' });
    }
  });

  it("refuses another product's license file, and keeps the service's clock in ~/.license-client", async () => {
    for (const script of ['verify-file.mjs', 'verify-file.cjs']) {
      const mine = await run('node', [script], { cwd: consumer, env: { LICENSE_PRODUCT_ID: product._id } });
      expect(mine, script).toMatchObject({ code: 0, stderr: '' });
      const other = await run('node', [script], { cwd: consumer, env: { LICENSE_PRODUCT_ID: 'another-product' } });
      expect(other, script).toMatchObject({ code: 1, stdout: '', stderr: 'License file refused: wrong-product\n' });
    }
    const kept = readFileSync(path.join(consumer, '.license-client', 'latest-issued-at'), 'utf8').trim();
    expect(Date.now() - Date.parse(kept)).toBeLessThan(10 * 60_000);
  });

  it('reads an entitlement from the checked license file', async () => {
    const result = await run('node', ['entitlements.mjs'], { cwd: consumer });
    expect(result).toMatchObject({ code: 0, stderr: '', stdout: 'PDF export: on; single sign-on: off\n' });
  });

  it("verifies the service's signed validation answer with plain node, as ESM and CommonJS", async () => {
    for (const script of ['validate.mjs', 'validate.cjs']) {
      const result = await run('node', [script], {
        cwd: consumer,
        env: { LICENSE_SERVER: t.baseUrl, LICENSE_KEY: license.key },
      });
      expect(result, script).toMatchObject({
        code: 0,
        stderr: '',
        stdout: `Licensed online: key ${license.key}, expires never\n`,
      });

      const unknown = await run('node', [script], {
        cwd: consumer,
        env: { LICENSE_SERVER: t.baseUrl, LICENSE_KEY: 'NO-SUCH-KEY' },
      });
      expect(unknown, script).toMatchObject({
        code: 1,
        stderr: 'License refused: license-invalid (License not found)\n',
      });
    }
  });

  it('verifies with a list of keys (a rotated service), and refuses a license of another product', async () => {
    // The service's key shipped as the previous one, beside a newer key: the answer still verifies.
    const rotated = path.join(consumer, 'rotated');
    mkdirSync(rotated);
    writeFileSync(
      path.join(rotated, 'license-public-key.pem'),
      generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }),
    );
    writeFileSync(
      path.join(rotated, 'license-public-key-previous.pem'),
      readFileSync(path.join(consumer, 'license-public-key.pem')),
    );
    for (const script of ['validate.mjs', 'validate.cjs']) {
      const result = await run('node', [path.join(consumer, script)], {
        cwd: rotated,
        env: { LICENSE_SERVER: t.baseUrl, LICENSE_KEY: license.key },
      });
      expect(result, script).toMatchObject({
        code: 0,
        stderr: '',
        stdout: `Licensed online: key ${license.key}, expires never\n`,
      });
      const other = await run('node', [path.join(consumer, script)], {
        cwd: rotated,
        env: { LICENSE_SERVER: t.baseUrl, LICENSE_KEY: license.key, LICENSE_PRODUCT_ID: 'another-product' },
      });
      expect(other, script).toMatchObject({ code: 1, stdout: '', stderr: 'License refused: wrong-product\n' });
      // The service names the license's product in a valid answer, so the right id passes.
      const mine = await run('node', [path.join(consumer, script)], {
        cwd: rotated,
        env: { LICENSE_SERVER: t.baseUrl, LICENSE_KEY: license.key, LICENSE_PRODUCT_ID: license.product._id },
      });
      expect(mine, script).toMatchObject({
        code: 0,
        stderr: '',
        stdout: `Licensed online: key ${license.key}, expires never\n`,
      });
    }
  });

  it('activates a machine, keeps its floating seat with a heartbeat and gives it back at stop, with plain node', async () => {
    const floating = await t.createLicense({ hwidLimit: 1, heartbeatSeconds: 10 });
    const admin = await t.admin();
    const machines = async () =>
      (await t.http.get(`/api/licenses/${floating._id}/machines`).set('Cookie', admin.cookie).expect(200)).body
        .machines;
    // 6 s of "work": the heartbeat at 5 s (heartbeatSeconds / 2) renews the lease.
    const running = run('node', ['activate.mjs'], {
      cwd: consumer,
      env: { LICENSE_SERVER: t.baseUrl, LICENSE_KEY: floating.key, WORK_MS: '6000' },
    });
    await vi.waitFor(
      async () => {
        const [machine] = await machines();
        expect(machine).toMatchObject({ fingerprint: hwid, name: 'Office laptop', platform: process.platform });
        expect(machine.lastSeenAt).not.toBe(machine.activatedAt);
      },
      { timeout: 15_000, interval: 250 },
    );
    const result = await running;
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(
      new RegExp(`^Activated ${hwid}, lease until \\d{4}-\\d\\d-\\d\\dT\\S+\nSeat released\n$`),
    );
    expect(await machines()).toEqual([]);

    const refused = await run('node', ['activate.mjs'], {
      cwd: consumer,
      env: { LICENSE_SERVER: t.baseUrl, LICENSE_KEY: 'NO-SUCH-KEY', WORK_MS: '0' },
    });
    expect(refused).toMatchObject({ code: 1, stdout: '', stderr: 'Activation refused: refused (License not found)\n' });
  }, 30_000);

  it("checks for an update and downloads it with plain node (the README's update.mjs)", async () => {
    const admin = await t.admin();
    const bytes = randomBytes(50_000);
    const digest = createHash('sha256').update(bytes).digest('hex');
    const created = await t.http
      .post(`/api/products/${product._id}/releases`)
      .set(admin.headers)
      .send({ version: '1.2.0' })
      .expect(201);
    const id = created.body.release._id as string;
    const added = await t.http
      .post(`/api/releases/${id}/artifacts`)
      .set(admin.headers)
      .send({ filename: 'editor-1.2.0.tar.gz', platform: 'linux', arch: 'x86_64', size: bytes.length, sha256: digest })
      .expect(201);
    expect((await fetch(added.body.uploadUrl, { method: 'PUT', body: new Uint8Array(bytes) })).status).toBe(200);
    await t.http
      .post(`/api/releases/${id}/artifacts/${added.body.artifact._id}/complete`)
      .set(admin.headers)
      .expect(200);
    await t.http.post(`/api/releases/${id}/publish`).set(admin.headers).expect(200);
    const out = await succeeds('node', ['update.mjs'], {
      cwd: consumer,
      env: { LICENSE_SERVER: t.baseUrl, LICENSE_KEY: license.key },
    });
    expect(out).toContain(`Downloaded 1.2.0: editor-1.2.0.tar.gz (50000 bytes, SHA-256 ${digest})`);
    expect(readFileSync(path.join(consumer, 'editor-1.2.0.tar.gz')).equals(bytes)).toBe(true);
  });

  it("makes an air-gapped machine's request code with plain node; the console's offline activation answers a file it verifies", async () => {
    const airGapped = await t.createLicense({ hwidLimit: 1 });
    const made = await run('node', ['offline-request.mjs'], { cwd: consumer, env: { LICENSE_KEY: airGapped.key } });
    expect(made).toMatchObject({ code: 0, stderr: '' });
    const code = made.stdout.trim();
    expect(code).toMatch(/^[A-Za-z0-9_-]{1,599}$/);
    const admin = await t.admin();
    const res = await t.http
      .post(`/api/licenses/${airGapped._id}/machines/offline`)
      .set(admin.headers)
      .send({ requestCode: code })
      .expect(201);
    expect(res.body.machine).toMatchObject({ fingerprint: 'pc-air-1', name: 'Lab PC', platform: process.platform });
    // The file carried over: verify-file.mjs checks it with its own hwid (pc-1234), where a file
    // bound to pc-air-1 must be refused (test/offline-activation.test.ts verifies it on pc-air-1).
    const air = path.join(consumer, 'air-gapped');
    mkdirSync(air);
    writeFileSync(path.join(air, 'license.lic.json'), JSON.stringify(res.body.file));
    writeFileSync(
      path.join(air, 'license-public-key.pem'),
      readFileSync(path.join(consumer, 'license-public-key.pem')),
    );
    const elsewhere = await run('node', [path.join(consumer, 'verify-file.mjs')], { cwd: air });
    expect(elsewhere).toMatchObject({ code: 1, stderr: 'License file refused: wrong-machine\n' });
  }, 30_000);

  it('refuses a "valid" answer from a server that does not hold the service\'s key', async () => {
    const impostor = generateKeyPairSync('ed25519').privateKey;
    fakeServer = http.createServer((req, res) => {
      let text = '';
      req.on('data', (chunk) => {
        text += chunk;
      });
      req.on('end', () => {
        const { key, nonce } = JSON.parse(text);
        const body = Buffer.from(
          JSON.stringify({ success: true, valid: true, nonce, license: { key, expiresAt: null } }),
        );
        res
          .writeHead(200, {
            'Content-Type': 'application/json',
            'X-License-Signature': sign(null, body, impostor).toString('base64'),
          })
          .end(body);
      });
    });
    await new Promise<void>((resolve) => fakeServer!.listen(0, '127.0.0.1', resolve));
    const fakeUrl = `http://127.0.0.1:${(fakeServer.address() as AddressInfo).port}`;
    for (const script of ['validate.mjs', 'validate.cjs']) {
      const result = await run('node', [script], {
        cwd: consumer,
        env: { LICENSE_SERVER: fakeUrl, LICENSE_KEY: license.key },
      });
      expect(result, script).toMatchObject({ code: 1, stdout: '', stderr: 'License refused: bad-signature\n' });
    }
    const activation = await run('node', ['activate.mjs'], {
      cwd: consumer,
      env: { LICENSE_SERVER: fakeUrl, LICENSE_KEY: license.key, WORK_MS: '0' },
    });
    expect(activation).toMatchObject({ code: 1, stdout: '', stderr: 'Activation refused: bad-signature\n' });
  });

  it('gives TypeScript the declarations, for import and require, with node16 and bundler resolution', () => {
    // A CommonJS module (.cts) resolves the package's "require" types; the expected error proves
    // the types are real and not `any`.
    writeFileSync(
      path.join(consumer, 'require-types.cts'),
      [
        `import { verifyLicenseFile, type LicenseFileFailure } from '${packageName}';`,
        `const result = verifyLicenseFile('{}', '');`,
        `export const reason: LicenseFileFailure | null = result.valid ? null : result.reason;`,
        `// @ts-expect-error not one of the failures`,
        `export const unknownReason: LicenseFileFailure = 'no-such-reason';`,
      ].join('\n'),
    );
    const files = (names: string[]) => names.map((name) => path.join(consumer, name));
    expect(
      typeErrors(
        { module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16 },
        files(['check-license.ts', 'require-types.cts']),
      ),
    ).toEqual([]);
    expect(
      typeErrors(
        { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler },
        files(['check-license.ts']),
      ),
    ).toEqual([]);
  });
});
