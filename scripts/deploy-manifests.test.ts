import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { configSchema } from '../packages/config/src/index.js';

// The Kubernetes manifests and the compose file are not run here (no cluster, no Docker engine),
// so they are held to what the services read: every variable they set is one the configuration
// schema knows, ports are the services' ports, probes ask the health routes the services serve.

const root = path.resolve(import.meta.dirname, '..');
const folder = path.join(root, 'deploy/kubernetes');
const variables = new Set(Object.keys(configSchema.shape));

interface Manifest {
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  spec?: Record<string, unknown>;
}
interface Container {
  name: string;
  ports?: { name?: string; containerPort: number }[];
  env?: { name: string; value?: string }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  readinessProbe?: { httpGet: { path: string; port: string | number } };
  livenessProbe?: { httpGet: { path: string; port: string | number } };
  startupProbe?: { httpGet: { path: string; port: string | number } };
}

const manifests: Manifest[] = readdirSync(folder)
  .filter((file) => file.endsWith('.yaml'))
  .flatMap((file) =>
    parseAllDocuments(readFileSync(path.join(folder, file), 'utf8')).map((document) => {
      expect(document.errors, file).toEqual([]);
      return document.toJS() as Manifest;
    }),
  );
const ofKind = (kind: string) => manifests.filter((manifest) => manifest.kind === kind);
const configMap = ofKind('ConfigMap')[0]!;
const secret = ofKind('Secret')[0]!;
const podContainers = (manifest: Manifest): Container[] => {
  const template = (manifest.spec as { template: { spec: { containers: Container[] } } }).template;
  return template.spec.containers;
};
const ports: Record<string, number> = {
  paste: Number(configMap.data?.PASTE_PORT),
  license: Number(configMap.data?.LICENSE_PORT),
};

describe('deploy/kubernetes', () => {
  it('has, per service, a Deployment, a Service, a PodDisruptionBudget and a HorizontalPodAutoscaler; a migration Job; the ConfigMap and an example Secret', () => {
    for (const service of ['paste', 'license']) {
      for (const kind of ['Deployment', 'Service', 'PodDisruptionBudget', 'HorizontalPodAutoscaler']) {
        expect(
          ofKind(kind).map((manifest) => manifest.metadata.name),
          kind,
        ).toContain(service);
      }
    }
    expect(ofKind('Job')).toHaveLength(1);
    expect(configMap.metadata.name).toBe(secret.metadata.name);
  });

  it('names only variables of the configuration schema (ConfigMap, Secret, env of every container)', () => {
    const named = [
      ...Object.keys(configMap.data ?? {}),
      ...Object.keys(secret.stringData ?? {}),
      ...[...ofKind('Deployment'), ...ofKind('Job')]
        .flatMap(podContainers)
        .flatMap((container) => (container.env ?? []).map((entry) => entry.name)),
    ];
    expect(named.length).toBeGreaterThan(15);
    expect(named.filter((name) => !variables.has(name))).toEqual([]);
    // The configuration is validated as the services validate it.
    expect(configSchema.safeParse({ ...configMap.data, ...secret.stringData }).success).toBe(true);
  });

  it.each(['paste', 'license'])(
    'the %s Deployment listens on its configured port and probes /readyz and /healthz there',
    (service) => {
      const deployment = ofKind('Deployment').find((manifest) => manifest.metadata.name === service)!;
      const [container] = podContainers(deployment);
      expect(container!.ports).toEqual([{ name: 'http', containerPort: ports[service] }]);
      expect(container!.envFrom).toEqual([
        { configMapRef: { name: configMap.metadata.name } },
        { secretRef: { name: secret.metadata.name } },
      ]);
      expect(container!.readinessProbe!.httpGet).toEqual({ path: '/readyz', port: 'http' });
      expect(container!.livenessProbe!.httpGet).toEqual({ path: '/healthz', port: 'http' });
      const grace = (deployment.spec as { template: { spec: { terminationGracePeriodSeconds: number } } }).template.spec
        .terminationGracePeriodSeconds;
      expect(grace * 1000).toBeGreaterThan(
        Number(configMap.data!.SHUTDOWN_DRAIN_MS) + Number(configMap.data!.SHUTDOWN_TIMEOUT_MS),
      );
      const target = ofKind('Service').find((manifest) => manifest.metadata.name === service)!.spec as {
        ports: { targetPort: string }[];
      };
      expect(target.ports[0]!.targetPort).toBe('http');
    },
  );

  it('the migration Job sets MIGRATE_ONLY for each service', () => {
    const containers = podContainers(ofKind('Job')[0]!);
    expect(containers.map((container) => container.name).sort()).toEqual(['license', 'paste']);
    for (const container of containers) expect(container.env).toContainEqual({ name: 'MIGRATE_ONLY', value: 'true' });
  });
});

describe('docker-compose.yml', () => {
  const compose = parse(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, { profiles?: string[]; environment?: Record<string, string>; image?: string }>;
  };
  it('has a "scale" profile: a second instance of each service with the same settings, and HAProxy in front', () => {
    expect(compose.services['paste-2']?.environment).toEqual(compose.services.paste?.environment);
    expect(compose.services['license-2']?.environment).toEqual(compose.services.license?.environment);
    for (const name of ['paste-2', 'license-2', 'lb']) expect(compose.services[name]?.profiles).toEqual(['scale']);
    expect(compose.services.lb?.image).toMatch(/^haproxy:/);
    const haproxy = readFileSync(path.join(root, 'docker/haproxy.cfg'), 'utf8');
    for (const server of ['paste:8080', 'paste-2:8080', 'license:3000', 'license-2:3000'])
      expect(haproxy).toContain(` ${server} check`);
    expect(haproxy.match(/option httpchk GET \/readyz/g)).toHaveLength(2);
  });
  it('sets only variables of the configuration schema', () => {
    const named = Object.values(compose.services)
      .flatMap((service) => Object.keys(service.environment ?? {}))
      .filter((name) => !name.startsWith('POSTGRES_') && !name.startsWith('DEV_IDP_'));
    expect(named.filter((name) => !variables.has(name))).toEqual([]);
  });
});
