// infra/docker-compose.platform.yml checked without a container engine: every role service runs
// the one image with a real `lattice start` role, sets only variables config.ts reads, is
// health-checked where the role answers, publishes ports that exist and do not collide, and
// depends only on services that exist. The roles come from `lattice start` itself (ROLES) and
// the variables from loadConfig itself (every name it reads), so neither list is repeated here.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ENVIRONMENTS, type LatticeConfig, loadConfig, portOf } from '@lattice/core';
import { expect } from 'chai';
import { parse } from 'yaml';
import { ROLES } from './commands/start.ts';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const INFRA = `${REPO}infra/`;
/** `lattice` commands a one-shot service may run besides `start`. */
const ONE_SHOT_COMMANDS = ['migrate', 'topics'];
const SECRETS_ENV_FILE = 'lattice-secrets.env';

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  environment?: Record<string, string | number | boolean>;
  env_file?: Array<string | { path: string }>;
  ports?: string[];
  depends_on?: Record<string, { condition: string }> | string[];
  healthcheck?: { test: string[] };
  deploy?: { replicas?: number };
  extends?: { file: string; service: string };
  volumes?: string[];
}

interface ComposeFile {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

function load(file: string): ComposeFile {
  // Compose resolves YAML merge keys (`<<: *anchor`); so does this parse.
  return parse(readFileSync(`${INFRA}${file}`, 'utf8'), { merge: true }) as ComposeFile;
}

/** Every environment variable loadConfig reads, seen by reading through a recording proxy. */
function configVariables(): Set<string> {
  const read = new Set<string>();
  const env = new Proxy({} as Record<string, string | undefined>, {
    get(_target, name) {
      if (typeof name === 'string') read.add(name);
      return undefined;
    },
  });
  loadConfig(env);
  return read;
}

/** `${NAME:-default}` as compose resolves it with NAME unset. */
function interpolated(value: string | number | boolean): string {
  return String(value).replace(/\$\{[A-Z0-9_]+:-([^}]*)\}/g, '$1');
}

function configOf(service: Service): LatticeConfig {
  const env = Object.fromEntries(
    Object.entries(service.environment ?? {}).map(([k, v]) => [k, interpolated(v)]),
  );
  return loadConfig(env);
}

/** The ports a role listens on in its container, given its `lattice start` arguments. */
function listeningPorts(config: LatticeConfig, role: string, env: string | undefined) {
  const e = env as (typeof ENVIRONMENTS)[number];
  switch (role) {
    case 'management':
      return { health: config.managementPort, all: [config.managementPort] };
    case 'edge':
      // The edge's own /healthz is its readiness (a key snapshot loaded).
      return {
        health: portOf(config.publicUrls[e]),
        all: [portOf(config.publicUrls[e]), config.edgeMetricsPorts[e]],
      };
    case 'gateway':
      return {
        health: config.gatewayMetricsPorts[e],
        all: [portOf(config.gatewayUrls[e]), config.gatewayMetricsPorts[e]],
      };
    case 'inbound':
      return {
        health: config.inboundMetricsPort,
        all: [config.inboundSmtpPort, config.inboundMetricsPort],
      };
    default:
      return { health: config.actorsPort, all: [config.actorsPort] };
  }
}

/** `[host_ip:]published:target` → its parts; only the forms this file uses. */
function portMapping(spec: string): { published: string; target: number } {
  const parts = spec.split(':');
  const target = Number(parts.pop());
  return { published: parts.join(':'), target };
}

describe('infra/docker-compose.platform.yml', () => {
  const compose = load('docker-compose.platform.yml');
  const services = compose.services;
  const lattice = Object.entries(services).filter(([, s]) => s.image === 'lattice:local' || s.build);
  const roles = lattice.filter(([, s]) => s.command?.[0] === 'start');

  it('runs every role from the one image built by the Dockerfile at the repository root', () => {
    expect(existsSync(`${REPO}Dockerfile`)).to.equal(true);
    const images = new Set(lattice.map(([, s]) => JSON.stringify([s.image, s.build])));
    expect([...images]).to.deep.equal([
      JSON.stringify(['lattice:local', { context: '..', dockerfile: 'Dockerfile' }]),
    ]);
    for (const [name, s] of lattice) {
      const command = s.command ?? [];
      if (command[0] !== 'start') {
        expect(ONE_SHOT_COMMANDS, `${name}: ${command.join(' ')}`).to.include(command[0]);
        continue;
      }
      const [, role, flag, env, ...rest] = command;
      expect(ROLES as readonly string[], name).to.include(role);
      expect(rest, name).to.deep.equal([]);
      if (role === 'edge' || role === 'gateway') {
        expect(flag, name).to.equal('--env');
        expect(ENVIRONMENTS as readonly string[], name).to.include(env);
      } else {
        expect(flag, name).to.equal(undefined);
      }
    }
  });

  it('runs management, both edges, two production gateways or more, three actors hosts and one inbound receiver', () => {
    const count = (...command: string[]) =>
      roles
        .filter(([, s]) => JSON.stringify(s.command) === JSON.stringify(command))
        .reduce((n, [, s]) => n + (s.deploy?.replicas ?? 1), 0);
    expect(count('start', 'management')).to.equal(1);
    expect(count('start', 'edge', '--env', 'production')).to.equal(1);
    expect(count('start', 'edge', '--env', 'development')).to.equal(1);
    expect(count('start', 'gateway', '--env', 'production')).to.be.at.least(2);
    expect(count('start', 'gateway', '--env', 'development')).to.be.at.least(1);
    expect(count('start', 'actors')).to.equal(3);
    expect(count('start', 'inbound')).to.equal(1);
  });

  it('sets only variables config.ts reads, the keyring from the env file and never inline', () => {
    const known = configVariables();
    expect(known.has('LATTICE_SECRET_KEYS') && known.has('DATABASE_URL')).to.equal(true);
    for (const [name, s] of lattice) {
      for (const variable of Object.keys(s.environment ?? {})) {
        expect(known.has(variable), `${name} sets ${variable}, which config.ts does not read`).to.equal(true);
      }
      expect(Object.keys(s.environment ?? {}), name).to.not.include('LATTICE_SECRET_KEYS');
      // Every value parses as config.ts would take it (a bad one throws ConfigError here).
      configOf(s);
    }
    for (const [name, s] of roles) {
      const files = (s.env_file ?? []).map((f) => (typeof f === 'string' ? f : f.path));
      expect(files, name).to.include(SECRETS_ENV_FILE);
    }
    const ignored = readFileSync(`${REPO}.gitignore`, 'utf8') + readFileSync(`${REPO}.dockerignore`, 'utf8');
    expect(ignored).to.include(`infra/${SECRETS_ENV_FILE}`);
  });

  it('names backing services that exist in its addresses', () => {
    for (const [name, s] of lattice) {
      const config = configOf(s);
      const hosts = [
        new URL(config.databaseUrl).hostname,
        new URL(config.redisUrl).hostname,
        new URL(config.smtpUrl).hostname,
        ...config.kafkaBrokers.map((b) => b.split(':')[0]!),
      ];
      for (const host of hosts) expect(Object.keys(services), `${name}: ${host}`).to.include(host);
    }
  });

  it('health-checks every role on the port where its /healthz answers', () => {
    for (const [name, s] of roles) {
      const [, role, , env] = s.command!;
      const expected = listeningPorts(configOf(s), role!, env).health;
      const probe = (s.healthcheck?.test ?? []).join(' ');
      expect(probe, name).to.include(`http://127.0.0.1:${expected}/healthz`);
    }
  });

  it('publishes only ports the roles listen on, and no host port twice', () => {
    const base = load('docker-compose.yml').services;
    const published = new Map<string, string>();
    const all = Object.entries(services).map(
      ([name, s]) => [name, s.extends ? { ...base[s.extends.service], ...s } : s] as const,
    );
    for (const [name, s] of all) {
      if ((s.deploy?.replicas ?? 1) > 1) expect(s.ports ?? [], `${name} is replicated`).to.deep.equal([]);
      for (const spec of s.ports ?? []) {
        const { published: hostPort } = portMapping(spec);
        expect(published.get(hostPort), `${hostPort} of ${name}`).to.equal(undefined);
        published.set(hostPort, name);
      }
    }
    for (const [name, s] of roles) {
      const [, role, , env] = s.command!;
      const listening = listeningPorts(configOf(s), role!, env).all;
      for (const spec of s.ports ?? [])
        expect(listening, `${name}: ${spec}`).to.include(portMapping(spec).target);
    }
  });

  it('depends only on services that exist, extends services that exist, declares its volumes', () => {
    const base = load('docker-compose.yml').services;
    for (const [name, s] of Object.entries(services)) {
      const deps = Array.isArray(s.depends_on) ? s.depends_on : Object.keys(s.depends_on ?? {});
      for (const dep of deps) expect(Object.keys(services), `${name} depends on ${dep}`).to.include(dep);
      if (s.extends) {
        expect(s.extends.file).to.equal('docker-compose.yml');
        expect(Object.keys(base), name).to.include(s.extends.service);
      }
      const volumes = [...(s.volumes ?? []), ...(s.extends ? (base[s.extends.service]?.volumes ?? []) : [])];
      for (const v of volumes) {
        const source = v.split(':')[0]!;
        if (!source.startsWith('.') && !source.startsWith('/'))
          expect(Object.keys(compose.volumes ?? {}), `${name}: ${v}`).to.include(source);
      }
    }
    for (const [name, s] of roles) {
      expect(Object.keys(s.depends_on ?? {}), name).to.include.members(['migrate', 'topics']);
    }
  });
});
