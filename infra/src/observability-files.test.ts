// The files of infra/observability as Prometheus and Grafana read them: a rule file whose every
// expression is valid PromQL (the Prometheus project's grammar), with a severity, a sensible
// `for` and annotations that name a runbook section docs/operations.md has; an importable
// dashboard whose every query parses; a scrape config of the default local ports. That each
// metric named is one the roles export is checked against a running platform by
// test/integration/metrics.test.ts.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import {
  dashboardQueries,
  metricNamesOf,
  observabilityQueries,
  promqlProblems,
  readDashboard,
  readPrometheusConfig,
  readRuleFile,
} from './observability-files.ts';

const OPERATIONS_DOC = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
const SECTIONS = new Set([...OPERATIONS_DOC.matchAll(/^#{2,4} (.+)$/gm)].map((m) => m[1]!.trim()));

describe('infra/observability', () => {
  describe('prometheus-alerts.yml', () => {
    const rules = readRuleFile().groups.flatMap((g) => g.rules);

    it('has uniquely named rules with a severity, a `for` and a summary and a description', () => {
      expect(rules.length).to.be.greaterThan(5);
      expect(new Set(rules.map((r) => r.alert)).size).to.equal(rules.length);
      for (const r of rules) {
        expect(r.alert, JSON.stringify(r)).to.match(/^Lattice[A-Za-z]+$/);
        expect(r.labels?.severity, r.alert).to.be.oneOf(['warning', 'critical']);
        expect(r.for, r.alert).to.match(/^\d+[smh]$/);
        expect(r.annotations?.summary, r.alert).to.be.a('string').and.not.equal('');
        expect(r.annotations?.description, r.alert).to.be.a('string').and.not.equal('');
      }
    });

    it('names, in each description, a runbook section that docs/operations.md has', () => {
      for (const r of rules) {
        const section = /Runbook: docs\/operations\.md, section "([^"]+)"/.exec(
          r.annotations!.description!,
        )?.[1];
        expect(section, `${r.alert}: no runbook section named`).to.be.a('string');
        expect(SECTIONS.has(section!), `${r.alert}: docs/operations.md has no section "${section}"`).to.equal(
          true,
        );
        const anchor = section!
          .toLowerCase()
          .replace(/[^a-z0-9 -]/g, '')
          .replace(/ /g, '-');
        expect(r.annotations?.runbook_url, r.alert).to.equal(`docs/operations.md#${anchor}`);
      }
    });

    it('covers growing lag, dead letters, webhook failures, the fallback limiters and an old key snapshot', () => {
      const read = (metric: string) => rules.filter((r) => metricNamesOf(r.expr).includes(metric));
      expect(read('lattice_actor_lag_records')).to.not.be.empty;
      expect(rules.some((r) => /dead_lettered/.test(r.expr))).to.equal(true);
      expect(read('lattice_mail_webhook_deliveries_total')).to.not.be.empty;
      for (const fallback of [
        'lattice_edge_rate_limit_fallbacks_total',
        'lattice_realtime_publish_quota_fallbacks_total',
        'lattice_mail_send_rate_fallbacks_total',
      ])
        expect(read(fallback), fallback).to.not.be.empty;
      expect(read('lattice_edge_key_snapshot_age_seconds')).to.not.be.empty;
    });
  });

  describe('grafana-dashboard.json', () => {
    const dashboard = readDashboard() as ReturnType<typeof readDashboard> & {
      uid: string;
      title: string;
      schemaVersion: number;
      templating: { list: Array<{ name: string; type: string; query: string }> };
    };

    it('is an importable dashboard: uid, title, schema version, a Prometheus data source variable, laid out panels', () => {
      expect(dashboard.uid).to.equal('lattice-overview');
      expect(dashboard.title).to.equal('Lattice');
      expect(dashboard.schemaVersion).to.be.a('number').at.least(36);
      const source = dashboard.templating.list.find((v) => v.name === 'datasource');
      expect(source).to.include({ type: 'datasource', query: 'prometheus' });
      const ids = new Set<number>();
      for (const p of dashboard.panels as Array<{
        id: number;
        type: string;
        gridPos: Record<string, number>;
      }>) {
        expect(ids.has(p.id), `panel id ${p.id} twice`).to.equal(false);
        ids.add(p.id);
        expect(p.gridPos.w! + p.gridPos.x!, `panel ${p.id}`).to.be.at.most(24);
        expect(p.type).to.be.oneOf(['row', 'timeseries', 'stat']);
      }
    });

    it('shows lag per partition, records, edge requests, gateway connections, sends, webhook deliveries, the snapshot age and the fallback limiters', () => {
      const metrics = new Set(dashboardQueries(dashboard).flatMap((q) => metricNamesOf(q.expr)));
      for (const m of [
        'lattice_actor_lag_records',
        'lattice_actor_records_total',
        'lattice_actor_handler_errors_total',
        'lattice_edge_requests_total',
        'lattice_gateway_connections',
        'lattice_gateway_subscriptions',
        'lattice_mail_sends_total',
        'lattice_mail_webhook_deliveries_total',
        'lattice_edge_key_snapshot_age_seconds',
        'lattice_edge_rate_limit_fallbacks_total',
        'lattice_realtime_publish_quota_fallbacks_total',
        'lattice_mail_send_rate_fallbacks_total',
      ])
        expect(metrics.has(m), m).to.equal(true);
      expect(
        dashboardQueries(dashboard).find((q) => q.expr.includes('lattice_actor_lag_records'))?.expr,
      ).to.match(/by \(group, topic, partition\)/);
    });
  });

  it('every expression of both files is valid PromQL naming only Lattice metrics', () => {
    for (const { where, expr } of observabilityQueries()) {
      expect(promqlProblems(expr), `${where}: ${expr}`).to.deep.equal([]);
      const names = metricNamesOf(expr);
      expect(names, where).to.not.be.empty;
      // Prometheus's own `up` is the one series a process that is gone still has.
      for (const name of names) expect(name, where).to.match(/^(lattice_[a-z_]+|up)$/);
    }
    expect(promqlProblems('rate(lattice_actor_records_total[5m'), 'the grammar refuses what is broken').to.not
      .be.empty;
  });

  it('prometheus.yml scrapes the default local ports and loads the rule file', () => {
    const config = readPrometheusConfig() as {
      rule_files: string[];
      scrape_configs: Array<{ static_configs: Array<{ targets: string[] }> }>;
    };
    expect(config.rule_files).to.deep.equal(['prometheus-alerts.yml']);
    const targets = config.scrape_configs.flatMap((j) => j.static_configs.flatMap((s) => s.targets)).sort();
    expect(targets).to.deep.equal([4000, 4005, 4006, 4007, 4008, 4009, 4010].map((p) => `127.0.0.1:${p}`));
  });
});
