// The publish-path part of the gateway benchmark's report (publish-path.ts): per shape, the
// gateway fed through the platform (HTTP publish → Kafka → channel actor → Redis) against bare
// `ws` fed from Redis at the same rate, and the verdict on deliveries per second.
import type { VariantName } from './messages.ts';
import type { PublishPathResult, PublishShape } from './publish-path.ts';

export interface PublishRoundResult {
  variant: VariantName;
  shape: string;
  round: number;
  connectMs: number;
  result: PublishPathResult;
}

export const PUBLISH_PATH_GOAL = 0.7;

function median(values: number[]): number {
  const s = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}
const fixed = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '—');

export const publishShapeText = (s: PublishShape) =>
  `${s.id}: ${s.channels} channel${s.channels > 1 ? 's' : ''} × ${s.subscribersPerChannel.toLocaleString('en')} subscribers at ${s.publishesPerS.toLocaleString('en')} publishes/s`;

/** Median over rounds of lattice's deliveries/s ÷ bare-ws's in the same round. */
export function publishPathRatio(rounds: PublishRoundResult[], shape: string): number {
  const of = (v: VariantName) => rounds.filter((r) => r.shape === shape && r.variant === v);
  const bare = of('bare-ws');
  return median(
    of('lattice').map(
      (r) =>
        r.result.deliveriesPerS /
        (bare.find((b) => b.round === r.round)?.result.deliveriesPerS ?? Number.NaN),
    ),
  );
}

export function publishPathLines(
  shapes: PublishShape[],
  rounds: PublishRoundResult[],
  scaled: boolean,
): string[] {
  if (shapes.length === 0) return [];
  const out: string[] = [
    '### Fan-out fed through the publish path',
    '',
    'The gateway fed the way production feeds it: the runner POSTs the shape’s publishes a second',
    'through the production edge (`POST /{product}/realtime/messages`, a public key) → Kafka → the channel',
    'actor (offset, history row in PostgreSQL) → Redis → the gateway → its subscribers; bare-ws gets the same',
    'rate on the same shape straight from Redis (the fixed-rate phase above). Deliveries per second are',
    'counted at the subscribers over the measured window; every subscriber is then checked to have every',
    'offset of its channel once, in order. "Platform cores": the edge + actors process; Kafka, PostgreSQL',
    'and Redis are not in any column. Latency: publish → push over every message of the phase.',
    '',
  ];
  for (const shape of shapes) {
    const of = (v: VariantName) => rounds.filter((r) => r.shape === shape.id && r.variant === v);
    const variants = (['bare-ws', 'lattice'] as const).filter((v) => of(v).length > 0);
    out.push(
      `**Shape ${publishShapeText(shape)}** (${(shape.channels * shape.subscribersPerChannel).toLocaleString('en')} connections, ${(shape.publishesPerS * shape.subscribersPerChannel).toLocaleString('en')} deliveries/s when the path keeps up)`,
      '',
      '| server | fed by | publishes/s | deliveries/s | server cores | platform cores | client cores | server CPU µs/delivery | publish → push p50 / p99 ms | fell behind |',
      '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |',
      ...variants.map((v) => {
        const rs = of(v).map((r) => r.result);
        const m = (f: (x: PublishPathResult) => number) => median(rs.map(f));
        const behind = rs.filter((x) => x.fellBehind).length;
        return `| ${v} | ${v === 'lattice' ? 'HTTP publish' : 'Redis'} | ${fixed(m((x) => x.publishesPerS))} | ${fixed(m((x) => x.deliveriesPerS))} | ${fixed(
          m((x) => x.serverCores),
          2,
        )} | ${fixed(
          m((x) => x.platformCores),
          2,
        )} | ${fixed(
          m((x) => x.clientCores),
          2,
        )} | ${fixed(
          m((x) => x.serverCpuUsPerDelivery),
          2,
        )} | ${
          v === 'lattice'
            ? `${fixed(
                m((x) => x.p50Ms),
                1,
              )} / ${fixed(
                m((x) => x.p99Ms),
                1,
              )}`
            : '—'
        } | ${behind ? `${behind} of ${rs.length} rounds` : 'no'} |`;
      }),
      '',
    );
    if (variants.length === 2) {
      const ratio = publishPathRatio(rounds, shape.id);
      out.push(
        `- Shape ${shape.id}, lattice fed through the publish path of bare-ws fed from Redis (goal ≥ ${PUBLISH_PATH_GOAL}): deliveries/s ${fixed(ratio, 3)} (median of per-round ratios: **${ratio >= PUBLISH_PATH_GOAL ? 'meets' : 'misses'} it**${scaled ? ' on the scaled shape' : ''}).`,
        '',
      );
    }
  }
  return out;
}

export function publishPathRoundRows(rounds: PublishRoundResult[], totalRounds: number): string[] {
  if (rounds.length === 0) return [];
  return [
    '| round | publishes/s | deliveries/s | of the rate asked | server cores | platform cores | client cores | TCP retransmits | p99 ms | connect s |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rounds.map(
      (r) =>
        `| ${r.variant} ${r.shape} ${r.round}/${totalRounds} | ${fixed(r.result.publishesPerS)} | ${fixed(r.result.deliveriesPerS)} | ${fixed(r.result.deliveriesPerS / r.result.targetDeliveriesPerS, 3)} | ${fixed(r.result.serverCores, 2)} | ${fixed(r.result.platformCores, 2)} | ${fixed(r.result.clientCores, 2)} | ${r.result.tcpRetransmits} | ${fixed(r.result.p99Ms, 1)} | ${fixed(r.connectMs / 1000, 1)} |`,
    ),
    '',
  ];
}
