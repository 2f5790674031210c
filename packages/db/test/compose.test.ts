import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

// No Docker engine runs where the tests run: this reads docker-compose.yml as Compose does
// (YAML with the `<<` merge key) and checks what decides when the services start.
interface ComposeFile {
  services: Record<
    string,
    {
      healthcheck?: { test?: string[] | string };
      depends_on?: Record<string, { condition?: string }> | string[];
    }
  >;
}

const compose = parse(readFileSync(path.resolve(import.meta.dirname, '../../../docker-compose.yml'), 'utf8'), {
  merge: true,
}) as ComposeFile;

describe('docker-compose.yml', () => {
  it("checks PostgreSQL's health over TCP (-h 127.0.0.1), not the socket its first initialisation listens on", () => {
    const test = compose.services.postgres?.healthcheck?.test;
    expect(Array.isArray(test)).toBe(true);
    const command = test as string[];
    expect(command[0]).toBe('CMD');
    expect(command[1]).toBe('pg_isready');
    const host = command.indexOf('-h');
    expect(host).toBeGreaterThan(1);
    expect(command[host + 1]).toBe('127.0.0.1');
  });

  it.each(['paste', 'license'])('starts the %s service only once PostgreSQL (and Redis) are healthy', (name) => {
    const service = compose.services[name];
    expect(service).toBeDefined();
    expect(service!.depends_on).toEqual({
      postgres: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
    });
  });
});
