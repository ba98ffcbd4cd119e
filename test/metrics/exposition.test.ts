// The exposition writer against the strict reader the gateway tests use, and the reader's own
// strictness: each broken rule of the text format is refused (so the gateway tests can fail).
import t from 'tap';
import { exposition } from '../../lib/metrics/exposition.js';
import { Counter, Gauge, Histogram } from '../../lib/metrics/series.js';
import { parseExposition, sampleValue } from '../helpers/prometheus.js';

t.test('counters, histograms and gauges are written as valid exposition', async (t) => {
  const c = new Counter('x_total', 'a counter\\with a backslash', ['a', 'b']);
  c.inc(['one', 'quote " and \\ and \n newline'], 2);
  c.inc(['one', 'quote " and \\ and \n newline']);
  const usd = new Counter('usd_total', 'scaled', ['org'], 1000);
  usd.inc(['acme'], 1500);
  const h = new Histogram('h_seconds', 'a histogram', ['e'], [0.1, 1]);
  h.observe(['m'], 0.05);
  h.observe(['m'], 0.1);
  h.observe(['m'], 0.5);
  h.observe(['m'], 7);
  const g = new Gauge('g', 'a gauge', () => 3);
  const text = exposition([c, usd, h, g]);
  const m = parseExposition(text);
  t.equal(sampleValue(m, 'x_total', { b: 'quote " and \\ and \n newline' }), 3, 'label values escaped and read back');
  t.equal(sampleValue(m, 'usd_total', { org: 'acme' }), 1.5, 'scaled counter');
  t.equal(sampleValue(m, 'h_seconds_bucket', { e: 'm', le: '0.1' }), 2, 'a bound includes values equal to it');
  t.equal(sampleValue(m, 'h_seconds_bucket', { e: 'm', le: '1' }), 3, 'cumulative');
  t.equal(sampleValue(m, 'h_seconds_bucket', { e: 'm', le: '+Inf' }), 4);
  t.equal(sampleValue(m, 'h_seconds_count', { e: 'm' }), 4);
  t.equal(sampleValue(m, 'h_seconds_sum', { e: 'm' }), 7.65);
  t.equal(sampleValue(m, 'g'), 3);
});

t.test('the reader refuses text that breaks the format', async (t) => {
  const ok = '# HELP h x\n# TYPE h histogram\nh_bucket{le="1"} 1\nh_bucket{le="+Inf"} 2\nh_sum 3\nh_count 2\n';
  t.doesNotThrow(() => parseExposition(ok));
  const broken: [string, string, RegExp][] = [
    ['no final newline', ok.slice(0, -1), /newline/],
    ['buckets not cumulative', ok.replace('h_bucket{le="+Inf"} 2', 'h_bucket{le="+Inf"} 0').replace('h_count 2', 'h_count 0'), /cumulative/],
    ['no +Inf bucket', ok.replace('h_bucket{le="+Inf"} 2\n', ''), /\+Inf/],
    ['+Inf differs from _count', ok.replace('h_count 2', 'h_count 5'), /_count/],
    ['no _sum', ok.replace('h_sum 3\n', ''), /_sum/],
    ['sample before TYPE', 'x_total 1\n# TYPE x_total counter\n', /without a TYPE/],
    ['TYPE twice', '# TYPE x counter\n# TYPE x counter\nx 1\n', /TYPE twice/],
    ['samples apart', '# TYPE a counter\n# TYPE b counter\na 1\nb 1\na{l="x"} 2\n', /not together/],
    ['series twice', '# TYPE a counter\na{l="x"} 1\na{l="x"} 2\n', /twice/],
    ['bad escape', '# TYPE a counter\na{l="\\t"} 1\n', /escape/],
    ['negative counter', '# TYPE a counter\na -1\n', /negative/],
    ['bad value', '# TYPE a gauge\na one\n', /bad value/],
  ];
  for (const [name, text, error] of broken) t.throws(() => parseExposition(text), error, name);
});
