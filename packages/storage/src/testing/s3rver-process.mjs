// A real S3-protocol server in a process of its own, for the S3 store's tests: it prints
// `{"port":N}` once listening and stops when its standard input closes (the test process ended).
// `s3rver` (3.7.1) serves everything the store does but accepts any SigV4 signature; its
// maintained fork `@20minutes/s3rver` checks them (so signed sizes and keys are enforced) but
// miscomputes some (listings, response-* overrides with `(`, `'`, `*`): tests take the one
// their check needs (see s3-server.ts).
const [directory, bucket, flavour] = process.argv.slice(2);
const { default: S3rver } = await import(flavour === 'checks-signatures' ? '@20minutes/s3rver' : 's3rver');
const server = new S3rver({
  address: '127.0.0.1',
  port: 0,
  silent: true,
  directory,
  configureBuckets: [{ name: bucket }],
});
const { port } = await server.run();
process.stdout.write(`${JSON.stringify({ port })}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  server.close().finally(() => process.exit(0));
});
