import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { serviceEnv, serviceNodeFlags } from './service-runtime.js';

const dockerfile = readFileSync(path.resolve(import.meta.dirname, '..', 'Dockerfile'), 'utf8');

describe('the Docker image runs a service as npm start does', () => {
  it('starts node with the same flags', () => {
    const command = /^CMD \[.*exec node (.*) \\"\$\{TARGET\}\/dist\/main\.js\\""\]$/m.exec(dockerfile);
    expect(command?.[1]?.split(' ')).toEqual(serviceNodeFlags);
  });

  it('sets the same environment', () => {
    const env = /^ENV (.*)$/m.exec(dockerfile)?.[1] ?? '';
    for (const [name, value] of Object.entries(serviceEnv)) expect(env.split(' ')).toContain(`${name}=${value}`);
  });
});
