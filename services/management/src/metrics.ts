// HTTP request metrics by operation: a counter and a latency histogram, labelled with the
// operationId (bounded: one per route, plus `unmatched`), method and status.
import { operationIdOf } from '@lattice/http';
import type { RequestHandler } from 'express';
import { Counter, Histogram, type Registry } from 'prom-client';

const LABELS = ['operation_id', 'method', 'status'] as const;
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

function counterOn(registry: Registry): Counter<(typeof LABELS)[number]> {
  const name = 'lattice_management_http_requests_total';
  return (
    (registry.getSingleMetric(name) as Counter<(typeof LABELS)[number]> | undefined) ??
    new Counter({ name, help: 'Management API requests answered', labelNames: LABELS, registers: [registry] })
  );
}

function histogramOn(registry: Registry): Histogram<(typeof LABELS)[number]> {
  const name = 'lattice_management_http_request_duration_seconds';
  return (
    (registry.getSingleMetric(name) as Histogram<(typeof LABELS)[number]> | undefined) ??
    new Histogram({
      name,
      help: 'Management API request duration until the answer was sent',
      labelNames: LABELS,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    })
  );
}

export function httpMetricsMiddleware(registry: Registry): RequestHandler {
  const requests = counterOn(registry);
  const duration = histogramOn(registry);
  return (req, res, next) => {
    const startNs = process.hrtime.bigint();
    res.once('finish', () => {
      const labels = {
        operation_id: operationIdOf(res) ?? 'unmatched',
        method: KNOWN_METHODS.has(req.method) ? req.method : 'OTHER',
        status: String(res.statusCode),
      };
      requests.inc(labels);
      duration.observe(labels, Number(process.hrtime.bigint() - startNs) / 1e9);
    });
    next();
  };
}
